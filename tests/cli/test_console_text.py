"""What the CLI prints is the text it was given: a model id such as ``html:m`` followed by a
colon must not turn into an emoji (rich replaces ``:m:`` by Ⓜ unless told not to)."""

from __future__ import annotations

import pytest

from eunomia.cli._common import console


def test_colon_codes_stay_text(capsys: pytest.CaptureFixture[str]) -> None:
    console().print("failed: html:m: answer unreadable; openai:smile: too")
    out = capsys.readouterr().out
    assert "html:m: answer" in out and "openai:smile: too" in out
    assert "Ⓜ" not in out and "😄" not in out
