"""``partwire.arrow``: every history goes to Arrow and back with the same JSONL bytes, and the
typed columns hold what people query."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings

from partwire import (
    AssistantMessage,
    DocumentPart,
    ErrorEvent,
    ImagePart,
    ProviderFileSource,
    ServerToolCallPart,
    ToolCallPart,
    ToolMessage,
    UrlSource,
    Usage,
    UserMessage,
)
from partwire import arrow as pw_arrow
from partwire.adapters import get_adapter
from partwire.codec import decode, dumps
from partwire.errors import DecodeError
from partwire.history import HistoryEvent
from tests.datasets.corpus_histories import corpus_histories
from tests.harness.depth import examples
from tests.strategies import histories

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _round_trip(history: list[HistoryEvent]) -> list[HistoryEvent]:
    return pw_arrow.to_history(pw_arrow.from_history(history, session_id="s"))


def _whole_lines(table: pa.Table) -> int:
    """Rows kept as a whole JSONL line in ``extra`` rather than in the typed columns."""
    return sum(1 for e in table.column("extra").to_pylist() if e and e.startswith('{"$line"'))


@settings(max_examples=examples(150), deadline=None)
@given(histories())
def test_generated_histories_round_trip_with_equal_dumps(history: list[HistoryEvent]) -> None:
    """Every generated history comes back from Arrow with byte-identical JSONL, in typed columns."""
    table = pw_arrow.from_history(history, session_id="s")
    assert table.schema.equals(pw_arrow.SCHEMA, check_metadata=True)
    assert _whole_lines(table) == 0
    assert dumps(pw_arrow.to_history(table)) == dumps(history)


def test_corpus_histories_round_trip_with_equal_dumps() -> None:
    """Every history made from a recorded request (and its response) comes back from Arrow with
    byte-identical JSONL, and none needs the whole-line fallback."""
    different = []
    for name, history in corpus_histories():
        table = pw_arrow.from_history(history, session_id=name)
        if dumps(pw_arrow.to_history(table)) != dumps(history) or _whole_lines(table):
            different.append(name)
    assert not different, f"{len(different)} corpus histories changed, e.g. {different[:5]}"


# Events that send a whole batch off the column-at-a-time writer: an unknown field (the row
# path), a lone surrogate (Arrow refuses it: every row from its JSON line).
_ODD_EVENTS = {
    "unknown field": UserMessage("odd", created_at=T0, id="odd", flavour="extra"),
    "lone surrogate": decode(b'{"v":1,"type":"message","role":"user","id":"odd","created_at":'
                             b'"2026-01-01T00:00:00Z","parts":[{"type":"text","text":"\\ud800"}]}'),
}


def _writers_agree(history: list[HistoryEvent]) -> bool:
    table = pw_arrow.from_history(history, session_id="s")
    return all(pw_arrow.from_history([*history, odd], session_id="s").slice(0, len(history)).equals(table)
               for odd in _ODD_EVENTS.values())


@settings(max_examples=examples(60), deadline=None)
@given(histories())
def test_generated_histories_get_the_same_rows_from_every_writer_path(history: list[HistoryEvent]) -> None:
    """A history's rows are the same whether its batch is made a column at a time, event by
    event, or from the events' JSON lines (a batch holding an event the faster ways cannot
    take goes the slower way whole)."""
    assert _writers_agree(history)


def test_corpus_histories_get_the_same_rows_from_every_writer_path() -> None:
    """Every corpus history's rows are the same from each way of writing a batch."""
    different = [name for name, history in corpus_histories() if not _writers_agree(history)]
    assert not different, f"{len(different)} corpus histories differ, e.g. {different[:5]}"


def _read_by_validation(table: pa.Table) -> list[HistoryEvent]:
    # A column of another type than the one written (seq as int32): the reader validates every
    # row instead of making its event from the columns.
    schema = table.schema.set(table.schema.get_field_index("seq"), pa.field("seq", pa.int32(), nullable=False))
    return pw_arrow.to_history(table.cast(schema))


