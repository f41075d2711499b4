"""Reading and writing JSONL histories: bad input in strict and tolerant mode, and the file functions."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError

from partwire import (
    AssistantMessage,
    DecodeError,
    ErrorEvent,
    HistoryEvent,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolMessage,
    UnknownEvent,
    UnknownPart,
    UserMessage,
)
from partwire.codec import (
    Problem,
    decode,
    dump,
    dumps,
    encode,
    iter_records,
    load,
    loads,
    read,
    rewrite,
)
from partwire.ids import deterministic_sources, use_sources


@pytest.fixture
def history() -> list[HistoryEvent]:
    """A small history with deterministic ids."""
    ids, clock = deterministic_sources()
    with use_sources(ids=ids, clock=clock):
        call = ToolCallPart.create("ls", {"path": "."})
        return [
            SystemMessage("be brief"),
            UserMessage("list files"),
            AssistantMessage(["looking", call], stop_reason="tool_use"),
            ToolMessage(call_id=call.id, tool_name="ls", output_text="a.txt"),
            ErrorEvent(message="overloaded", retryable=True),
        ]


def _lines(history: list[HistoryEvent]) -> list[bytes]:
    return [encode(e) for e in history]


def _file(tmp_path: Path, lines: list[bytes], *, final_newline: bool = True) -> Path:
    path = tmp_path / "history.jsonl"
    path.write_bytes(b"\n".join(lines) + (b"\n" if final_newline else b""))
    return path


def _user_line(**changes: object) -> bytes:
    obj: dict[str, object] = json.loads(encode(UserMessage("hi", id="01J00000000000000000000000")))
    obj.update(changes)
    return json.dumps(obj).encode()


# -- encode / decode ---------------------------------------------------------------------------


def test_encode_is_one_compact_line_with_every_field() -> None:
    """encode gives one line without newline, with v, nulls and unknown null fields kept."""
    line = encode(UserMessage("hi", x_later=None))
    assert b"\n" not in line
    obj = json.loads(line)
    assert obj["v"] == 1
    assert obj["parent_id"] is None
    assert "x_later" in obj
    assert b", " not in line


def test_decode_round_trips_a_line_with_or_without_newline(history: list[HistoryEvent]) -> None:
    """decode accepts a line as bytes or str, with or without its newline."""
    for event in history:
        line = encode(event)
        assert decode(line) == event
        assert decode(line + b"\n") == event
        assert decode(line.decode()) == event


def test_decode_strict_names_line_file_and_path() -> None:
    """A strict decode error names the file, the line and the field path, and chains pydantic's error."""
    line = _user_line(parts=[{"type": "text", "text": "ok"}, {"type": "text", "text": 5}])
    with pytest.raises(DecodeError) as info:
        decode(line, line_no=7, file="h.jsonl")
    assert info.value.file == "h.jsonl"
    assert info.value.line == 7
    assert info.value.path == "parts[1]"
    assert str(info.value).startswith("h.jsonl:7: ")
    assert "text" in str(info.value)
    assert isinstance(info.value.__cause__, ValidationError)


def test_decode_tolerant_keeps_what_it_cannot_read() -> None:
    """A tolerant decode returns an unknown event for an unknown type instead of raising."""
    event = decode(b'{"v":1,"type":"teleport","where":"mars"}', strict=False)
    assert isinstance(event, UnknownEvent)
    assert event.original_type == "teleport"
    assert event.raw == {"v": 1, "type": "teleport", "where": "mars"}


def test_decode_blank_line_raises() -> None:
    """A blank line holds no event, so decoding one raises in both modes."""
    with pytest.raises(DecodeError):
        decode(b"  \n", strict=False)


def test_problem_str_is_file_line_message() -> None:
    """A problem prints as FILE:LINE: message, or LINE: message without a file."""
    assert str(Problem("h.jsonl", 3, "bad", "parts[0]", "unknown_part")) == "h.jsonl:3: bad"
    assert str(Problem(None, 3, "bad")) == "3: bad"


# -- bad input, tolerant -----------------------------------------------------------------------


