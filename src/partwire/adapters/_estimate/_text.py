"""Text through the tokenizer, and the tally every body estimator fills."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from partwire._json import json_encoder
from partwire._memo import derived, memo, on_forget

__all__ = [
    "Tally",
    "count_text",
    "drop_titles",
    "json_text",
    "known_count",
    "model_name",
    "obj",
    "seq",
    "shape_key",
    "tokenizer_name",
]


# Without a tokenizer: English prose and JSON average about 4 characters per o200k token; text
# with many non-ASCII characters is closer to one token per character.
_CHARS_PER_TOKEN = 4.0


@derived
@cache
def _tokenizer() -> Callable[[str], int] | None:
    with warnings.catch_warnings():
        # bpe-openai reads its data with importlib.resources.open_binary (deprecated, harmless).
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            from bpe_openai import _bindings  # type: ignore[import-not-found,import-untyped,unused-ignore]
        except ImportError:
            return None
        counter: Callable[[str], int] = _bindings.tokenizer_for_encoding("o200k_base").count
    return counter


def tokenizer_name() -> str:
    """The tokenizer behind :func:`count_text`: ``o200k_base`` or the character-count fallback."""
    return "o200k_base (bpe-openai)" if _tokenizer() is not None else "characters/4 (fallback)"


# Counts are remembered: an agent estimates its growing history before every call, and without
# this each estimate would tokenize the whole history again (quadratic over a session); a dict
# lookup is also cheaper than a call into the tokenizer, even for a short string. The memory is
# dropped whole when it holds more than _MEMO_CHARS characters or _MEMO_ENTRIES strings.
_MEMO: dict[str, int] = memo({})
_MEMO_CHARS = 32_000_000
_MEMO_ENTRIES = 500_000
_memo_chars = 0


def count_text(text: str) -> int:
    """The ``o200k_base`` tokens of ``text`` (special-token text counts as plain text)."""
    global _memo_chars
    known = _MEMO.get(text)
    if known is not None:
        return known
    if not text:
        return 0
    size = len(text)
    counter = _tokenizer()
    if counter is not None:
        tokens = counter(text)
    else:
        wide = sum(1 for ch in text if ord(ch) > 0x2FF)
        tokens = math.ceil((size - wide) / _CHARS_PER_TOKEN + wide)
    if _memo_chars + size > _MEMO_CHARS or len(_MEMO) >= _MEMO_ENTRIES:
        _MEMO.clear()
        _memo_chars = 0
    _MEMO[text] = tokens
    _memo_chars += size
    return tokens


known_count: Callable[[str], int | None] = _MEMO.get
"""The remembered count of a string, or ``None``: what :func:`count_text` looks up first, for a
walk over many short items that would otherwise pay a call per item to find it (the memo is
emptied in place, so this stays its lookup)."""


@on_forget
def _forget_counted_size() -> None:
    # The running size of what _MEMO holds, emptied with it.
    global _memo_chars
    _memo_chars = 0


json_text: Callable[[Any], str] = json_encoder(ensure_ascii=False, separators=(",", ":"), default=str)
"""Compact JSON of a value (UTF-8 kept, anything unknown through ``str``), by one encoder made
once (:func:`~partwire._json.json_encoder`)."""


# Strings at least this long inside a JSON value are counted apart from its JSON text.
_LONG_STRING = 256

# The count of a JSON value's skeleton (its JSON text, long strings emptied) by an exact key, so
# that a function call or response seen in an earlier estimate costs a tuple and a lookup instead
# of a walk, an encoding and the lookup of the text. The key lists the keys and the values in
# order, with OPEN / CLOSE around a nested object and booleans as their own markers (True == 1
# in a tuple); only str keys and str / int / bool / None values, to two levels, are keyed, so
# equal keys always mean the same JSON text. Anything else takes the walk.
_SHAPES: dict[tuple[Any, ...], int] = memo({})
_SHAPES_LIMIT = 200_000
_OPEN = object()
_CLOSE = object()
_TRUE = object()
_FALSE = object()


def shape_key(value: dict[Any, Any]) -> tuple[tuple[Any, ...], int] | None:
    """The exact key of ``value``'s skeleton and the tokens of its long strings, or ``None``."""
    key: list[Any] = []
    append = key.append
    long = 0
    for name, item in value.items():
        if type(name) is not str:
            return None
        append(name)
        kind = type(item)
        if kind is str:
            if len(item) >= _LONG_STRING:
                long += count_text(item)
                item = ""
        elif kind is dict:
            append(_OPEN)
            for inner, leaf in item.items():
                if type(inner) is not str:
                    return None
                append(inner)
                kind = type(leaf)
                if kind is str:
                    if len(leaf) >= _LONG_STRING:
                        long += count_text(leaf)
                        leaf = ""
                elif kind is bool:
                    leaf = _TRUE if leaf else _FALSE
                elif kind is not int and leaf is not None:
                    return None
                append(leaf)
            item = _CLOSE
        elif kind is bool:
            item = _TRUE if item else _FALSE
        elif kind is not int and item is not None:
            return None
        append(item)
    return tuple(key), long


