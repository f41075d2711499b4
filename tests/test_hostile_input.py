"""Hostile input reaches callers as partwire's own errors, or as reported problems: never anything else.

The codec is fed arbitrary JSON values, wrong types in every field, truncated and non-UTF-8
bytes, and nesting deeper than the interpreter's recursion limit; the ``partwire`` command is fed
the same and must answer with one ``partwire: error:`` line (or its problem lines) and exit 2 (or
1), never a traceback.
"""

from __future__ import annotations

import contextlib
import io
import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from partwire._limits import exceeds_depth, iter_lines, read_body
from partwire.cli import FORMATS, main
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


# -- the command ------------------------------------------------------------------------------

WIRE_FORMATS = ["anthropic", "openai-chat"]
HOSTILE_BODIES = {
    "number": b"42",
    "null": b"null",
    "string": b'"a string"',
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "truncated": b'{"model": "x", "messages": [{"role": "user", "content": "hi"',
    "not_utf8": b'{"model": "\xff\xfe"}',
    "usage_string": json.dumps({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
        "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn", "usage": "lots",
    }).encode(),
}


def _one_error_line(err: str, name: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"partwire: error: {name}"), err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(
    ("source", "body"),
    [
        pytest.param(source, body)
        for source in WIRE_FORMATS
        for body in sorted(HOSTILE_BODIES)
    ],
)
def test_convert_hostile_body_is_one_error_line_and_exit_2(
    source: str, body: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`convert --from WIRE --to canonical` on a hostile body prints one `partwire: error: FILE: ...` line, exit 2."""
    path = tmp_path / "body.json"
    path.write_bytes(HOSTILE_BODIES[body])
    assert main(["convert", "--from", source, "--to", "canonical", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    line = _one_error_line(err, str(path))
    assert "internal error" not in line


@pytest.mark.parametrize("source", [f for f in FORMATS if f != "canonical"])
@pytest.mark.parametrize(("body", "says"), [("number", "a JSON number"), ("null", "a JSON null"),
                                            ("string", "a JSON string"), ("deep", "--max-depth"),
                                            ("not_utf8", "not UTF-8"), ("truncated", "not a JSON body")])
def test_every_wire_format_refuses_a_body_that_is_no_object_before_its_adapter(
    source: str, body: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """For every wire format, a body that is not a JSON object or array is refused by the command itself."""
    path = tmp_path / "body.json"
    path.write_bytes(HOSTILE_BODIES[body])
    assert main(["convert", "--from", source, "--to", "canonical", str(path)]) == 2
    assert says in _one_error_line(capsys.readouterr().err, str(path))


def test_convert_deep_body_names_the_depth_limit_and_it_can_be_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A body nested 300 deep is refused naming --max-depth; with --max-depth 400 it is read."""
    deep: Any = "x"
    for _ in range(300):
        deep = {"a": deep}
    body = {"model": "claude-sonnet-4-6", "max_tokens": 10, "metadata": {"user_id": "u"},
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "x_deep": deep}]}]}
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(body))
    assert main(["convert", "--from", "anthropic", "--to", "canonical", str(path)]) == 2
    assert "--max-depth" in _one_error_line(capsys.readouterr().err, str(path))
    status = main(["convert", "--max-depth", "400", "--from", "anthropic", "--to", "canonical", str(path)])
    assert status != 2 or "nested deeper" not in capsys.readouterr().err