def test_torn_final_line_is_reported_and_kept(tmp_path: Path, history: list[HistoryEvent]) -> None:
    """A final line cut mid-write is reported as torn and kept as text in an unknown event."""
    lines = _lines(history)
    torn = lines[-1][:25]
    path = _file(tmp_path, [*lines[:-1], torn], final_newline=False)
    result = read(path)
    assert result.events[:-1] == history[:-1]
    last = result.events[-1]
    assert isinstance(last, UnknownEvent)
    assert last.raw == torn.decode()
    assert [(p.kind, p.line, p.file) for p in result.problems] == [("torn_line", 5, str(path))]
    record = list(iter_records(path))[-1]
    assert not record.understood
    assert record.raw == torn


def test_final_line_without_newline_that_decodes_is_fine(tmp_path: Path, history: list[HistoryEvent]) -> None:
    """A complete last line that only lacks its newline reads without any problem."""
    path = _file(tmp_path, _lines(history), final_newline=False)
    result = read(path)
    assert result.events == history
    assert result.problems == []


def test_torn_line_cut_inside_a_utf8_character_is_torn(tmp_path: Path) -> None:
    """A final line cut in the middle of a multi-byte character is torn, not a UTF-8 error."""
    line = encode(UserMessage("héllo wörld ✓"))
    cut = line[: line.index("✓".encode()) + 1]
    path = _file(tmp_path, [encode(UserMessage("a")), cut], final_newline=False)
    result = read(path)
    assert [p.kind for p in result.problems] == ["torn_line"]
    assert isinstance(result.events[1], UnknownEvent)


def test_invalid_json_in_the_middle_is_kept(tmp_path: Path, history: list[HistoryEvent]) -> None:
    """Invalid JSON between good lines is reported with its line and kept; the rest loads."""
    lines = _lines(history)
    path = _file(tmp_path, [*lines[:2], b"{not json", *lines[2:]])
    result = read(path)
    assert [e for e in result.events if not isinstance(e, UnknownEvent)] == history
    assert isinstance(result.events[2], UnknownEvent)
    assert result.events[2].raw == "{not json"
    assert [(p.kind, p.line) for p in result.problems] == [("invalid_json", 3)]


def test_json_that_is_not_an_object_is_invalid(tmp_path: Path) -> None:
    """A line holding a JSON array is reported as invalid and kept."""
    result = read(_file(tmp_path, [b"[1, 2]"]))
    assert [p.kind for p in result.problems] == ["invalid_json"]
    assert isinstance(result.events[0], UnknownEvent)


def test_unknown_part_type_keeps_the_message(tmp_path: Path) -> None:
    """A part of an unknown type becomes an UnknownPart; the message and its other parts stay."""
    raw_part = {"type": "hologram", "frames": [1, 2]}
    line = _user_line(parts=[{"type": "text", "text": "look"}, raw_part])
    result = read(_file(tmp_path, [line]))
    message = result.events[0]
    assert isinstance(message, UserMessage)
    assert message.parts[0] == TextPart(text="look")
    assert message.parts[1] == UnknownPart(original_type="hologram", raw=raw_part)
    assert [(p.kind, p.path) for p in result.problems] == [("unknown_part", "parts[1]")]
    record = next(iter_records(_file(tmp_path, [line])))
    assert not record.understood


def test_wrong_field_type_in_a_part_replaces_only_that_part(tmp_path: Path) -> None:
    """A known part whose field has the wrong type becomes an UnknownPart, reported with its path."""
    bad = {"type": "image", "source": {"type": "url", "url": 42}}
    result = read(_file(tmp_path, [_user_line(parts=[bad])]))
    message = result.events[0]
    assert isinstance(message, UserMessage)
    assert message.parts == (UnknownPart(original_type="image", raw=bad),)
    assert [(p.kind, p.path) for p in result.problems] == [("invalid_field", "parts[0]")]
    assert "source.url" in result.problems[0].message


