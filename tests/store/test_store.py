"""The session store's behaviour, proved on SQLite and on a real PostgreSQL server alike."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from partwire import UserMessage
from partwire.cli._example import example_history
from partwire.codec import dumps, encode
from partwire.pricing import message_cost
from partwire.store import (
    SCHEMA_VERSION,
    ConflictError,
    ExpectLastError,
    NotFoundError,
    Store,
    StoreError,
    open_store,
)
from tests.store._events import assistant, compaction, tool, turn_history, user

# Lines the codec keeps without understanding them, and one it understands but did not write.
UNKNOWN = b'{"v":1,"type":"checkpoint","id":"01KUNKNOWN0000000000000000","created_at":"2026-01-01T00:00:00Z","git":"3f2a"}'
FUTURE = b'{"v":9,"type":"message","role":"user","id":"01KFUTURE00000000000000000","hologram":true}'
FOREIGN = b'{ "role": "user", "type": "message", "v": 1, "id": "01KFOREIGN0000000000000000", "created_at": "2026-01-01T00:00:01Z", "parts": [{"type": "text", "text": "spaced out"}] }'
LEGACY = b'{"role": "user", "content": "a legacy line"}'


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_import_then_export_is_byte_identical(store: Store, tmp_path: Path) -> None:
    """The example history imported from its JSONL exports as exactly the same bytes."""
    data = dumps(example_history())
    result = store.import_file(_write(tmp_path / "h.jsonl", data))
    assert result.session_id == "sess_tidydates_42"
    assert result.added == len(example_history())
    assert store.export_bytes(result.session_id) == data


def test_reimport_is_a_no_op(store: Store, tmp_path: Path) -> None:
    """Importing the same file twice stores every event once and reports the second run as skipped."""
    path = _write(tmp_path / "h.jsonl", dumps(example_history()))
    store.import_file(path)
    again = store.import_file(path)
    assert (again.added, again.skipped) == (0, len(example_history()))
    assert store.session(again.session_id).event_count == len(example_history())
    assert store.export_bytes(again.session_id) == path.read_bytes()


def test_grown_file_import_appends_only_the_new_tail(store: Store, tmp_path: Path) -> None:
    """A file that grew since its last import adds just its new lines."""
    events = turn_history()
    path = _write(tmp_path / "s1.jsonl", dumps(events[:3]))
    store.import_file(path)
    _write(path, dumps(events))
    result = store.import_file(path)
    assert (result.session_id, result.added, result.skipped) == ("s1", len(events) - 3, 3)
    assert store.export_bytes("s1") == dumps(events)


def test_lines_not_understood_are_exported_byte_for_byte(store: Store, tmp_path: Path) -> None:
    """Unknown events, future versions, foreign formatting and legacy lines come back unchanged."""
    data = dumps(turn_history()[:2]) + UNKNOWN + b"\n" + FUTURE + b"\n" + FOREIGN + b"\n" + LEGACY + b"\n"
    result = store.import_file(_write(tmp_path / "odd.jsonl", data))
    assert store.export_bytes("odd") == data
    assert any("checkpoint" in p for p in result.problems)
    assert any("newer" in p for p in result.problems)
    loaded = store.load("odd")
    assert [e.type for e in loaded] == ["message", "message", "unknown", "unknown", "message", "message"]
    assert isinstance(loaded[5], UserMessage)


def test_append_orders_events_and_tracks_the_last(store: Store) -> None:
    """Appends keep their order across calls and report the session's last event id."""
    events = turn_history()
    first = store.append("s", events[:2])
    second = store.append("s", events[2:], expect_last=first.last_event_id)
    assert (first.added, second.added, second.last_event_id) == (2, len(events) - 2, "E07")
    assert store.load("s") == events
    assert store.export_bytes("s") == b"".join(encode(e) + b"\n" for e in events)


def test_expect_last_refuses_a_stale_writer(store: Store) -> None:
    """An append expecting an older last event fails and writes nothing."""
    events = turn_history()
    store.append("s", events[:2], expect_last=None)
    store.append("s", events[2:3], expect_last="E02")
    with pytest.raises(ExpectLastError) as caught:
        store.append("s", events[3:4], expect_last="E02")
    assert (caught.value.expected, caught.value.actual) == ("E02", "E03")
    assert "expected last event 'E02'" in str(caught.value)
    assert store.session("s").event_count == 3


def test_expect_none_requires_an_empty_session(store: Store) -> None:
    """``expect_last=None`` creates a session only if nobody has written to it."""
    store.append("s", [user("U1", "hi")], expect_last=None)
    with pytest.raises(ExpectLastError):
        store.append("s", [user("U2", "hi again")], expect_last=None)


def test_retried_append_is_a_no_op(store: Store) -> None:
    """Appending events already stored with the same bytes adds nothing, whatever expect_last says."""
    events = turn_history()[:3]
    store.append("s", events)
    result = store.append("s", events, expect_last="stale")
    assert (result.added, result.skipped, result.last_event_id) == (0, 3, "E03")
    assert store.session("s").event_count == 3


