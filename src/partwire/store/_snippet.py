"""Search hits cut from the stored line: the part's type and a snippet of its text.

SQLite's full-text index holds no text (it is contentless: the text is the line's, stored once),
so a hit's snippet is made here from the decoded line, for the few lines a search returns.
"""

from __future__ import annotations

import re
from typing import Any

from ._lines import decode_lines

__all__ = ["Hit", "Row", "Segment", "hit_text", "snippet"]

Row = tuple[Any, ...]
Segment = tuple[str, int, int]
"""Part of a session's lineage: (the session storing the events, first seq, last seq)."""
Hit = tuple[str, str, int, int, str, str]
"""``(session_id, event_id, seq, part index, part type, snippet)``."""

_TOKEN = re.compile(r"\w+")
SNIPPET_WORDS = 16
"""Words a snippet shows at most (FTS5's ``snippet(..., 16)`` in version 2)."""
_SUFFIXES = ("ingly", "edly", "ing", "ies", "ied", "es", "ed", "ly", "s", "e", "y")


def hit_text(line: bytes, index: int, words: list[str]) -> tuple[str, str]:
    """The type of part ``index`` of the event on ``line`` (``tool_output`` for -1) and a snippet
    of its text around ``words``."""
    event = decode_lines([line])[0]
    text: str | None = None
    kind = "tool_output"
    if index < 0:
        text = getattr(event, "output_text", None)
    else:
        parts = getattr(event, "parts", ())
        if index < len(parts):
            kind = parts[index].type
            text = getattr(parts[index], "text", None)
    return kind, snippet(text or "", words)


def _stem(word: str) -> str:
    word = word.lower()
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def snippet(text: str, words: list[str]) -> str:
    """Up to :data:`SNIPPET_WORDS` words of ``text`` around the first match of ``words``, each
    matching word marked ``[like this]``, ``...`` where the text goes on. A word matches when it
    shares its stem with a search word (a rough Porter: the index found the part; this only marks)."""
    stems = {_stem(w) for w in words}
    tokens = list(_TOKEN.finditer(text))
    if not tokens:
        return text[:200]
    hits = [i for i, t in enumerate(tokens) if _stem(t.group()) in stems]
    first = hits[0] if hits else 0
    marked = set(hits)
    start = max(0, min(first - SNIPPET_WORDS // 4, len(tokens) - SNIPPET_WORDS))
    end = min(len(tokens), start + SNIPPET_WORDS)
    out: list[str] = ["..." if start > 0 else text[: tokens[0].start()]]
    for i in range(start, end):
        token = tokens[i]
        out.append(f"[{token.group()}]" if i in marked else token.group())
        tail = tokens[i + 1].start() if i + 1 < len(tokens) else len(text)
        out.append(text[token.end():tail] if i + 1 < end or end == len(tokens) else "")
    if end < len(tokens):
        out.append("...")
    return "".join(out)