def test_wrong_field_type_outside_parts_keeps_the_line_as_unknown(tmp_path: Path) -> None:
    """A bad field outside the parts makes the whole line an unknown event, each bad field reported."""
    line = encode(AssistantMessage("x")).replace(b'"status":"complete"', b'"status":"sleepy"')
    line = line.replace(b'"stop_reason":null', b'"stop_reason":7')
    result = read(_file(tmp_path, [line]))
    event = result.events[0]
    assert isinstance(event, UnknownEvent)
    assert event.raw == json.loads(line)
    assert event.original_type == "message"
    assert {(p.kind, p.path) for p in result.problems} == {("invalid_field", "status"), ("invalid_field", "stop_reason")}


def test_unknown_event_type_is_kept(tmp_path: Path) -> None:
    """A line of an unknown event type is kept whole, with its own id and time."""
    obj = {"v": 1, "type": "snapshot", "id": "01J00000000000000000000001", "created_at": "2025-01-02T03:04:05Z",
           "files": ["a"]}
    result = read(_file(tmp_path, [json.dumps(obj).encode()]))
    event = result.events[0]
    assert isinstance(event, UnknownEvent)
    assert (event.original_type, event.raw, event.id) == ("snapshot", obj, obj["id"])
    assert event.created_at.year == 2025
    assert [(p.kind, p.path) for p in result.problems] == [("unknown_event", "type")]


def test_future_version_is_kept(tmp_path: Path) -> None:
    """A line from a newer schema version is kept whole as an unknown event, even of a known type."""
    line = _user_line(v=2, parts=[{"type": "text", "text": "from the future"}])
    result = read(_file(tmp_path, [line]))
    event = result.events[0]
    assert isinstance(event, UnknownEvent)
    assert event.raw == json.loads(line)
    assert event.original_type == "message"
    assert [(p.kind, p.path) for p in result.problems] == [("future_version", "v")]


def test_non_utf8_bytes_are_kept(tmp_path: Path, history: list[HistoryEvent]) -> None:
    """A line that is not UTF-8 is reported and kept (as text with replacement characters)."""
    path = _file(tmp_path, [_lines(history)[0], b'{"v":1,"type":"error","message":"\xff\xfe"}'])
    result = read(path)
    assert [(p.kind, p.line) for p in result.problems] == [("not_utf8", 2)]
    kept = result.events[1]
    assert isinstance(kept, UnknownEvent)
    assert isinstance(kept.raw, str)
    assert "\ufffd" in kept.raw


def test_empty_file_is_an_empty_history(tmp_path: Path) -> None:
    """An empty file reads as an empty history with no problem, in both modes."""
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    assert read(path).events == []
    assert read(path).problems == []
    assert load(path, strict=True) == []


def test_blank_lines_are_skipped_and_numbering_kept(tmp_path: Path, history: list[HistoryEvent]) -> None:
    """Blank lines hold no event: they are skipped, and later line numbers still count them."""
    lines = _lines(history)
    path = _file(tmp_path, [lines[0], b"", b"  \t\r", lines[1], b"{bad"])
    result = read(path)
    assert result.events[:2] == history[:2]
    assert [p.line for p in result.problems] == [5]
    assert load(_file(tmp_path, [lines[0], b"", lines[1]]), strict=True) == history[:2]


def test_ten_megabyte_line(tmp_path: Path) -> None:
    """A 10 MB line loads, streamed or not."""
    big = UserMessage("x" * (10 * 1024 * 1024))
    path = _file(tmp_path, [encode(UserMessage("a")), encode(big), encode(UserMessage("b"))])
    assert load(path, strict=True)[1] == big
    records = list(iter_records(path))
    assert records[1].event == big
    assert len(records[1].raw) > 10 * 1024 * 1024