def test_same_id_other_bytes_is_a_conflict(store: Store) -> None:
    """Re-using an event id with other content raises and overwrites nothing."""
    store.append("s", [user("U1", "original")])
    with pytest.raises(ConflictError) as caught:
        store.append("s", [user("U2", "fine"), user("U1", "changed")])
    assert caught.value.event_id == "U1"
    assert "other content" in str(caught.value)
    assert store.load("s") == [user("U1", "original")]


def test_conflict_inside_one_batch(store: Store) -> None:
    """Two events with one id and different bytes in one append are refused together."""
    with pytest.raises(ConflictError):
        store.append("s", [user("U1", "a"), user("U1", "b")])
    with pytest.raises(NotFoundError):
        store.session("s")


def test_empty_append_creates_no_session(store: Store) -> None:
    """Appending nothing leaves no empty session behind."""
    assert store.append("s", []).added == 0
    assert store.sessions() == []


def test_session_summary_totals(store: Store) -> None:
    """A session's summary counts events and messages and sums usage and exact cost."""
    store.append("s", turn_history())
    summary = store.session("s")
    assert (summary.event_count, summary.message_count) == (7, 5)
    assert (summary.input_tokens, summary.output_tokens) == (150, 15)
    assert summary.cost == Decimal("0.0125")
    assert summary.model == "openai:gpt-5"
    assert summary.last_event_id == "E07"
    assert summary.updated_at is not None
    assert summary.created_at is not None
    assert summary.updated_at > summary.created_at


def test_sessions_are_listed_newest_first(store: Store) -> None:
    """``sessions()`` puts the session with the latest event first."""
    store.append("old", [user("A", "x", t=1)])
    store.append("new", [user("B", "y", t=100)])
    store.append("mid", [user("C", "z", t=50)])
    assert [s.session_id for s in store.sessions()] == ["new", "mid", "old"]
    assert [s.session_id for s in store.sessions(limit=1)] == ["new"]


def test_pending_tool_calls(store: Store) -> None:
    """The unanswered call is pending until its tool message arrives."""
    store.append("s", turn_history())
    pending = store.pending_tool_calls()
    assert [(c.session_id, c.call_id, c.name) for c in pending] == [("s", "tu_C", "run_shell")]
    store.append("s", [tool("E08", "tu_C", "run_shell", t=8)])
    assert store.pending_tool_calls("s") == []


def test_tool_calls_by_status_and_name(store: Store) -> None:
    """Tool calls filter by status and name, with their results and timing."""
    store.append("s", turn_history())
    failed = store.tool_calls(status="error")
    assert [(c.call_id, c.result_id) for c in failed] == [("tu_B", "E04")]
    assert failed[0].finished_at is not None
    assert failed[0].started_at is not None
    assert [c.call_id for c in store.tool_calls("s", name="run_shell")] == ["tu_B", "tu_C"]
    assert [c.status for c in store.tool_calls("s")] == ["success", "error", "pending"]


def test_interrupted_call_is_aborted_not_pending(store: Store) -> None:
    """A call made by an interrupted assistant message never ran: aborted, not pending."""
    store.append("s", [user("U", "go"), assistant("A", calls=(("tu_X", "grep"),), aborted=True)])
    assert store.pending_tool_calls() == []
    assert [c.status for c in store.tool_calls("s")] == ["aborted"]


def test_latest_compaction(store: Store) -> None:
    """The most recent compaction event of a session is returned whole."""
    assert store.append("s", turn_history()[:3]).added == 3
    assert store.latest_compaction("s") is None
    store.append("s", turn_history()[3:])
    latest = store.latest_compaction("s")
    assert latest is not None
    assert latest.summary == "second summary"


def test_usage_by_session_and_model(store: Store) -> None:
    """Usage sums per session and model, with costs summed exactly, a message without a cost
    priced on write as ``partwire cost`` prices it, and an unpriced model's messages counted."""
    store.append("s", turn_history())
    unpriced = assistant("X", "hi", cost=None, tokens=(7, 1))
    store.append("t", [unpriced, assistant("Y", "hi", cost=None, model="acme:no-such-model", t=1)])
    rows = {(u.session_id, u.model): u for u in store.usage()}
    assert rows["s", "anthropic:claude-sonnet-4-6"].cost == Decimal("0.01")
    assert rows["s", "openai:gpt-5"].input_tokens == 50
    priced = message_cost(unpriced)
    assert priced.usd is not None
    assert (rows["t", "anthropic:claude-sonnet-4-6"].cost, rows["t", "anthropic:claude-sonnet-4-6"].uncosted) == (priced.usd, 0)
    assert (rows["t", "acme:no-such-model"].cost, rows["t", "acme:no-such-model"].uncosted) == (None, 1)
    assert (store.session("t").cost, store.session("t").uncosted) == (priced.usd, 1)
    assert {u.session_id for u in store.usage("t")} == {"t"}


