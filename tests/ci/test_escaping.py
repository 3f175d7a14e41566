"""Whatever text a model, a submission or a file name holds, the JUnit file stays valid XML
(against the JUnit schema) that reads back as the text, and Markdown shows it as text."""

from __future__ import annotations

import io
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import xmlschema
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from eunomia.exports import JUnitCase, JUnitWriter, ResultRecord, md_text, xml_text
from eunomia.exports._junit import MESSAGE_CHARS, TEXT_CHARS

ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=300)
"""Every code point, control characters and lone surrogates included."""
SCHEMA = xmlschema.XMLSchema(Path(__file__).with_name("junit-10.xsd"))


def _document(text: str) -> str:
    out = io.StringIO()
    writer = JUnitWriter(out, text)
    writer.suite(text, [(text, text)])
    writer.add(JUnitCase(text, text, "failed", text, text, text, 1.5))
    writer.add(JUnitCase(text + "2", text, "error", None, text, "", None))
    writer.add(JUnitCase(text + "3", text, "passed"))
    writer.close()
    return out.getvalue()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ANY_TEXT)
@example("\x00\x1b[31m\ud800\ufffe]]><a b='c'>&amp;\r\n\t\x7f\U0001f600")
def test_any_text_makes_a_valid_junit_file_that_reads_back(text: str) -> None:
    document = _document(text)
    document.encode("utf-8")  # nothing UTF-8 cannot carry
    assert SCHEMA.is_valid(document)
    root = ET.fromstring(document)
    shown = xml_text(text)
    case = root.find("./testsuite/testcase")
    assert case is not None and case.get("name") == shown and case.get("classname") == shown
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("message") == xml_text(text, MESSAGE_CHARS)
    # element text: an XML parser reads a carriage return as a line feed
    assert (failure.text or "") == xml_text(text, TEXT_CHARS).replace("\r\n", "\n") \
        .replace("\r", "\n")
    assert root.get("tests") == "3" and root.get("failures") == "1" \
        and root.get("errors") == "1"


def test_forbidden_characters_are_shown_not_dropped() -> None:
    assert xml_text("a\x00b\x1bc\ud800d\ufffee\tf\ng") == "a\\x00b\\x1bc\\ud800d\\ufffee\tf\ng"
    assert xml_text("x" * 10, 4) == "xxxx\n... (6 more characters)"


@given(ANY_TEXT)
def test_markdown_text_is_one_line_of_literal_text(text: str) -> None:
    shown = md_text(text)
    assert "\n" not in shown and "\r" not in shown
    assert "<" not in shown and ">" not in shown  # no HTML
    unescaped = shown.replace("\\\\", "")
    for special in "|`*_[]~":
        assert unescaped.count(special) == unescaped.count("\\" + special)
    assert len(md_text(text, 20)) <= 20 * 6  # cut (escapes may lengthen what is left)


def test_records_keep_no_number_that_is_not_one() -> None:
    record = ResultRecord(run="r", kind="scenarios", suite="s", case="c\ud800", target="t",
                          repeat=0, status="scored", outcome="passed", passed=True,
                          score=math.nan, cost=math.inf, latency_s=1.0)
    assert record.score is None and record.cost is None and record.latency_s == 1.0
    assert record.case == "c\ufffd"
    assert '"score":null' in record.model_dump_json()