@settings(max_examples=examples(60), deadline=None)
@given(histories())
def test_generated_histories_read_the_same_with_or_without_validation(history: list[HistoryEvent]) -> None:
    """Events made straight from the columns equal, dump for dump, the events validation reads."""
    table = pw_arrow.from_history(history, session_id="s")
    fast = pw_arrow.to_history(table)
    assert dumps(fast) == dumps(_read_by_validation(table)) == dumps(history)
    assert fast == history


def test_corpus_histories_read_the_same_with_or_without_validation() -> None:
    """Every corpus history reads back the same from the columns as through validation."""
    different = []
    for name, history in corpus_histories():
        table = pw_arrow.from_history(history, session_id=name)
        if dumps(pw_arrow.to_history(table)) != dumps(_read_by_validation(table)):
            different.append(name)
    assert not different, f"{len(different)} corpus histories differ, e.g. {different[:5]}"


def test_rows_the_columns_cannot_vouch_for_are_validated() -> None:
    """A row whose values break its event's rules (a status no tool message has, a negative
    token count, a tool message without its call id) is refused naming its row and field,
    not made into an event."""
    history: list[HistoryEvent] = [
        ToolMessage(call_id="c1", tool_name="ls", output_text="ok", id="t1", created_at=T0),
        AssistantMessage("hi", id="a1", created_at=T0, usage=Usage(input_tokens=3)),
    ]
    table = pw_arrow.from_history(history)
    bad_status = table.set_column(table.schema.get_field_index("status"), "status",
                                  pa.array(["finished", None], pa.string()))
    with pytest.raises(DecodeError) as caught:
        pw_arrow.to_history(bad_status)
    assert (caught.value.line, caught.value.path) == (1, "message.tool.status")
    usage = table.column("usage").combine_chunks()
    negative = pa.StructArray.from_arrays(
        [pa.array([None, -3], pa.int64()) if f.name == "input_tokens" else usage.field(f.name)
         for f in usage.type], fields=list(usage.type), mask=pa.array([True, False]))
    with pytest.raises(DecodeError) as caught:
        pw_arrow.to_history(table.set_column(table.schema.get_field_index("usage"), "usage", negative))
    assert caught.value.line == 2
    assert "input_tokens" in str(caught.value.path)
    no_call = table.set_column(table.schema.get_field_index("call_id"), "call_id", pa.array([None, None], pa.string()))
    with pytest.raises(DecodeError) as caught:
        pw_arrow.to_history(no_call)
    assert (caught.value.line, caught.value.path) == (1, "message.tool.call_id")