def test_search_finds_words_across_part_kinds(store: Store) -> None:
    """Search matches every word, stems them, covers tool output, and can be scoped to a session."""
    store.append("s", turn_history())
    store.append("t", [user("T1", "An unrelated offset question", t=9)])
    hits = store.search("offsets")
    assert {(h.session_id, h.event_id) for h in hits} == {("s", "E02"), ("s", "E03"), ("t", "T1")}
    tool_hit = next(h for h in hits if h.event_id == "E03")
    assert (tool_hit.part_type, tool_hit.part_index) == ("tool_output", -1)
    assert "[offset]" in tool_hit.snippet
    assert [h.event_id for h in store.search("flaky timezone", session_id="s")] == ["E01"]
    assert store.search("offset unrelated", session_id="s") == []
    assert store.search("...") == []


def test_load_up_to_an_event(store: Store) -> None:
    """``load(until=...)`` and ``export(until=...)`` stop at the named event, inclusive."""
    events = turn_history()
    store.append("s", events)
    assert store.load("s", until="E03") == events[:3]
    assert store.export_bytes("s", until="E03") == dumps(events[:3])
    with pytest.raises(NotFoundError, match="no event 'nope'"):
        store.load("s", until="nope")


def test_fork_shares_the_prefix_and_both_grow(store: Store) -> None:
    """A fork holds the prefix; appending to either session leaves the other unchanged."""
    events = turn_history()
    store.append("s", events)
    fork = store.fork("s", "E03", "s2")
    assert fork == "s2"
    assert store.export_bytes("s2") == dumps(events[:3])
    store.append("s2", [user("F1", "a different direction")], expect_last="E03")
    store.append("s", [user("S8", "same direction")], expect_last="E07")
    assert [e.id for e in store.load("s2")] == ["E01", "E02", "E03", "F1"]
    assert [e.id for e in store.load("s")][-2:] == ["E07", "S8"]
    summary = store.session("s2")
    assert (summary.forked_from, summary.forked_at) == ("s", "E03")
    assert {c.call_id for c in store.pending_tool_calls("s2")} == {"tu_B"}


def test_fork_refuses_an_existing_target_and_unknown_event(store: Store) -> None:
    """Forking onto an existing session or at a missing event fails and changes nothing."""
    store.append("s", turn_history())
    store.append("other", [user("O", "mine")])
    with pytest.raises(ConflictError, match="exists"):
        store.fork("s", "E02", "other")
    with pytest.raises(NotFoundError):
        store.fork("s", "missing")
    assert store.export_bytes("other") == encode(user("O", "mine")) + b"\n"
    assert store.fork("s", "E02").startswith("fork_")


def test_rebuild_restores_derived_rows(store: Store) -> None:
    """Rebuilding from the verbatim lines gives the same queries' answers."""
    store.append("s", turn_history())
    before = (store.session("s"), store.tool_calls(), store.usage(), store.search("offset"))
    store.rebuild()
    store.rebuild("s")
    assert (store.session("s"), store.tool_calls(), store.usage(), store.search("offset")) == before
    assert store.export_bytes("s") == dumps(turn_history())


def test_missing_session_is_not_found(store: Store) -> None:
    """Reading a session that does not exist raises NotFoundError naming it."""
    with pytest.raises(NotFoundError, match="no session 'ghost'"):
        store.export_bytes("ghost")
    with pytest.raises(NotFoundError):
        store.session("ghost")


def test_torn_file_is_refused_before_anything_is_stored(store: Store, tmp_path: Path) -> None:
    """A file ending in a torn line imports nothing and leaves what was stored intact."""
    good = dumps(turn_history()[:2])
    path = _write(tmp_path / "s.jsonl", good)
    store.import_file(path)
    _write(path, good + dumps(turn_history()[2:4]) + b'{"v":1,"type":"mess')
    with pytest.raises(StoreError, match=r"s\.jsonl:5: torn final line"):
        store.import_file(path)
    assert store.export_bytes("s") == good


def test_bad_session_ids_are_refused(store: Store) -> None:
    """An empty session id or one with a NUL character is refused with a clear error."""
    with pytest.raises(StoreError, match="non-empty"):
        store.append("", [user("U", "x")])
    with pytest.raises(StoreError, match="NUL"):
        store.append("a\x00b", [user("U", "x")])


def test_reopening_keeps_everything(store_url: str) -> None:
    """A store closed and opened again holds the same sessions at the current schema version."""
    with open_store(store_url) as first:
        first.append("s", turn_history())
    with open_store(store_url) as second:
        assert second.export_bytes("s") == dumps(turn_history())
        assert second.schema_version == SCHEMA_VERSION


def test_compaction_helper_is_an_event(store: Store) -> None:
    """A compaction appended alone is stored as an event, not a message."""
    store.append("s", [compaction("C", "only")])
    summary = store.session("s")
    assert (summary.event_count, summary.message_count) == (1, 0)
