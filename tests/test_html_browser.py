"""The HTML reports in a real browser (Playwright driving Debian's chromium).

Every request is routed: anything but the report itself fails the test. Each
report reads with JavaScript on, off, and under a strict Content-Security-
Policy; the search finds a module and opens its group; the run report's
history of a module lists the passes ``explain`` lists.

Locally these skip when chromium or playwright is missing; under CI (``CI``
set, as ``.ci/run`` sets it) they fail instead.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

import metaplan
from conftest import fixture_path
from metaplan.core.invariants import verification
from metaplan.passes.registry import NORMALIZE, build_pipeline
from metaplan.versions.diffing import diff
from metaplan.versions.merging import merge
from metaplan.views.html import diff_report, read_report_data
from metaplan.views.html.checks import merge_report, verify_report
from metaplan.views.html.runs import run_report
from test_html import merge_sides

URL = "http://metaplan.test/report.html"
STRICT = "sandbox; default-src 'none'; img-src 'self'; style-src 'self'"
SHARED = "model.layers.3.mlp.shared_experts"
SAME = "model.layers.3.self_attn"  # no change touches it (the diff's "unchanged" modules)


def _missing(what: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{what} is missing under CI: .ci/run must install it")
    pytest.skip(f"{what} is not installed (apt-get install chromium; pip install -e "
                "'.[browser]')")


def _browser_or_skip() -> tuple[Any, str]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright")
        raise
    chromium = shutil.which("chromium")
    if chromium is None:
        _missing("chromium")
        raise AssertionError("unreachable")
    return sync_playwright, chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_playwright, chromium = _browser_or_skip()
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def reports() -> dict[str, str]:
    plan = metaplan.load(fixture_path("deepseek_v3.hf5"))
    trace = build_pipeline(NORMALIZE).run(plan)
    base, ours, theirs = merge_sides()
    merged = merge(base, ours, theirs)
    return {"diff": diff_report(diff(plan, trace.final), labels=("hf5", "normal form"),
                                before=plan, after=trace.final),
            "run": run_report(trace, source="deepseek_v3.hf5.json.gz", seconds=False),
            "verify": verify_report(verification(theirs), source="theirs"),
            "merge": merge_report(merged)}


class Opened:
    """A report open in a page, and every request and error the page made."""

    def __init__(self, browser: Any, page_text: str, *, script: bool = True,
                 policy: str | None = None) -> None:
        self.context = browser.new_context(java_script_enabled=script)
        self.strays: list[str] = []
        self.errors: list[str] = []
        headers = {"Content-Type": "text/html; charset=utf-8"}
        if policy:
            headers["Content-Security-Policy"] = policy

        def route(request: Any) -> None:
            if request.request.url == URL:
                request.fulfill(status=200, headers=headers, body=page_text.encode())
            else:
                self.strays.append(request.request.url)
                request.abort()

        self.context.route("**/*", route)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error"
                     else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(URL)

    def search(self, query: str) -> None:
        """Type ``query`` in the search box and run it, as a reader would."""
        self.page.fill("#q", query)
        self.page.press("#q", "Enter")

    def close(self) -> None:
        self.context.close()


def _patterns(page_text: str) -> list[str]:
    data = read_report_data(page_text)
    keys = ("modules", "paths", "items", "history", "violation", "note", "conflict")
    return [next(g[key] for key in keys if key in g) for g in data["groups"].values()]


@pytest.mark.parametrize("name", ["diff", "run", "verify", "merge"])
@pytest.mark.parametrize("mode", ["script", "no script", "strict policy"])
def test_every_group_reads_and_nothing_is_fetched(browser: Any, reports: dict[str, str],
                                                  name: str, mode: str) -> None:
    opened = Opened(browser, reports[name], script=mode == "script",
                    policy=STRICT if mode == "strict policy" else None)
    try:
        shown = opened.page.inner_text("body")
        for pattern in _patterns(reports[name]):
            assert pattern in shown, pattern
        assert opened.strays == []
        if mode == "script":
            assert opened.errors == []
            assert opened.page.is_visible("#q")
        else:  # no script ran: the controls stay hidden, the content is all there
            assert not opened.page.is_visible("#q")
    finally:
        opened.close()


def test_search_finds_a_module_and_opens_its_group(browser: Any,
                                                   reports: dict[str, str]) -> None:
    opened = Opened(browser, reports["diff"])
    try:
        page = opened.page
        opened.search(SHARED)
        hit = page.locator("details.grp.hit")
        assert hit.count() == 1 and hit.get_attribute("open") is not None
        assert SHARED in hit.locator(".found").inner_text()
        assert page.evaluate("location.hash") == "#fqn=" + SHARED.replace(".", ".")
        opened.search("model.layers.{3..4}.mlp")
        assert "2 matches in 1 group" in page.inner_text("#status")
        assert opened.errors == [] and opened.strays == []
    finally:
        opened.close()


def test_a_permalink_opens_the_module(browser: Any, reports: dict[str, str]) -> None:
    opened = Opened(browser, reports["diff"])
    try:
        opened.page.goto(f"{URL}#fqn={SHARED}")
        opened.page.wait_for_selector("details.grp.hit[open]")
        assert opened.errors == []
    finally:
        opened.close()


def test_the_history_lists_the_passes_explain_lists(browser: Any,
                                                    reports: dict[str, str]) -> None:
    trace = build_pipeline(NORMALIZE).run(metaplan.load(fixture_path("deepseek_v3.hf5")))
    expected = [name for name, _ in trace.explain_module(SHARED)]
    assert expected  # the module is changed
    opened = Opened(browser, reports["run"])
    try:
        page = opened.page
        opened.search(SHARED)
        found = page.locator("#history details.grp.hit")
        assert found.count() == 1 and found.get_attribute("open") is not None
        assert found.locator("ol.steps .pass").all_inner_texts() == expected
        assert opened.errors == [] and opened.strays == []
    finally:
        opened.close()


def test_the_report_opens_from_a_file(browser: Any, reports: dict[str, str],
                                      tmp_path: Any) -> None:
    path = tmp_path / "report.html"
    path.write_text(reports["diff"], encoding="utf-8")
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    try:
        page.goto(path.as_uri())
        assert requests == [path.as_uri()]
        assert page.is_visible("#q")
    finally:
        page.close()


def test_show_unchanged_shows_and_hides_the_unchanged_modules(browser: Any,
                                                              reports: dict[str, str]) -> None:
    opened = Opened(browser, reports["diff"])
    try:
        page = opened.page
        assert page.is_visible("#show-unchanged") and not page.is_visible("#unchanged")
        opened.search(SAME)  # hidden: not found, but the status says where it is
        status = page.inner_text("#status")
        assert f"no match for {SAME}" in status and "1 in the unchanged modules" in status
        assert page.locator("details.grp.hit").count() == 0
        page.check("#show-unchanged")  # the search runs again, over the unchanged too
        assert page.is_visible("#unchanged")
        hit = page.locator("#unchanged details.grp.unchanged.hit")
        assert hit.count() == 1 and hit.get_attribute("open") is not None
        assert SAME in hit.locator(".found").inner_text() and hit.is_visible()
        assert "1 match in 1 group" in page.inner_text("#status")
        page.uncheck("#show-unchanged")
        assert not page.is_visible("#unchanged")
        assert page.locator("details.grp.hit").count() == 0
        page.fill("#q", "")
        page.press("#q", "Enter")
        total = len(read_report_data(reports["diff"])["groups"])
        assert page.inner_text("#status") == f"{total} of {total} groups shown"
        assert opened.errors == [] and opened.strays == []
    finally:
        opened.close()


@pytest.mark.parametrize("mode", ["no script", "strict policy"])
def test_the_unchanged_modules_read_without_script(browser: Any, reports: dict[str, str],
                                                   mode: str) -> None:
    opened = Opened(browser, reports["diff"], script=False,
                    policy=STRICT if mode == "strict policy" else None)
    try:
        page = opened.page
        assert page.is_visible("#unchanged") and not page.is_visible("#show-unchanged")
        assert "63 unchanged modules in 3 groups" in page.inner_text("#unchanged")
        assert page.locator("#unchanged-list").get_attribute("open") is None
        page.click("#unchanged-list > summary")  # opens without script, as any <details>
        assert "model.layers.{0..60}.self_attn" in page.inner_text("#unchanged")
        assert opened.strays == []
    finally:
        opened.close()


@pytest.mark.parametrize("mode", ["script", "strict policy"])
def test_each_pass_has_its_picture_in_the_run_report(browser: Any, reports: dict[str, str],
                                                      mode: str) -> None:
    opened = Opened(browser, reports["run"], script=mode == "script",
                    policy=STRICT if mode == "strict policy" else None)
    try:
        page = opened.page
        for number in (1, 3):  # pass 2 changed nothing
            assert page.is_visible(f"#pass-{number}-picture svg")
            assert "changed:" in page.inner_text(f"#pass-{number}-picture .legend")
        assert page.locator("details.pass-picture").count() == 2
        assert opened.strays == []
        if mode == "script":  # under the policy, the blocked style and script are reported
            assert opened.errors == []
    finally:
        opened.close()