def test_mixed_string_and_list_content_share_one_schema() -> None:
    """Chat messages whose ``content`` is a string in some rows and a list of blocks in others
    (the shape that breaks ``pyarrow`` type inference) become rows of one schema and come back."""
    request = {"model": "gpt-5", "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "plain string"},
        {"role": "user", "content": [{"type": "text", "text": "a list"},
                                     {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{\"d\":1}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "a.txt"}]},
        {"role": "assistant", "content": "done"},
    ]}
    with pytest.raises((pa.ArrowInvalid, pa.ArrowTypeError)):
        pa.Table.from_pylist(request["messages"])  # what the schema is designed around
    history = list(get_adapter("openai_chat").from_wire_request(request).history)
    table = pw_arrow.from_history(history)
    assert table.schema.equals(pw_arrow.SCHEMA)
    assert table.column("text").to_pylist() == ["Be brief.", "plain string", "a list", "", "a.txt", "done"]
    parts = table.column("parts").to_pylist()
    assert [p["type"] for p in parts[2]] == ["text", "image"]
    assert parts[2][1]["reference"] == "https://x.test/a.png"
    assert dumps(pw_arrow.to_history(table)) == dumps(history)


def _sample() -> list[HistoryEvent]:
    call = ToolCallPart(id="tu_1", name="read", arguments_json='{"path": "a"}', provider_ids={"openai": "call_9"})
    return [
        UserMessage(["look", ImagePart(source=UrlSource(url="https://x.test/i.png"), media_type="image/png"),
                     DocumentPart(source=ProviderFileSource(file_id="file-1", issuer="openai"),
                                  media_type="application/pdf")], created_at=T0),
        AssistantMessage(["reading", call, ServerToolCallPart(id="srv_1", name="web_search",
                                                              input={"q": "x"}, issuer="anthropic")],
                         model="anthropic:claude-sonnet-4-6", provider="anthropic", api="anthropic",
                         stop_reason="tool_use", response_id="msg_1", created_at=T0,
                         usage=Usage(input_tokens=120, output_tokens=30, cache_read_tokens=100,
                                     cost=Decimal("0.0012"), pricing_version="p1", latency_ms=800)),
        ToolMessage(call_id="tu_1", tool_name="read", status="error", output_text="no such file",
                    started_at=T0, finished_at=T0 + timedelta(seconds=2), created_at=T0),
        ErrorEvent(message="overloaded", provider="anthropic", code="529", retryable=True, created_at=T0),
    ]


def test_typed_columns_hold_what_people_query() -> None:
    """Tool name, call id, arguments, status, media type and reference, usage, cost, model,
    provider and times are in their own typed columns."""
    rows = pw_arrow.from_history(_sample(), session_id="s1").to_pylist()
    user, assistant, tool, error = rows
    assert [r["seq"] for r in rows] == [0, 1, 2, 3]
    assert {r["session_id"] for r in rows} == {"s1"}
    assert [(p["type"], p["media_type"], p["source_type"], p["reference"]) for p in user["parts"][1:]] == [
        ("image", "image/png", "url", "https://x.test/i.png"),
        ("document", "application/pdf", "provider_file", "file-1")]
    call = assistant["parts"][1]
    assert (call["call_id"], call["tool_name"], call["arguments"]) == ("tu_1", "read", '{"path": "a"}')
    assert json.loads(call["extra"]) == {"provider_ids": {"openai": "call_9"}}
    assert json.loads(assistant["parts"][2]["arguments"]) == {"q": "x"}
    assert (assistant["model"], assistant["provider"], assistant["api"], assistant["status"],
            assistant["stop_reason"], assistant["text"]) == (
        "anthropic:claude-sonnet-4-6", "anthropic", "anthropic", "complete", "tool_use", "reading")
    usage = assistant["usage"]
    assert (usage["input_tokens"], usage["output_tokens"], usage["cache_read_tokens"], usage["cost"],
            usage["pricing_version"], usage["latency_ms"]) == (120, 30, 100, Decimal("0.0012"), "p1", 800)
    assert (tool["call_id"], tool["tool_name"], tool["status"], tool["text"]) == ("tu_1", "read", "error", "no such file")
    assert tool["finished_at"] - tool["started_at"] == timedelta(seconds=2)
    assert user["created_at"] == T0
    assert (error["type"], error["text"], error["provider"]) == ("error", "overloaded", "anthropic")
    assert json.loads(error["extra"]) == {"code": "529", "retryable": True}
    assert user["extra"] is None  # nothing but defaults left over


def test_values_the_columns_cannot_hold_exactly_still_round_trip() -> None:
    """A time in another zone, a cost finer than the decimal column, counts beyond 64 bits and
    a lone surrogate all come back byte for byte."""
    plus2 = timezone(timedelta(hours=2))
    events: list[HistoryEvent] = [
        UserMessage("zoned", created_at=datetime(2026, 1, 1, 9, tzinfo=plus2)),
        AssistantMessage("fine", created_at=T0, usage=Usage(cost=Decimal("1E-30"))),
        AssistantMessage("big", created_at=T0, usage=Usage(input_tokens=2**70)),
        decode(b'{"v":1,"type":"message","role":"user","id":"01J","created_at":"2026-01-01T00:00:00Z",'
               b'"parts":[{"type":"text","text":"\\ud800 lone"}]}'),
    ]
    table = pw_arrow.from_history(events)
    assert table.column("created_at").to_pylist()[0] == datetime(2026, 1, 1, 7, tzinfo=UTC)
    assert table.column("usage").to_pylist()[1]["cost"] is None
    assert _whole_lines(table) == 2
    assert dumps(pw_arrow.to_history(table)) == dumps(events)


def test_sessions_come_back_grouped_in_order() -> None:
    """``to_histories`` gives each session's events under its id, in the order written."""
    a, b = _sample(), [UserMessage("other", created_at=T0)]
    batches = list(pw_arrow.from_histories([("a", a), ("b", b)], batch_rows=3))
    assert [batch.num_rows for batch in batches] == [3, 2]
    back = list(pw_arrow.to_histories(batches))
    assert [sid for sid, _ in back] == ["a", "b"]
    assert [dumps(events) for _, events in back] == [dumps(a), dumps(b)]


def test_parquet_streams_sessions_across_row_groups(tmp_path: Path) -> None:
    """A Parquet file written in small row groups reads back session by session, equal dumps."""
    sessions = [(f"s{i}", _sample()) for i in range(5)]
    path = tmp_path / "h.parquet"
    seen: list[int] = []
    assert pw_arrow.write_parquet(sessions, path, row_group_rows=3, progress=seen.append) == 20
    assert sum(seen) == 20
    import pyarrow.parquet as pq

    assert pq.ParquetFile(path).metadata.num_row_groups == 7
    back = list(pw_arrow.iter_parquet(path, batch_rows=3))
    assert [(sid, dumps(events)) for sid, events in back] == [(sid, dumps(h)) for sid, h in sessions]


def test_tables_of_another_shape_are_refused_by_name() -> None:
    """A table missing a column, of another schema version, or with a broken ``extra`` raises a
    ``DecodeError`` naming what is wrong and where."""
    table = pw_arrow.from_history(_sample())
    with pytest.raises(DecodeError, match="no column usage"):
        pw_arrow.to_history(table.drop_columns(["usage"]))
    other = table.replace_schema_metadata({"partwire.arrow.schema": "99"})
    with pytest.raises(DecodeError, match="schema version 99"):
        pw_arrow.to_history(other)
    extra = table.column("extra").to_pylist()
    extra[3] = "{not json"
    broken = table.set_column(table.schema.get_field_index("extra"), "extra", pa.array(extra, pa.string()))
    with pytest.raises(DecodeError, match=r"^:?4: not JSON.* at extra"):
        pw_arrow.to_history(broken)
    status = table.column("status").to_pylist()
    status[2] = "exploded"
    bad = table.set_column(table.schema.get_field_index("status"), "status", pa.array(status, pa.string()))
    with pytest.raises(DecodeError, match=r"3: not a history event.* at message.tool.status"):
        pw_arrow.to_history(bad)


def test_importing_partwire_loads_no_dataset_engine() -> None:
    """``import partwire`` (with its codec, store, command line and conversions) loads neither
    pyarrow nor any engine: only ``partwire.arrow`` and its siblings do."""
    import subprocess
    import sys

    code = ("import sys, partwire, partwire.codec, partwire.store, partwire.cli, partwire.convert, "
            "partwire.pricing\n"
            "print(sorted(n for n in sys.modules if n.split('.')[0] in "
            "('pyarrow', 'duckdb', 'ray', 'datasets', 'pandas')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_corpus_histories_round_trip_through_one_parquet_file(tmp_path: Path) -> None:
    """Every corpus history, written with the others to one Parquet file in small row groups,
    reads back under its session id with byte-identical JSONL."""
    sessions = [(name, history) for name, history in corpus_histories() if history]
    path = tmp_path / "corpus.parquet"
    pw_arrow.write_parquet(sessions, path, row_group_rows=500)
    back = list(pw_arrow.iter_parquet(path, batch_rows=500))
    assert [sid for sid, _ in back] == [sid for sid, _ in sessions]
    assert [dumps(events) for _, events in back] == [dumps(history) for _, history in sessions]


@settings(max_examples=examples(40), deadline=None)
@given(histories())
def test_generated_histories_round_trip_through_parquet(tmp_path_factory: pytest.TempPathFactory,
                                                        history: list[HistoryEvent]) -> None:
    """Every generated history comes back from a Parquet file with byte-identical JSONL."""
    path = tmp_path_factory.mktemp("pq") / "h.parquet"
    pw_arrow.write_parquet([("s", history)], path)
    back = [event for _, events in pw_arrow.iter_parquet(path) for event in events]
    assert dumps(back) == dumps(history)
