"""Writers of result files: atomic text, CSV and JSON written piece by piece, many small files
off the event loop, YAML a chunk of cases at a time; and the CI-native outputs (JSON Lines,
JUnit XML, a Markdown summary) written from neutral per-case records, each format one entry
of :data:`FORMATS` (``{name: format}``: its writer, its option, its file). What goes into each
file is the kinds' business (``eunomia.kinds``); how a file is written safely and fast is this
package's.

Every name is imported when first used (``__getattr__``): a run writes the CI files only when
asked to, YAML only for task suites, and a command declaring its options from :data:`FORMATS`
loads nothing else."""

from __future__ import annotations

from typing import TYPE_CHECKING

from eunomia.lazy import lazy_names

if TYPE_CHECKING:
    from eunomia.exports._background import FileWriter
    from eunomia.exports._comparison import comparison_summary, write_comparison_junit
    from eunomia.exports._formats import (
        FORMATS,
        Format,
        RecordSink,
        RunFacts,
        formats_table,
        option_formats,
    )
    from eunomia.exports._jsonl import JsonlWriter, TextSink
    from eunomia.exports._junit import JUnitCase, JUnitWriter, RecordsJUnit, xml_text
    from eunomia.exports._markdown import Headline, RecordDigest, RunHeader, md_text, run_summary
    from eunomia.exports._outputs import (
        LIST_HERE,
        CsvOutput,
        JsonList,
        Output,
        write_csv,
        write_csv_dicts,
        write_json_streaming,
    )
    from eunomia.exports._records import RECORD_FIELDS, Outcome, ResultRecord, outcome_of
    from eunomia.exports._yaml import SuiteYaml, cases_yaml, dump_yaml

__getattr__ = lazy_names(__name__, {
    "_background": ("FileWriter",),
    "_comparison": ("comparison_summary", "write_comparison_junit"),
    "_formats": ("FORMATS", "Format", "RecordSink", "RunFacts", "formats_table",
                 "option_formats"),
    "_jsonl": ("JsonlWriter", "TextSink"),
    "_junit": ("JUnitCase", "JUnitWriter", "RecordsJUnit", "xml_text"),
    "_markdown": ("Headline", "RecordDigest", "RunHeader", "md_text", "run_summary"),
    "_outputs": ("LIST_HERE", "CsvOutput", "JsonList", "Output", "write_csv", "write_csv_dicts",
                 "write_json_streaming"),
    "_records": ("RECORD_FIELDS", "Outcome", "ResultRecord", "outcome_of"),
    "_yaml": ("SuiteYaml", "cases_yaml", "dump_yaml"),
})


__all__ = [
    "FORMATS",
    "LIST_HERE",
    "RECORD_FIELDS",
    "CsvOutput",
    "FileWriter",
    "Format",
    "Headline",
    "JUnitCase",
    "JUnitWriter",
    "JsonList",
    "JsonlWriter",
    "Outcome",
    "Output",
    "RecordDigest",
    "RecordSink",
    "RecordsJUnit",
    "ResultRecord",
    "RunFacts",
    "RunHeader",
    "SuiteYaml",
    "TextSink",
    "cases_yaml",
    "comparison_summary",
    "dump_yaml",
    "formats_table",
    "md_text",
    "option_formats",
    "outcome_of",
    "run_summary",
    "write_comparison_junit",
    "write_csv",
    "write_csv_dicts",
    "write_json_streaming",
    "xml_text",
]
