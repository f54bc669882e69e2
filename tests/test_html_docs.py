"""The screenshots docs/html.md shows are there: each one a PNG of a sane size, taken
(``tools/html_screenshots.py``) and kept in ``docs/``; each one the tool writes is shown."""

from __future__ import annotations

import re
import struct
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
_IMAGE = re.compile(r"!\[[^\]]+\]\((html-[\w-]+\.png)\)")


def _shown() -> list[str]:
    return _IMAGE.findall((DOCS / "html.md").read_text(encoding="utf-8"))


def test_every_screenshot_the_page_shows_is_a_png_of_a_sane_size() -> None:
    shown = _shown()
    assert len(shown) >= 7 and len(set(shown)) == len(shown)
    for name in shown:
        data = (DOCS / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", name
        width, height = struct.unpack(">II", data[16:24])
        assert (width, height) == (1100, 760), name  # the tool's viewport
        assert 10_000 < len(data) < 1_000_000, (name, len(data))


def test_the_page_shows_every_screenshot_the_tool_writes() -> None:
    tool = (ROOT / "tools" / "html_screenshots.py").read_text(encoding="utf-8")
    start = tool.index("def reports(")
    written = set(re.findall(r'^        "([\w-]+)": \(', tool[start:], flags=re.MULTILINE))
    assert {f"html-{name}.png" for name in written} == set(_shown())
    assert {p.name for p in DOCS.glob("html-*.png")} == set(_shown())
