"""The label server over HTTP: its pages, the saves and the refusals, escaping, who labels."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import pytest
import yaml
from aiohttp import web
from aiohttp.test_utils import TestClient
from tests.labelling.conftest import (
    ELEMENT_XSS,
    EVIL_CASE,
    SCRIPT_XSS,
    all_met,
    revision_of,
    token_of,
)
from tests.report._html import parse

from eunomia.errors import EunomiaError
from eunomia.labelling import Book
from eunomia.scenarios import load_scenario

Client = TestClient[web.Request, web.Application]
CASE = "/cases/02_missing_start_event"


def _form(token: str, choices: dict[str, str], revision: int = 0, note: str = "",
          then: str = "stay") -> dict[str, str]:
    return {"token": token, "revision": str(revision), "note": note, "then": then,
            **{f"choice:{k}": v for k, v in choices.items()}}


async def test_index_and_a_case_page(loan_client: Client) -> None:
    resp = await loan_client.get("/")
    assert resp.status == 200
    assert "default-src 'none'" in resp.headers["Content-Security-Policy"]
    assert resp.headers["X-Frame-Options"] == "DENY"
    html = await resp.text()
    page = parse(html)
    assert "0 of 39" in page.all_text and "cases labelled" in page.all_text
    links = [t.attrs["href"] for t in page.find("a") if t.attrs.get("href", "").startswith("/c")]
    assert links[0] == "/cases/01_example_solution" and len(links) == 40  # 39 + continue
    resp = await loan_client.get(CASE)
    assert resp.status == 200
    page = parse(await resp.text())
    radios = [t for t in page.find("input") if t.attrs.get("type") == "radio"]
    assert len(radios) == 10 * 3  # met, not met, cannot tell
    assert {t.attrs["value"] for t in radios if t.attrs["name"] == "choice:criterion_3"} == {
        "sgi_5", "sgi_6", "cannot tell"}
    figures = [t for t in page.find("figure")]
    assert [f.attrs["class"] for f in figures] == ["submission", "example"]
    assert len(page.svgs) == 2  # both drawn
    (nav,) = [t for t in page.find("nav")]
    keys = {t.attrs.get("accesskey") for t in page.find("a")} | {
        t.attrs.get("accesskey") for t in page.find("button")}
    assert {"i", "p", "n", "s"} <= keys and nav is not None
    assert (await loan_client.get("/cases/no_such_case")).status == 404
    assert (await loan_client.get("/nothing")).status == 404


async def test_label_a_case_and_see_it_kept(loan_client: Client, loan: Path) -> None:
    html = await (await loan_client.get(CASE)).text()
    choices = all_met(criterion_3="sgi_6", criterion_9="cannot tell")
    resp = await loan_client.post(CASE, data=_form(token_of(html), choices, note="no start",
                                                   then="next"), allow_redirects=False)
    assert resp.status == 303
    assert resp.headers["Location"] == "/cases/03_missing_end_event?saved=02_missing_start_event"
    shown = await (await loan_client.get(resp.headers["Location"])).text()
    assert "Saved your label of 02_missing_start_event (revision 1, complete)" in shown
    again = await (await loan_client.get(CASE)).text()
    page = parse(again)
    checked = {t.attrs["name"]: t.attrs["value"] for t in page.find("input")
               if "checked" in t.attrs}
    assert checked == {f"choice:{k}": v for k, v in choices.items()}
    assert "no start" in again and revision_of(again) == 1
    label = yaml.safe_load((loan / "labels.yml").read_text())["cases"][
        "02_missing_start_event"]["anna"]
    assert label["choices"] == choices and label["revision"] == 1
    index = parse(await (await loan_client.get("/")).text()).all_text
    assert "1 of 39" in index and "0 of 39 cases resolved" in index  # cannot tell: unresolved


async def test_a_stale_save_is_refused_and_shows_the_newer_label(loan_client: Client,
                                                                 loan: Path) -> None:
    tab1 = await (await loan_client.get(CASE)).text()
    tab2 = await (await loan_client.get(CASE)).text()
    first = all_met(criterion_3="sgi_6")
    resp = await loan_client.post(CASE, data=_form(token_of(tab1), first, note="tab one"),
                                  allow_redirects=False)
    assert resp.status == 303
    mine = all_met(criterion_1="sgi_2")
    resp = await loan_client.post(CASE, data=_form(token_of(tab2), mine, note="tab two"))
    assert resp.status == 409
    html = await resp.text()
    assert "Not saved" in html and "revision 1" in html
    page = parse(html)
    checked = {t.attrs["name"]: t.attrs["value"] for t in page.find("input")
               if "checked" in t.attrs}
    assert checked["choice:criterion_1"] == "sgi_2"  # the form keeps mine
    assert "tab one" in page.all_text and "tab two" in page.all_text  # the newer label shown
    assert revision_of(html) == 1  # saving this form again replaces it knowingly
    label = yaml.safe_load((loan / "labels.yml").read_text())["cases"][
        "02_missing_start_event"]["anna"]
    assert label["note"] == "tab one"
    resp = await loan_client.post(CASE, data=_form(token_of(html), mine, revision=1,
                                                   note="tab two"), allow_redirects=False)
    assert resp.status == 303
    data = yaml.safe_load((loan / "labels.yml").read_text())
    assert data["cases"]["02_missing_start_event"]["anna"]["note"] == "tab two"
    assert [h["note"] for h in data["history"]] == ["tab one"]


async def test_refusals(loan_client: Client, loan: Path) -> None:
    html = await (await loan_client.get(CASE)).text()
    token = token_of(html)
    assert (await loan_client.post(CASE, data=_form("forged", all_met()))).status == 403
    # a page of this server from before a restart (an earlier token, its own Origin): shown
    # again with its choices, not saved
    own = f"http://{loan_client.host}:{loan_client.port}"
    resp = await loan_client.post(CASE, data=_form("earlier", all_met(criterion_2="cannot tell")),
                                  headers={"Origin": own})
    html = await resp.text()
    assert resp.status == 409 and "the label server was restarted" in html
    assert 'value="cannot tell" checked' in html and token_of(html) == token
    resp = await loan_client.post(CASE, data=_form(token, all_met()),
                                  headers={"Origin": "http://evil.example"})
    assert resp.status == 403
    resp = await loan_client.post(CASE, data=_form(token, all_met(criterion_1="bogus")))
    assert resp.status == 400 and "not an instruction of criterion" in await resp.text()
    resp = await loan_client.post(CASE, data={**_form(token, all_met()), "revision": "x"})
    assert resp.status == 400
    resp = await loan_client.post(CASE, data=_form(token, all_met(), note="x" * 5000))
    assert resp.status == 400
    assert (await loan_client.put(CASE)).status == 405
    resp = await loan_client.get("/", headers={"Host": "evil.example:8760"})
    assert resp.status == 421
    assert not (loan / "labels.yml").exists()  # nothing was written


async def test_everything_from_a_submission_or_manifest_is_escaped(
        project: Path, client_of: Callable[..., Client]) -> None:
    async with client_of(Book(project), labeller="tutor") as client:
        index = await (await client.get("/")).text()
        assert EVIL_CASE not in index and "evil&lt;img src=x onerror" in index
        href = "/cases/" + quote(EVIL_CASE, safe="")
        assert f'href="{href}"' in index
        html = await (await client.get(href)).text()
        assert "<img src=x" not in html and SCRIPT_XSS not in html and "<script" not in html
        assert "&lt;script&gt;window.__pwned=1" in html  # the class's name, drawn as text
        assert "Required Classes &lt;script&gt;window.__pwned=1&lt;/script&gt;" in html
        html = await (await client.get("/cases/missing_task_class")).text()
        assert ELEMENT_XSS not in html and "&lt;img src=x onerror=window.__pwned=1&gt;" in html
        # a label saved for the evil case reads back
        resp = await client.post(href, data=_form(token_of(html), {"classes": "classes_correct"}),
                                 allow_redirects=False)
        assert resp.status == 303
        html = await (await client.get(href)).text()
        assert "1 of 15 labelled" not in html  # a draft does not count
        assert "started" in html


async def test_others_show_once_labelled_and_disagreements_come_first(
        loan: Path, client_of: Callable[..., Client]) -> None:
    async with client_of(Book(loan)) as client:
        # no --labeller: the browser is asked for a name, kept in a cookie
        resp = await client.get(CASE, allow_redirects=False)
        assert resp.status == 303 and resp.headers["Location"].startswith("/labeller?next=")
        form = await (await client.get(resp.headers["Location"])).text()
        resp = await client.post("/labeller", data={"token": token_of(form), "name": "bob",
                                                    "next": CASE}, allow_redirects=False)
        assert resp.status == 303 and resp.headers["Location"] == CASE
        assert "SameSite=Strict" in resp.headers["Set-Cookie"]
        html = await (await client.get(CASE)).text()
        assert "Labelling as <b>bob</b>" in html
        bad = await client.post("/labeller", data={"token": token_of(form), "name": "<b>",
                                                   "next": "https://evil.example/"})
        assert bad.status == 400
        await client.post(CASE, data=_form(token_of(html), all_met()), allow_redirects=False)
        client.session.cookie_jar.clear()
        resp = await client.post("/labeller", data={"token": token_of(form), "name": "cem",
                                                    "next": "//evil.example/x"},
                                 allow_redirects=False)
        assert resp.headers["Location"] == "/"
        html = await (await client.get(CASE)).text()
        assert "bob" not in parse(html).all_text.split("Labelling as")[1].split("Label")[0]
        await client.post(CASE, data=_form(token_of(html),
                                           all_met(criterion_5="sgi_10")),
                          allow_redirects=False)
        html = await (await client.get(CASE)).text()
        assert "<b>bob</b>: <span class=\"differs\">Met</span>" in html
        index = await (await client.get("/")).text()
        rows = [t.attrs["href"] for t in parse(index).find("a")
                if t.attrs.get("href", "").startswith("/cases/")]
        assert rows[1] == CASE  # first in the table (after "continue")
        assert "disagreeing" in index and "Cohen" in index and "(n = 1)" in index
    scenario, problems = load_scenario(loan)
    assert scenario is not None
    assert any("a tie on criterion_5" in str(p) for p in problems)


def test_a_scenario_without_criteria_cannot_be_labelled(tmp_path: Path, loan: Path) -> None:
    manifest = loan / "manifest.yml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text[:text.index("\ncriteria:")] + "\ncriteria: []\n", encoding="utf-8")
    with pytest.raises(EunomiaError, match="no criteria"):
        Book(loan)
