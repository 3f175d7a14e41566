from eunomia.cli import command

command()
