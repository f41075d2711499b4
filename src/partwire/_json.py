"""JSON as partwire reads and writes it: plain data from dicts, text or SDK objects, a fast
parser, one encoder, a type-exact comparison and the marshalled keys memos are kept by."""

from __future__ import annotations

import json
import marshal
from collections.abc import Callable, Collection, Mapping
from json.encoder import (  # type: ignore[attr-defined]
    c_encode_basestring,
    c_encode_basestring_ascii,
    c_make_encoder,
)
from typing import Any

from pydantic_core import from_json

from partwire._base import json_kind
from partwire.errors import WireFormatError

__all__ = [
    "KEY_VERSION",
    "SHAPE_ERRORS",
    "as_json",
    "fields_key",
    "json_encoder",
    "json_text",
    "load_json",
    "parse_json",
    "parse_object",
    "same_json",
    "token_count",
    "usage_object",
]

# The key of a value read from a body: marshal's version 2 bytes, which keep types apart (True,
# 1 and 1.0; a list and a tuple) and, unlike later versions, never depend on reference counts.
# A fifth of the cost of JSON text. Only exact built-in types marshal; anything else raises.
KEY_VERSION = 2


def as_json(obj: Any) -> Any:
    """Plain JSON data from a dict, a JSON text, or an SDK model (duck-typed, no SDK import).

    SDK models are dumped with the fields the server actually sent (``to_dict`` excludes unset
    fields), so an echo carries exactly what came in.
    """
    if isinstance(obj, dict | list):
        return obj
    if isinstance(obj, str | bytes | bytearray):
        return json.loads(obj)
    to_dict = getattr(obj, "to_dict", None)
    if callable(to_dict):
        # The SDKs build a response object without validating it, so a dialect's server leaves
        # values its types do not declare (Mistral's list of content blocks where OpenAI's type
        # says str). They are dumped as they came; the serializer's warning that it met one is
        # about the SDK's types, not the data, and is not passed on to the caller.
        try:
            return to_dict(mode="json", warnings=False)
        except TypeError:  # a to_dict without the switch
            return to_dict(mode="json")
    model_dump = getattr(obj, "model_dump", None)
    if callable(model_dump):
        return model_dump(mode="json", exclude_unset=True, by_alias=True)
    if isinstance(obj, Mapping):
        return dict(obj)
    raise TypeError(f"cannot read {type(obj).__name__} as JSON data")


def load_json(obj: Any, provider: str, what: str) -> dict[str, Any]:
    """:func:`as_json`, required to give a JSON object; a :class:`WireFormatError` otherwise."""
    if type(obj) is dict:  # the common case, told without isinstance on a union
        return obj
    try:
        data = as_json(obj)
    except (TypeError, ValueError) as exc:
        raise WireFormatError(provider, what, str(exc)) from exc
    if not isinstance(data, dict):
        raise WireFormatError(provider, what, f"expected a JSON object, got {type(data).__name__}")
    return data


_DECODER = json.JSONDecoder()
# The decoder's C scanner: (value, end) for the JSON value at an index, StopIteration if none.
_scan_once: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]
_decode = _DECODER.decode


def parse_json(text: str) -> Any:
    """``json.loads`` of a ``str``, lighter: what pydantic-core's parser reads, with short strings
    shared.

    Tool arguments become part of every request body, and the same few keys (``path``,
    ``query``) were a new string per call: pydantic-core's parser keeps one of each short string
    (``cache_strings="all"``, its process-wide cache), which makes a parsed object two-fifths
    lighter, and it parses faster than the stdlib. It reads JSON as ``json.loads`` does (NaN and
    Infinity included); what it refuses (a lone surrogate escape, nesting deeper than its limit,
    anything not JSON) goes to the stdlib, which returns or raises exactly what ``json.loads``
    would.
    """
    try:
        return from_json(text, cache_strings="all")
    except ValueError:
        pass
    try:
        value, end = _scan_once(text, 0)
    except StopIteration:
        return _decode(text)
    if end != len(text):
        return _decode(text)
    return value


