"""The codec under hostile input: partwire's own errors, or reported problems, never anything else.

The codec is fed arbitrary JSON values, wrong types in every field, truncated and non-UTF-8
bytes, and nesting deeper than the interpreter's recursion limit. The ``partwire`` command's
answer to the same input (one ``partwire: error:`` line, or its problem lines, never a
traceback) is in ``test_cli.py``.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from partwire._limits import exceeds_depth, iter_lines, read_body
from partwire.cli._example import example_history
from partwire.codec import decode, dumps, iter_records, loads, read, rewrite
from partwire.errors import DecodeError, PartwireError
from partwire.history import UnknownEvent
from tests.harness.depth import examples
from tests.strategies import json_values

DEEP = sys.getrecursionlimit() * 3
"""Deeper than the interpreter can recurse."""

EXAMPLE_LINES = [json.loads(line) for line in dumps(example_history()).splitlines()]

HOSTILE = settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _nested(depth: int, kind: str = "[") -> str:
    close = "]" if kind == "[" else "}"
    inner = "[]" if kind == "[" else "{}"
    opener = kind if kind == "[" else '{"a":'
    return opener * depth + inner + close * depth


def _codec_survives(data: bytes) -> None:
    """Tolerant reading takes anything; strict reading raises DecodeError or nothing."""
    events = loads(data)
    assert len(events) <= data.count(b"\n") + 1
    with contextlib.suppress(DecodeError):
        loads(data, strict=True)
    for line in data.splitlines() or [data]:
        if not line.strip():
            continue
        decode(line, strict=False)
        with contextlib.suppress(DecodeError):
            decode(line)


# -- values that replace a field --------------------------------------------------------------


def _any_json() -> st.SearchStrategy[Any]:
    return st.one_of(json_values(), st.just(json.loads(_nested(50))))


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, inner in value.items():
            out.extend(_paths(inner, (*prefix, key)))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            out.extend(_paths(inner, (*prefix, index)))
    return out


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, *rest = path
    copy: Any = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = _replace(value[head], tuple(rest), new)
    return copy


@st.composite
def _damaged_lines(draw: st.DrawFn) -> bytes:
    """An example line with one field (at any depth) holding an arbitrary JSON value."""
    line = draw(st.sampled_from(EXAMPLE_LINES))
    path = draw(st.sampled_from(_paths(line)[1:]))
    damaged = _replace(line, path, draw(_any_json()))
    return json.dumps(damaged).encode()


@HOSTILE
@given(_damaged_lines())
def test_wrong_type_in_any_field_gives_only_decode_errors(line: bytes) -> None:
    """A valid line with any field replaced by any JSON value decodes, or raises DecodeError."""
    _codec_survives(line)


def _legacy_lines() -> st.SearchStrategy[dict[str, Any]]:
    """Version-0 lines (no ``v``, no ``type``) with any JSON in every field the migration reads."""
    anything = _any_json()
    call = st.one_of(anything, st.fixed_dictionaries({}, optional={
        "id": anything, "type": anything, "name": anything, "arguments": anything,
        "function": st.one_of(anything, st.fixed_dictionaries({}, optional={"name": anything, "arguments": anything})),
    }))
    return st.fixed_dictionaries(
        {"role": st.sampled_from(["system", "developer", "user", "assistant", "tool"])},
        optional={"content": anything, "tool_calls": st.one_of(anything, st.lists(call, max_size=3)),
                  "tool_call_id": anything, "name": anything, "timestamp": anything, "created_at": anything},
    )


@HOSTILE
@given(st.lists(_legacy_lines(), min_size=1, max_size=4))
def test_legacy_lines_with_wrong_types_give_only_decode_errors(lines: list[dict[str, Any]]) -> None:
    """Legacy lines holding any JSON in any field migrate, or are kept with a problem, or raise DecodeError."""
    _codec_survives(b"\n".join(json.dumps(line).encode() for line in lines))


@HOSTILE
@given(_any_json())
def test_any_json_value_as_a_line_gives_only_decode_errors(value: Any) -> None:
    """Any JSON value on a line of its own decodes tolerantly, or raises DecodeError in strict mode."""
    _codec_survives(json.dumps(value).encode())


@HOSTILE
@given(st.binary(max_size=300))
def test_arbitrary_bytes_give_only_decode_errors(data: bytes) -> None:
    """Random bytes (non-UTF-8 included) never raise anything but DecodeError."""
    _codec_survives(data)


@HOSTILE
@given(st.sampled_from(EXAMPLE_LINES), st.integers(min_value=0, max_value=10_000), st.binary(max_size=4))
def test_truncated_lines_give_only_decode_errors(line: dict[str, Any], cut: int, junk: bytes) -> None:
    """A line cut anywhere, with junk bytes after the cut, never raises anything but DecodeError."""
    raw = json.dumps(line).encode()
    assume(cut < len(raw))
    _codec_survives(raw[:cut] + junk)
    _codec_survives(raw[:cut] + junk + b"\n" + raw)


@pytest.mark.parametrize("kind", ["[", "{"])
@pytest.mark.parametrize("where", ["line", "metadata", "part"])
def test_nesting_deeper_than_the_interpreter_is_refused_without_recursion(kind: str, where: str) -> None:
    """A line nested deeper than the recursion limit is a too_deep problem, kept as text; strict raises."""
    deep = _nested(DEEP, kind)
    if where == "line":
        raw = deep
    elif where == "metadata":
        raw = '{"type":"message","role":"user","metadata":{"x":' + deep + "}}"
    else:
        raw = '{"type":"message","role":"user","parts":[{"type":"text","text":"a","x":' + deep + "}]}"
    result = read(io.BytesIO(raw.encode() + b"\n"))
    assert [p.kind for p in result.problems] == ["too_deep"]
    assert "nested deeper than 200 levels" in result.problems[0].message
    event = result.events[0]
    assert isinstance(event, UnknownEvent)
    assert event.raw == raw
    with pytest.raises(DecodeError, match="nested deeper"):
        decode(raw)


def test_nesting_just_above_the_parser_limit_is_kept_not_raised() -> None:
    """A line between the depth limit and the interpreter's limit, once the limit is raised, is read or kept."""
    deep = _nested(400)
    raw = '{"type":"message","role":"user","metadata":{"x":' + deep + "}}"
    events = loads(raw, max_depth=1_000)
    assert len(events) == 1
    refused = read(io.BytesIO(raw.encode()))
    assert refused.problems[0].kind == "too_deep"


