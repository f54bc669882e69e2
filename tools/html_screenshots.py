"""Write docs/html-*.png: a screenshot of each HTML report, taken with the browser the tests
use (Playwright driving Debian's chromium), on the bundled DeepSeek-V3 fixture.

Run: ``python tools/html_screenshots.py`` (after ``pip install -e '.[test,browser]'``).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from playwright.sync_api import sync_playwright  # noqa: E402

import metaplan  # noqa: E402
from metaplan.core.invariants import verification  # noqa: E402
from metaplan.passes.registry import NORMALIZE, build_pipeline  # noqa: E402
from metaplan.versions.diffing import diff  # noqa: E402
from metaplan.versions.merging import merge  # noqa: E402
from metaplan.views.html import diff_report, merge_report, run_report, verify_report  # noqa: E402
from test_html import merge_sides  # noqa: E402

SHARED = "model.layers.3.mlp.shared_experts"


def reports() -> dict[str, tuple[str, str | None]]:
    """Each report's page, and what to search in it before the screenshot."""
    data = ROOT / "tests" / "data"
    a = metaplan.load(data / "deepseek_v3.hf4.json.gz")
    b = metaplan.load(data / "deepseek_v3.hf4.expected.json.gz")
    small = metaplan.load(data / "deepseek_v3.hf5.json.gz")
    base, ours, theirs = merge_sides()
    run = run_report(build_pipeline(NORMALIZE).run(small), source="deepseek_v3.hf5.json.gz",
                     pipeline="normalize")
    return {
        "diff": (diff_report(diff(a, b), labels=("deepseek_v3.hf4.json.gz",
                                                 "deepseek_v3.hf4.expected.json.gz"),
                             before=a, after=b), SHARED),
        "run": (run, SHARED),
        "pass-picture": (run_report(build_pipeline(NORMALIZE).run(a),
                                    source="deepseek_v3.hf4.json.gz", pipeline="normalize"),
                         None),
        "verify": (verify_report(verification(theirs), source="theirs.json"), None),
        "merge": (merge_report(merge(base, ours, theirs),
                               labels=("base.json", "ours.json", "theirs.json")), None),
        "picture": (diff_report(diff(a, b), before=a, after=b), None),
        "unchanged": (diff_report(diff(a, b), labels=("deepseek_v3.hf4.json.gz",
                                                      "deepseek_v3.hf4.expected.json.gz"),
                                  before=a, after=b), "model.layers.3.self_attn"),
    }


def _scroll_to(page: Any, selector: str) -> None:
    page.evaluate(f"window.scrollTo(0, document.querySelector({selector!r})"
                  ".getBoundingClientRect().top + window.scrollY - 150)")


def main() -> None:
    with sync_playwright() as p, tempfile.TemporaryDirectory() as folder:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"),
                                    args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1100, "height": 760})
        for name, (html, query) in reports().items():
            path = Path(folder) / f"{name}.html"
            path.write_text(html, encoding="utf-8")
            page.goto(path.as_uri())
            if name == "unchanged":
                page.check("#show-unchanged")
            if query:
                page.fill("#q", query)
                page.press("#q", "Enter")
            if name == "picture":
                _scroll_to(page, "#picture")
            if name == "pass-picture":
                _scroll_to(page, "#pass-3-picture")
            if name in ("verify", "merge"):
                page.locator("details.grp").first.evaluate("d => d.open = true")
            out = ROOT / "docs" / f"html-{name}.png"
            page.screenshot(path=str(out))
            print(out.relative_to(ROOT))
        browser.close()


if __name__ == "__main__":
    main()
