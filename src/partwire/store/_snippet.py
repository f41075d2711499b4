"""Search hits cut from the stored line: the part's type and a snippet of its text.

SQLite's full-text index holds no text (it is contentless: the text is the line's, stored once),
so a hit's snippet is made here from the decoded line, for the few lines a search returns.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

from ._lines import decode_lines

__all__ = ["WHOLE_LINE", "Hit", "Row", "Segment", "hit_text", "large_hit_text", "snippet"]

Row = tuple[Any, ...]
Segment = tuple[str, int, int]
"""Part of a session's lineage: (the session storing the events, first seq, last seq)."""
Hit = tuple[str, str, int, int, str, str]
"""``(session_id, event_id, seq, part index, part type, snippet)``."""
WHOLE_LINE = 1 << 20
"""Lines up to this many bytes are decoded whole for a hit's snippet; a longer line is read in
windows (:func:`large_hit_text`), so a search's memory does not grow with one line's size."""
_CHUNK = 1 << 20
_CONTEXT = 4096

_TOKEN = re.compile(r"\w+")
SNIPPET_WORDS = 16
"""Words a snippet shows at most (FTS5's ``snippet(..., 16)`` in version 2)."""
# How far before a match the snippet looks for the words that open it (16 long words' worth).
_LOOK_BACK = 4096
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


def large_hit_text(read: Callable[[int, int], bytes], size: int, index: int,
                   words: list[str]) -> tuple[str, str]:
    """What :func:`hit_text` gives, for a stored line of ``size`` bytes too long to decode whole,
    read ``read(offset, length)`` a window at a time: the snippet is cut from the JSON string
    around the line's first matching word, and the part's type is the nearest ``"type"`` before
    that string (``tool_output`` for the output of a tool message)."""
    stems = {_stem(w) for w in words}
    found = _first_raw_match(read, size, stems)
    if found is None:  # the index matched words this rough stemmer does not: the line's opening
        found = 0
    start = max(0, found - _CONTEXT)
    window = read(start, found - start + _CONTEXT)
    at = found - start
    opening = _string_start(window, at)
    closing = _string_end(window, at)
    fragment = _unescape(window[opening if opening is not None else 0:closing].decode("utf-8", "ignore"))
    text = snippet(fragment, words)
    if opening is None and not text.startswith("..."):
        text = "..." + text  # the string began before the window
    if closing is None and not text.endswith("..."):
        text += "..."
    kind = "tool_output" if index < 0 else _type_before(read, start + (opening or 0))
    return kind, text


def _first_raw_match(read: Callable[[int, int], bytes], size: int, stems: set[str]) -> int | None:
    """The offset in the line of the first word sharing a stem with ``stems`` (ASCII letters
    matched in any case), read a chunk at a time."""
    if not stems:
        return None
    alternatives = b"|".join(re.escape(stem.encode()) for stem in sorted(stems, key=len, reverse=True))
    pattern = re.compile(rb"(?<![A-Za-z0-9_\x80-\xff])(?:" + alternatives + rb")[A-Za-z0-9_\x80-\xff]*",
                         re.IGNORECASE)
    offset, overlap = 0, 64
    while offset < size:
        chunk = read(offset, _CHUNK + overlap)
        for candidate in pattern.finditer(chunk):
            if candidate.end() == len(chunk) and offset + len(chunk) < size:
                break  # perhaps cut: the next chunk starts before it
            word = candidate.group().decode("utf-8", "ignore")
            if _stem(word) in stems:
                return offset + candidate.start()
        offset += _CHUNK
    return None


def _unescaped_quote(window: bytes, at: int) -> bool:
    """Whether the ``"`` at ``at`` closes or opens a JSON string (not preceded by an odd run of
    backslashes)."""
    slashes = 0
    while at - slashes - 1 >= 0 and window[at - slashes - 1] == 0x5C:
        slashes += 1
    return slashes % 2 == 0


def _string_start(window: bytes, at: int) -> int | None:
    """Just after the quote that opens the JSON string holding ``at``, if it is in the window."""
    quote = window.rfind(b'"', 0, at)
    while quote >= 0 and not _unescaped_quote(window, quote):
        quote = window.rfind(b'"', 0, quote)
    return quote + 1 if quote >= 0 else None


