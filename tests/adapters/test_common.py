"""Helpers every adapter shares."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from partwire.adapters._common import parse_json

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


def _outcome(fn: Any, text: str) -> tuple[str, Any]:
    try:
        return "value", fn(text)
    except ValueError as exc:
        return type(exc).__name__, str(exc)


@given(_json_values, st.sampled_from([("", ""), (" ", ""), ("", "\n"), ("\t", " "), ("", "x"), ("", "{}")]),
       st.booleans())
def test_parse_json_is_json_loads(value: Any, around: tuple[str, str], compact: bool) -> None:
    body = json.dumps(value, separators=(",", ":") if compact else None)
    text = around[0] + body + around[1]
    assert _outcome(parse_json, text) == _outcome(json.loads, text)


@pytest.mark.parametrize("text", ["", " ", "{", '{"a":1', "nul", "[1,]", "'a'", '{"a":1}}', "1 2", "NaN"])
def test_parse_json_fails_or_succeeds_as_json_loads(text: str) -> None:
    assert _outcome(parse_json, text) == _outcome(json.loads, text)