def test_convert_large_body_names_the_size_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A body above --max-line-bytes is refused with its size and the option that raises the limit."""
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * 5000}]}))
    assert main(["convert", "--max-line-bytes", "1000", "--from", "anthropic", "--to", "canonical",
                 str(path)]) == 2
    line = _one_error_line(capsys.readouterr().err, str(path))
    assert "1,000 bytes" in line
    assert "--max-line-bytes" in line


@pytest.mark.parametrize("data", [b"\xff\xfe\x00garbage\n", b"[" * 50_000 + b"\n", b"42\n"])
def test_convert_from_damaged_canonical_names_file_and_line(
    data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A damaged canonical history gives `partwire: error: FILE:LINE: ...` and exit 2."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()[:1]) + data)
    assert main(["convert", "--from", "canonical", "--to", "anthropic", "--model", "anthropic:claude-sonnet-4-6",
                 str(path)]) == 2
    _one_error_line(capsys.readouterr().err, f"{path}:2")


def test_bug_in_partwire_is_one_line_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A non-partwire exception reaching main() is named in one line, exit 2."""
    import partwire.convert

    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("oops")

    monkeypatch.setattr(partwire.convert, "convert", broken)
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()))
    assert main(["convert", "--from", "canonical", "--to", "anthropic", str(path)]) == 2
    line = _one_error_line(capsys.readouterr().err, "internal error")
    assert "KeyError" in line


@pytest.mark.parametrize("data", [bytes(range(256)) * 8, b"[" * 100_000 + b"]" * 100_000 + b"\n"])
def test_show_exits_1_on_unreadable_lines(data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`show` on random bytes or deeply nested JSON renders what it can and exits 1, not 0."""
    path = tmp_path / "junk.jsonl"
    path.write_bytes(dumps(example_history()[:1]) + data)
    assert main(["show", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("* task: ")  # the first line, rendered before the junk
    assert err
    assert "Traceback" not in err


def test_validate_and_show_report_a_too_long_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A line over --max-line-bytes is a problem at its line number for validate and show (exit 1)."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()))
    for command in ("validate", "show"):
        assert main([command, "--max-line-bytes", "200", str(path)]) == 1
        out, err = capsys.readouterr()
        assert f"{path}:1: line of " in out + err
        assert "--max-line-bytes" in out + err


def _piped(command: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = f"set -o pipefail; {shlex.quote(sys.executable)} -m partwire {command} | head -c 10 >/dev/null"
    return subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False)


def _big_history(tmp_path: Path, *, damaged: bool) -> Path:
    path = tmp_path / "big.jsonl"
    lines = dumps(example_history() * 40)
    path.write_bytes(lines + (b"{torn" if damaged else b""))
    return path


@pytest.mark.parametrize(
    ("command", "damaged", "status"),
    [
        ("validate big.jsonl", True, 1),
        ("show big.jsonl", True, 1),
        ("show big.jsonl", False, 0),
        ("rewrite big.jsonl -", False, 0),
        ("example", False, 0),
        ("schema", False, 0),
    ],
)
def test_exit_status_survives_a_closed_pipe(command: str, damaged: bool, status: int, tmp_path: Path) -> None:
    """`partwire CMD | head` keeps CMD's own exit status and prints no traceback when head closes early."""
    _big_history(tmp_path, damaged=damaged)
    if command.startswith("validate"):
        (tmp_path / "big.jsonl").write_bytes(b"{torn\n" * 20_000)
    result = _piped(command, tmp_path)
    assert result.returncode == status, result.stderr[-500:]
    assert "Traceback" not in result.stderr
    assert "Exception ignored" not in result.stderr


def test_program_prints_no_traceback_on_deep_body(tmp_path: Path) -> None:
    """As a program, converting 100,000 nested brackets prints one error line and exits 2."""
    (tmp_path / "deep.json").write_bytes(HOSTILE_BODIES["deep"])
    result = subprocess.run(
        [sys.executable, "-m", "partwire", "convert", "--from", "anthropic", "--to", "canonical", "deep.json"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )
    assert result.returncode == 2
    _one_error_line(result.stderr, "deep.json")


def test_rewrite_command_refuses_a_too_long_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`partwire rewrite --max-line-bytes` on a longer line is one FILE:LINE error, exit 2, OUT untouched."""
    src = tmp_path / "h.jsonl"
    src.write_bytes(dumps(example_history()))
    before = src.read_bytes()
    assert main(["rewrite", "--max-line-bytes", "300", str(src), str(src)]) == 2
    line = _one_error_line(capsys.readouterr().err, f"{src}:2")  # line 1 is short enough
    assert "--max-line-bytes" in line
    assert src.read_bytes() == before
