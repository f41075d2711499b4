"""Readable renderings of a history: plain text, Markdown, and a self-contained HTML page.

:func:`to_text` is what ``partwire show`` prints; :func:`to_markdown` holds every text of the
history for a plain viewer; :func:`to_html` is one file with the transcript and, per assistant
turn, the request body each adapter's ``to_wire`` gives and what it loses (docs/viewing.md).
Each assistant turn shows its cost: as stored, else priced now with its price version.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from partwire.history import HistoryEvent
from partwire.render._html import PAGE_SIZE, to_html
from partwire.render._markdown import to_markdown
from partwire.render._text import to_text

__all__ = ["FORMATS", "PAGE_SIZE", "Format", "render", "to_html", "to_markdown", "to_text"]

Format = Literal["text", "markdown", "html"]
"""A rendering: ``text``, ``markdown`` or ``html``."""
FORMATS: tuple[Format, ...] = ("text", "markdown", "html")
"""Every rendering, the default first."""


def render(history: Sequence[HistoryEvent], format: Format = "text", *, title: str | None = None,
           adapters: Sequence[str] | None = None) -> str:
    """``history`` rendered as ``format``; ``title`` names it (Markdown and HTML default to the task's
    title; text shows a title only when given one); ``adapters`` are the HTML page's projection view
    (default: every adapter; see :func:`to_html`)."""
    if format == "text":
        return to_text(history, title=title)
    if format == "markdown":
        return to_markdown(history, title=title)
    if format == "html":
        return to_html(history, title=title, adapters=adapters)
    raise ValueError(f"unknown format {format!r}: expected one of {', '.join(FORMATS)}")
