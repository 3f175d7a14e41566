from eunomia.cli import main

main()
