"""The HTML reports on DeepSeek-V3 (hf4 vs its normal form, 29,990 changes): render time and
size of the diff and run reports, and the browser's load time (Playwright + Debian chromium,
skipped with a note when either is missing). Medians of a few runs; no baseline: the text
diff of the same record is printed beside them for scale.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import announce

import metaplan
from metaplan.passes.registry import NORMALIZE, build_pipeline
from metaplan.versions.diffing import diff
from metaplan.views.html import diff_report, run_report
from metaplan.views.text import format_folded

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"


def _median(step: Callable[[], object], runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _load_time(page_text: str) -> float | None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    chromium = shutil.which("chromium")
    if chromium is None:
        return None
    with sync_playwright() as p, tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "report.html"
        path.write_text(page_text, encoding="utf-8")
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(path.as_uri())  # warm-up
        times = []
        for _ in range(5):
            start = time.perf_counter()
            page.goto(path.as_uri(), wait_until="load")
            page.wait_for_selector("#q", state="visible")
            times.append(time.perf_counter() - start)
        browser.close()
        return statistics.median(times)


def main() -> None:
    announce()
    a = metaplan.load(DATA / "deepseek_v3.hf4.json.gz")
    b = metaplan.load(DATA / "deepseek_v3.hf4.expected.json.gz")
    record = diff(a, b)
    trace = build_pipeline(NORMALIZE).run(a)
    text_s = _median(lambda: format_folded(record))
    page = diff_report(record, before=a, after=b)
    diff_s = _median(lambda: diff_report(record, before=a, after=b))
    run_page = run_report(trace)
    run_s = _median(lambda: run_report(trace), runs=3)
    print(f"DeepSeek-V3 hf4 vs its normal form: {len(record):,} changes")
    print(f"text diff (format_folded)   {text_s * 1e3:8.1f} ms")
    print(f"diff report (html)          {diff_s * 1e3:8.1f} ms  {len(page.encode()):>10,} bytes"
          f"  ({diff_s / text_s:.1f}x the text)")
    print(f"run report (html, verified) {run_s * 1e3:8.1f} ms  {len(run_page.encode()):>10,} "
          "bytes")
    loaded = _load_time(page)
    print("browser load (diff report)  " + (f"{loaded * 1e3:8.1f} ms" if loaded is not None
                                            else "   skipped: no playwright or chromium"))


if __name__ == "__main__":
    main()