def test_tolerant_read_reports_every_problem_and_keeps_every_line(tmp_path: Path, history: list[HistoryEvent]) -> None:
    """All kinds of damage in one file: every line is kept, every problem reported in file order."""
    lines = _lines(history)
    damaged = [
        lines[0],
        b"{oops",
        _user_line(parts=[{"type": "hologram"}]),
        b'{"v":1,"type":"teleport"}',
        _user_line(v=9),
        b"\xc3\x28",
        lines[1],
        lines[2][:30],
    ]
    result = read(_file(tmp_path, damaged, final_newline=False))
    assert len(result.events) == len(damaged)
    assert [(p.line, p.kind) for p in result.problems] == [
        (2, "invalid_json"), (3, "unknown_part"), (4, "unknown_event"), (5, "future_version"),
        (6, "not_utf8"), (8, "torn_line"),
    ]


# -- bad input, strict -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "path_inside", "cause"),
    [
        (b"{oops", None, json.JSONDecodeError),
        (b"\xff", None, UnicodeDecodeError),
        (_user_line(parts=[{"type": "hologram"}]), "parts[0]", None),
        (_user_line(parts=[{"type": "text", "text": 1}]), "parts[0]", ValidationError),
        (_user_line(metadata=[]), "metadata", ValidationError),
        (b'{"v":1,"type":"teleport"}', "type", None),
        (_user_line(v=2), "v", None),
    ],
    ids=["invalid_json", "not_utf8", "unknown_part", "part_field", "field", "unknown_event", "future_version"],
)
def test_strict_raises_naming_file_line_and_path(
    tmp_path: Path, history: list[HistoryEvent], line: bytes, path_inside: str | None,
    cause: type[BaseException] | None,
) -> None:
    """Strict reading raises on the first problem of any kind, naming file, line and path, chaining the cause."""
    path = _file(tmp_path, [_lines(history)[0], line, _lines(history)[1]])
    with pytest.raises(DecodeError) as info:
        load(path, strict=True)
    assert (info.value.file, info.value.line, info.value.path) == (str(path), 2, path_inside)
    assert str(info.value).startswith(f"{path}:2: ")
    if cause is not None:
        assert isinstance(info.value.__cause__, cause)


def test_strict_raises_on_torn_line(tmp_path: Path, history: list[HistoryEvent]) -> None:
    """Strict reading raises on a torn final line."""
    path = _file(tmp_path, [_lines(history)[0], _lines(history)[1][:10]], final_newline=False)
    with pytest.raises(DecodeError, match="torn"):
        load(path, strict=True)


def test_strict_iter_records_raises_only_when_it_reaches_the_bad_line(tmp_path: Path, history: list[HistoryEvent]) -> None:
    """Streaming in strict mode yields the good lines before the bad one, then raises."""
    path = _file(tmp_path, [_lines(history)[0], b"{oops"])
    records = iter_records(path, strict=True)
    assert next(records).event == history[0]
    with pytest.raises(DecodeError):
        next(records)


# -- files, streams, logging -------------------------------------------------------------------


def test_load_accepts_paths_and_binary_files(tmp_path: Path, history: list[HistoryEvent]) -> None:
    """load reads from a str path, a Path and an open binary file alike."""
    path = _file(tmp_path, _lines(history))
    assert load(path) == load(str(path)) == history
    with path.open("rb") as handle:
        assert load(handle) == history


def test_loads_accepts_bytes_and_str(history: list[HistoryEvent]) -> None:
    """loads takes bytes or str; a str is not split on unicode line separators."""
    data = dumps(history)
    assert loads(data) == loads(data.decode()) == history
    odd = [UserMessage("a\u2028b\u0085c\rd")]
    assert loads(dumps(odd).decode(), strict=True) == odd