def test_depth_limit_can_be_lowered_and_then_applies_to_every_line() -> None:
    """With max_depth=3 a valid line nested 5 deep is refused, even though it would validate."""
    line = '{"type":"message","role":"user","metadata":{"a":{"b":{"c":{}}}}}'
    assert type(loads(line)[0]).__name__ == "UserMessage"
    result = read(io.BytesIO(line.encode()), max_depth=3)
    assert result.problems[0].kind == "too_deep"
    assert "raise max_depth" in result.problems[0].message


def test_line_over_the_size_limit_is_refused_without_being_held() -> None:
    """A line longer than max_line_bytes is a too_long problem; the lines after it are read normally."""
    good = dumps(example_history()[:2])
    long_line = b'{"type":"message","role":"user","parts":[{"type":"text","text":"' + b"x" * 5000 + b'"}]}\n'
    result = read(io.BytesIO(long_line + good), max_line_bytes=1000)
    assert result.problems[0].kind == "too_long"
    assert result.problems[0].line == 1
    assert "5,0" in result.problems[0].message
    assert "max_line_bytes" in result.problems[0].message
    assert result.events[1:] == example_history()[:2]
    with pytest.raises(DecodeError, match="longer than the limit"):
        loads(long_line, strict=True, max_line_bytes=1000)
    assert len(loads(long_line, max_line_bytes=10_000)[0].parts) == 1  # type: ignore[union-attr]


def test_iter_lines_skips_a_long_line_in_bounded_reads() -> None:
    """No single read of a too-long line asks for more than the limit plus one, or one skip chunk."""
    sizes: list[int] = []

    class Recording(io.BytesIO):
        def readline(self, size: int | None = -1, /) -> bytes:
            sizes.append(size if size is not None else -1)
            return super().readline(size)

    data = b"a" * 3_000_000 + b"\nshort\n"
    items = list(iter_lines(Recording(data), 100))
    assert [type(i).__name__ for i in items] == ["TooLong", "bytes"]
    assert items[1] == b"short\n"
    assert max(sizes) <= 1 << 20
    assert -1 not in sizes


def test_exact_limit_line_is_accepted() -> None:
    """A line of exactly max_line_bytes (plus its newline) is read; one byte more is refused."""
    assert list(iter_lines(io.BytesIO(b"abc\n"), 3)) == [b"abc\n"]
    assert type(next(iter_lines(io.BytesIO(b"abcd\n"), 3))).__name__ == "TooLong"
    assert read_body(io.BytesIO(b"abc"), 3) == b"abc"
    assert type(read_body(io.BytesIO(b"abcd"), 3)).__name__ == "TooLong"


def test_depth_scan_ignores_brackets_inside_strings() -> None:
    """Brackets in strings (escaped quotes included) do not count as nesting."""
    assert not exceeds_depth(json.dumps({"a": "[" * 500 + '\\"' + "{" * 500}), 3)
    assert exceeds_depth(_nested(5), 3)
    assert not exceeds_depth(_nested(3), 4)


def test_rewrite_refuses_a_line_it_could_not_read(tmp_path: Path) -> None:
    """rewrite raises DecodeError on a too-long line and leaves the destination untouched."""
    src = tmp_path / "h.jsonl"
    src.write_bytes(b'{"type":"message","role":"user","parts":[]' + b" " * 200 + b"}\n")
    with pytest.raises(DecodeError, match="nothing was written"):
        rewrite(src, src, max_line_bytes=100)
    assert src.read_bytes().startswith(b'{"type":"message"')


def test_iter_records_only_raises_partwire_errors_on_damaged_file(tmp_path: Path) -> None:
    """A file mixing every kind of damage reads tolerantly, and strict reading raises DecodeError."""
    lines = [
        b"\xff\xfe not utf8",
        _nested(DEEP).encode(),
        b"42",
        b"null",
        b'"text"',
        b'{"type":"message","role":"user","parts":"not a list"}',
        b'{"type":"message","role":"assistant","usage":"lots"}',
        b'{"v":0,"role":"assistant","tool_calls":[{"function":7}]}',
        b'{"role":"tool","content":[1,2],"tool_call_id":{}}',
        b'{"type":"message","role":"user","parts":[{"type":"text","text":"' + b"a" * 100,
    ]
    path = tmp_path / "h.jsonl"
    path.write_bytes(b"\n".join(lines))
    records = list(iter_records(path))
    assert len(records) == len(lines)
    assert all(r.problems for r in records)
    with pytest.raises(PartwireError):
        list(iter_records(path, strict=True))