def parse_object(text: str) -> dict[str, Any] | None:
    """:func:`parse_json` of a JSON object; ``None`` for any other value or text (the caller's
    full path reports it)."""
    try:
        value = from_json(text, cache_strings="all")
    except ValueError:
        return None
    return value if type(value) is dict else None


SHAPE_ERRORS = (KeyError, IndexError, TypeError, ValueError, AttributeError)
"""What reading a known item of an unexpected shape raises (pydantic's ValidationError is a
ValueError): a reader that catches it keeps the item whole, like an unknown one."""

def json_encoder(**options: Any) -> Callable[[Any], str]:
    """``json.JSONEncoder(**options).encode``, through the encoder's C scanner made once and
    without the circular-reference bookkeeping: ``encode`` makes a new scanner (and a markers
    dict) per call, half the cost of encoding a tool call's small arguments. A circular value
    recurses until RecursionError; the full encoder then raises what it always did."""
    full = json.JSONEncoder(**options)
    basestring = c_encode_basestring_ascii if full.ensure_ascii else c_encode_basestring
    fast: Callable[[Any, int], Any] | None = (
        c_make_encoder(None, full.default, basestring, None, full.key_separator,
                       full.item_separator, full.sort_keys, full.skipkeys, full.allow_nan)
        if c_make_encoder is not None and basestring is not None and full.indent is None else None)

    def encode(value: Any) -> str:
        if fast is None or type(value) is str:
            return full.encode(value)
        try:
            chunks = fast(value, 0)
        except RecursionError:
            return full.encode(value)
        return chunks if type(chunks) is str else "".join(chunks)

    return encode


json_text: Callable[[Any], str] = json_encoder(ensure_ascii=False)
"""The JSON text partwire writes for a parsed value (``json.dumps`` defaults, UTF-8 kept), by
one encoder made once: ``json.dumps`` with any non-default argument builds a new encoder per
call, which costs more than encoding a tool call's arguments."""


def usage_object(body: Mapping[str, Any], key: str, provider: str) -> dict[str, Any] | None:
    """A response's usage object: ``None`` when absent or null, refused (with its path) when it is
    any other non-object, so a usage the API never sends is not dropped in silence. Its counts
    are each adapter's to read; one of the wrong type counts 0, and the raw object stays in the
    usage's provider data."""
    usage = body.get(key)
    if usage is None or isinstance(usage, dict):
        return usage
    raise WireFormatError(provider, "response", f"a JSON {json_kind(usage)}, not an object", key)


def token_count(raw: Any, key: str) -> int:
    """``raw[key]`` when ``raw`` is an object and that is an integer (not a bool), else 0."""
    if not isinstance(raw, Mapping):
        return 0
    value = raw.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def fields_key(body: Mapping[str, Any], fields: Collection[str]) -> bytes | None:
    """The marshalled bytes of ``body``'s items whose key is in ``fields``, in the body's order:
    the key a reader remembers what it read from those fields by (exact about types and key
    order). ``None`` when they are not plain built-in values (then they are read every time)."""
    try:
        return marshal.dumps([item for item in body.items() if item[0] in fields], KEY_VERSION)
    except (ValueError, RecursionError):
        return None


_PLAIN = frozenset({str, int, float, bool, type(None)})
_MISSING: Any = object()


def same_json(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same value (``True`` is not ``1``, ``1`` is not ``1.0``)."""
    if type(a) is not type(b):
        return False
    if type(a) is dict and len(a) == len(b) and all(
            (y := b.get(k, _MISSING)) is x or (type(x) is type(y) and type(x) in _PLAIN and x == y)
            for k, x in a.items()):
        # Each value the same object, or a scalar of the same type and value: a tool's
        # re-encoding holds the wire's own schema and names beside a few flags, and marshalling
        # both to compare them walked the whole schema twice more.
        return True
    if type(a) is dict or type(a) is list:
        # Compared in C first: values that differ differ here too, and equal ones with the same
        # marshalled bytes have the same types throughout (marshal keeps 1, 1.0 and True apart).
        # Equal values whose bytes differ (keys in another order) are walked.
        if a != b:
            return False
        try:
            if marshal.dumps(a, KEY_VERSION) == marshal.dumps(b, KEY_VERSION):
                return True
        except (ValueError, RecursionError):
            pass
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