def test_load_logs_each_problem_once(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """load logs every problem once at WARNING on the partwire.codec logger."""
    path = _file(tmp_path, [b"{oops", b'{"v":1,"type":"teleport"}'])
    with caplog.at_level(logging.WARNING, logger="partwire.codec"):
        events = load(path)
    assert len(events) == 2
    records = [r for r in caplog.records if r.name == "partwire.codec"]
    assert [r.levelno for r in records] == [logging.WARNING, logging.WARNING]
    assert records[0].getMessage().startswith(f"{path}:1: ")
    assert records[1].getMessage().startswith(f"{path}:2: ")


def test_read_does_not_log(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """read returns problems without logging them (the caller decides)."""
    with caplog.at_level(logging.DEBUG, logger="partwire.codec"):
        result = read(_file(tmp_path, [b"{oops"]))
    assert len(result.problems) == 1
    assert not [r for r in caplog.records if r.name == "partwire.codec"]


def test_iter_records_carries_raw_bytes_and_line_numbers(tmp_path: Path, history: list[HistoryEvent]) -> None:
    """Each record has its 1-based line number and its exact bytes without the newline."""
    lines = _lines(history)
    records = list(iter_records(_file(tmp_path, lines)))
    assert [r.line for r in records] == list(range(1, len(lines) + 1))
    assert [r.raw for r in records] == lines
    assert all(r.understood and not r.migrated and not r.problems for r in records)


def test_iter_records_streams_without_reading_ahead() -> None:
    """iter_records hands out each record before the next line is even read."""
    reads: list[int] = []

    class Counting(io.BytesIO):
        def readline(self, size: int | None = -1, /) -> bytes:
            line = super().readline(size)
            if line:
                reads.append(len(reads) + 1)
            return line

    source = Counting(dumps([UserMessage("a"), UserMessage("b"), UserMessage("c")]))
    records = iter_records(source)
    next(records)
    assert reads == [1]
    next(records)
    assert reads == [1, 2]


def test_dump_writes_atomically(tmp_path: Path, history: list[HistoryEvent]) -> None:
    """dump replaces the file whole; a failure midway leaves the old file and no temporary file."""
    path = tmp_path / "h.jsonl"
    dump(history, path)
    assert path.read_bytes() == dumps(history)

    class Exploding(list[HistoryEvent]):
        def __iter__(self) -> Iterator[HistoryEvent]:
            yield UserMessage("first")
            raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        dump(Exploding(), path)
    assert path.read_bytes() == dumps(history)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.jsonl"]


# -- rewrite -----------------------------------------------------------------------------------


def test_rewrite_keeps_every_line_it_did_not_understand_byte_identical(
    tmp_path: Path, history: list[HistoryEvent]
) -> None:
    """rewrite re-encodes understood lines and writes every other line back exactly as it was."""
    lines = _lines(history)
    foreign = [
        b"{oops",
        b'{"v":1, "type":"teleport",  "x": 1.50}',
        _user_line(parts=[{"type": "hologram", "a": 1.0}]),
        _user_line(v=2),
        b"\xff\xfe junk",
    ]
    torn = lines[1][:20]
    src = _file(tmp_path, [lines[0], *foreign, torn], final_newline=False)
    dst = tmp_path / "out.jsonl"
    problems = rewrite(src, dst)
    assert [p.line for p in problems] == [2, 3, 4, 5, 6, 7]
    out = dst.read_bytes().split(b"\n")
    assert out[0] == lines[0]
    assert out[1:6] == foreign
    assert out[6] == torn
    assert load(dst)[0] == history[0]


def test_rewrite_in_place(tmp_path: Path, history: list[HistoryEvent]) -> None:
    """rewrite may write over its own source."""
    path = _file(tmp_path, [*_lines(history), b"{oops"])
    rewrite(path, path)
    assert path.read_bytes() == dumps(history) + b"{oops\n"


def test_decode_without_line_number_reports_none() -> None:
    """A lone line decoded without a line number raises an error that claims no line."""
    with pytest.raises(DecodeError) as info:
        decode(b"{oops")
    assert info.value.line is None
    assert str(info.value).startswith("invalid JSON")


@pytest.mark.parametrize(("line", "message"), [
    (b'{"v":1,"type":"mess', "invalid JSON: Unterminated string starting at column 15"),
    (b'{"v":1,,}', "invalid JSON: Expecting property name enclosed in double quotes at column 8"),
    (b'{"v":1} x', "invalid JSON: Extra data at column 9"),
])
def test_invalid_json_names_the_column_in_one_phrase(line: bytes, message: str) -> None:
    """The JSON error reads as one sentence, whether or not json's own message ends in "at"."""
    with pytest.raises(DecodeError) as info:
        decode(line)
    assert str(info.value) == message
