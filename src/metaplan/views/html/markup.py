"""HTML text, escaped: every name and value a report shows goes through :func:`text`.

Module names can hold anything (``<``, ``&``, quotes, non-ASCII, control
characters), so text is escaped for element content and attributes alike,
and a name a terminal would act on is shown as a JSON string
(:func:`metaplan.views.text.printable`); a folded group's brace pattern
keeps its braces (:func:`pattern_text`). Ids come from content, so a report
rendered twice is the same bytes.

>>> text('a<b & "c"')
'a&lt;b &amp; &quot;c&quot;'
>>> element("code", "x<y", cls="pattern")
'<code class="pattern">x&lt;y</code>'
>>> content_id("g", "model.layers.{0..2}")
'g-3a1ad13b2e50'
"""

from __future__ import annotations

import hashlib
import html

from metaplan.views.text import printable

__all__ = ["IdMaker", "content_id", "element", "name_text", "pattern_text", "text"]


def text(value: str) -> str:
    """``value`` escaped for HTML text and attribute values (``& < > " '``); lone
    surrogates, which no HTML file can hold, become U+FFFD."""
    safe = value.encode("utf-8", "replace").decode("utf-8") if not value.isascii() else value
    return html.escape(safe, quote=True)


def name_text(name: str) -> str:
    """A module name escaped for HTML, shown as a JSON string when it is empty or holds a
    character a terminal would act on (as the text reports show it)."""
    return text(printable(name))


def pattern_text(pattern: str) -> str:
    """A brace pattern escaped for HTML, its braces and commas the pattern's (as the folded
    text shows a heading): quoted only when it could be read as something else.

    >>> pattern_text("model.layers.{3..5}.mlp"), pattern_text("m.<b> x")
    ('model.layers.{3..5}.mlp', '&quot;m.&lt;b&gt; x&quot;')
    """
    return text(printable(pattern, pattern=True))


def element(tag: str, inner: str = "", *, cls: str = "", escape: bool = True,
            **attrs: str) -> str:
    """``<tag class=... attr=...>inner</tag>``; ``inner`` escaped unless ``escape=False``
    (it is markup already). An attribute ``data_x`` is written ``data-x``."""
    parts = [tag]
    if cls:
        parts.append(f'class="{text(cls)}"')
    parts += [f'{key.rstrip("_").replace("_", "-")}="{text(value)}"'
              for key, value in attrs.items()]
    body = text(inner) if escape else inner
    return f"<{' '.join(parts)}>{body}</{tag}>"


def content_id(prefix: str, *parts: str) -> str:
    """An id for an element from what it shows: the same content, the same id, every run."""
    digest = hashlib.sha256("\x00".join(parts).encode("utf-8", "surrogatepass")).hexdigest()
    return f"{prefix}-{digest[:12]}"


class IdMaker:
    """Content ids unique within one page: a second element with the same content gets
    ``-2``, then ``-3`` (still the same on every run)."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def __call__(self, prefix: str, *parts: str) -> str:
        """The id of the element that shows ``parts``."""
        base = content_id(prefix, *parts)
        count = self._seen.get(base, 0) + 1
        self._seen[base] = count
        return base if count == 1 else f"{base}-{count}"