class Tally:
    """Text tokens (in o200k units, scaled later by the family's ratio) and fixed tokens."""

    __slots__ = ("fixed", "text")

    def __init__(self, fixed: float = 0.0) -> None:
        self.text = 0
        self.fixed = fixed

    def add_text(self, value: Any) -> None:
        if isinstance(value, str):
            self.text += count_text(value)
        elif value is not None:
            self.text += count_text(json_text(value))

    def add_json(self, value: Any) -> None:
        """Count a JSON value whose long strings are counted on their own, unescaped.

        A tool's output inside a function response is the history's own string object: counted
        apart, it hits the memo, instead of being escaped into a fresh JSON text and tokenized
        again on every estimate.
        """
        if type(value) is dict:
            found = shape_key(value)
            if found is not None:
                key, long = found
                known = _SHAPES.get(key)
                if known is None:
                    if len(_SHAPES) >= _SHAPES_LIMIT:
                        _SHAPES.clear()
                    # The long strings were counted by shape_key; a scratch tally takes them
                    # again while the skeleton is made.
                    known = _SHAPES[key] = count_text(json_text(Tally()._skeleton(value)))
                self.text += long + known
                return
        # The walk adds the long strings to self.text: take the skeleton's count only after it.
        skeleton = self._skeleton(value)
        self.text += count_text(json_text(skeleton))

    def _skeleton(self, value: Any) -> Any:
        """``value`` with its long strings counted and emptied; copied only where one was found.

        Plain dicts and lists with nothing long in them (a call's arguments) come back as they
        are, so the walk allocates nothing for them; other mappings and sequences of those types
        are rebuilt as plain ones, as JSON shows them anyway.
        """
        kind = type(value)
        if kind is dict:
            out: Any = None
            for key, item in value.items():
                t = type(item)
                if t is str:
                    if len(item) < _LONG_STRING:
                        continue
                    self.text += count_text(item)
                    new: Any = ""
                elif t is int or t is float or t is bool or item is None:
                    continue
                else:
                    new = self._skeleton(item)
                    if new is item:
                        continue
                if out is None:
                    out = dict(value)
                out[key] = new
            return value if out is None else out
        if kind is list:
            copy: list[Any] | None = None
            for index, item in enumerate(value):
                new = self._skeleton(item)
                if new is not item:
                    if copy is None:
                        copy = list(value)
                    copy[index] = new
            return value if copy is None else copy
        if isinstance(value, str):
            if len(value) < _LONG_STRING:
                return value
            self.text += count_text(value)
            return ""
        if isinstance(value, dict):
            return {k: self._skeleton(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._skeleton(v) for v in value]
        return value

    def total(self, ratio: float) -> int:
        return max(1, round(self.text * ratio + self.fixed))


def seq(value: Any) -> list[Any]:
    """``value`` if it is a JSON array, else an empty one (bodies are walked leniently)."""
    return value if isinstance(value, list) else []


def obj(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def model_name(body: Mapping[str, Any]) -> str:
    model = body.get("model")
    return model.rsplit(":", 1)[-1].lower() if isinstance(model, str) else ""


def drop_titles(schema: Any) -> Any:
    """A JSON schema without its ``title`` annotations, which the models are not shown."""
    if isinstance(schema, dict):
        return {k: drop_titles(v) for k, v in schema.items() if k != "title"}
    if isinstance(schema, list):
        return [drop_titles(v) for v in schema]
    return schema