def _string_end(window: bytes, at: int) -> int | None:
    """The quote that closes the JSON string holding ``at``, if it is in the window."""
    quote = window.find(b'"', at)
    while quote >= 0 and not _unescaped_quote(window, quote):
        quote = window.find(b'"', quote + 1)
    return quote if quote >= 0 else None


_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/", "\\": "\\", '"': '"'}


def _unescape(fragment: str) -> str:
    """A piece of a JSON string's body as text (a piece cut inside an escape keeps it raw)."""
    def one(found: re.Match[str]) -> str:
        code = found.group(1)
        if code.startswith("u") and len(code) == 5:
            return chr(int(code[1:], 16))
        return _SIMPLE.get(code, code)
    return _ESCAPE.sub(one, fragment)


def _type_before(read: Callable[[int, int], bytes], end: int) -> str:
    """The value of the nearest ``"type":"..."`` before ``end`` in the line (the part's own: a
    part's type comes before its text), read backwards a chunk at a time."""
    key = b'"type":"'
    stop = end
    while stop > 0:
        start = max(0, stop - _CHUNK)
        chunk = read(start, min(stop + len(key), end) - start)
        found = chunk.rfind(key)
        if found >= 0:
            value_end = chunk.find(b'"', found + len(key))
            if value_end > 0:
                return chunk[found + len(key):value_end].decode("utf-8", "replace")
        stop = start
    return "text"


def _stem(word: str) -> str:
    word = word.lower()
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def snippet(text: str, words: list[str]) -> str:
    """Up to :data:`SNIPPET_WORDS` words of ``text`` around the first match of ``words``, each
    matching word marked ``[like this]``, ``...`` where the text goes on. A word matches when it
    shares its stem with a search word (a rough Porter: the index found the part; this only marks).

    The work is bounded whatever the text's size: the first match is found by one regular
    expression over the text (a word's stem is a prefix of it), and only the words around the
    match are split out and stemmed.
    """
    stems = {_stem(w) for w in words}
    first = _first_match(text, stems)
    if first is None:
        # No match: the opening words.
        return _render(text, [], list(itertools.islice(_TOKEN.finditer(text), SNIPPET_WORDS + 1)),
                       stems)
    after = list(itertools.islice(_TOKEN.finditer(text, first), SNIPPET_WORDS + 1))
    window = max(0, first - _LOOK_BACK)
    before = list(_TOKEN.finditer(text, window, first))
    if window and before and before[0].start() == window:
        before = before[1:]  # perhaps the end of a word the window cut
    # A quarter of the snippet before the match; more when the text ends soon after it.
    wanted = max(SNIPPET_WORDS // 4, SNIPPET_WORDS - len(after))
    return _render(text, before[-wanted:], after, stems)


def _first_match(text: str, stems: set[str]) -> int | None:
    """Where the first word sharing a stem with ``stems`` starts in ``text``, or ``None``."""
    if not stems:
        return None
    alternatives = "|".join(re.escape(stem) for stem in sorted(stems, key=len, reverse=True))
    for found in re.finditer(rf"(?<!\w)(?:{alternatives})\w*", text, re.IGNORECASE):
        if _stem(found.group()) in stems:
            return found.start()
    return None


def _render(text: str, before: list[re.Match[str]], after: list[re.Match[str]],
            stems: set[str]) -> str:
    """The snippet made of the words ``before`` the match and ``after`` it (the match first, and
    one word past the snippet's end when the text goes on)."""
    tokens = [*before, *after]
    if not tokens:
        return text[:200]
    end = min(len(tokens), SNIPPET_WORDS)
    opening = tokens[0].start()
    out: list[str] = ["..." if _TOKEN.search(text, 0, opening) else text[:opening]]
    for i in range(end):
        token = tokens[i]
        word = token.group()
        out.append(f"[{word}]" if _stem(word) in stems else word)
        if i + 1 < end:
            out.append(text[token.end():tokens[i + 1].start()])
        elif end == len(tokens):
            out.append(text[token.end():])
    if end < len(tokens):
        out.append("...")
    return "".join(out)
