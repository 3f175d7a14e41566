"""Writers of result files: atomic text, CSV and JSON written piece by piece, many small files
off the event loop, YAML a case at a time. What goes into each file is the kinds' business
(``eunomia.kinds``); how a file is written safely and fast is this package's."""

from eunomia.exports._background import FileWriter
from eunomia.exports._outputs import (
    LIST_HERE,
    CsvOutput,
    JsonList,
    Output,
    write_csv,
    write_csv_dicts,
    write_json_streaming,
)
from eunomia.exports._yaml import SuiteYaml, case_yaml, dump_yaml, slow_case_yaml

__all__ = [
    "LIST_HERE",
    "CsvOutput",
    "FileWriter",
    "JsonList",
    "Output",
    "SuiteYaml",
    "case_yaml",
    "dump_yaml",
    "slow_case_yaml",
    "write_csv",
    "write_csv_dicts",
    "write_json_streaming",
]
