"""Forks share their parent's prefix: nothing copied, every read sees the lineage, both grow."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from partwire import HistoryEvent
from partwire.codec import dumps
from partwire.store import ConflictError, Store
from tests.store._events import assistant, tool, turn_history, user


def _view(store: Store, session_id: str) -> tuple[Any, ...]:
    """Everything a reader learns about one session, without the session's own id."""
    summary = dataclasses.replace(store.session(session_id), session_id="", forked_from=None, forked_at=None)
    calls = [dataclasses.replace(c, session_id="") for c in store.tool_calls(session_id)]
    pending = [c.call_id for c in store.pending_tool_calls(session_id)]
    usage = [dataclasses.replace(u, session_id="") for u in store.usage(session_id)]
    hits = [dataclasses.replace(h, session_id="") for h in store.search("offset", session_id=session_id)]
    return (store.export_bytes(session_id), store.load(session_id), summary, calls, pending, usage,
            hits, store.latest_compaction(session_id))


def _stored_rows(store: Store, session_id: str) -> int:
    with store._backend.read() as cur:
        cur.execute("SELECT COUNT(*) FROM events WHERE session_id = ?", (session_id,))
        row = cur.fetchone()
    assert row is not None
    return int(row[0])


def test_a_fork_reads_as_a_copy_of_the_prefix_at_every_point(store: Store) -> None:
    """Forked at any event, a session answers every query as a session holding that prefix would,
    stores no row of it, and keeps doing so while the parent grows past the fork point."""
    events = turn_history()
    store.append("s", events)
    for k, event in enumerate(events, 1):
        fork = store.fork("s", event.id, f"f{k}")
        store.append(f"copy{k}", events[:k])
        assert _stored_rows(store, fork) == 0
        assert _view(store, fork) == _view(store, f"copy{k}"), f"forked at {event.id}"
        assert (store.session(fork).forked_from, store.session(fork).forked_at) == ("s", event.id)
    store.append("s", [user("S8", "the parent goes on", t=8), tool("S9", "tu_C", "run_shell", t=9)])
    for k in range(1, len(events) + 1):
        assert _view(store, f"f{k}") == _view(store, f"copy{k}")


def test_a_fork_of_a_fork_walks_the_whole_lineage(store: Store) -> None:
    """A fork of a fork, taken inside the grandparent's events or the parent's own, reads as the
    copy of its prefix; each generation keeps growing on its own."""
    events = turn_history()
    store.append("s", events)
    store.fork("s", "E02", "child")
    grown: list[HistoryEvent] = [tool("C3", "tu_A", "grep", output="an offset in the child", t=3),
             assistant("C4", "Done here.", (("tu_D", "grep"),), t=4)]
    store.append("child", grown, expect_last="E02")
    store.fork("child", "E01", "grand-early")
    store.fork("child", "C3", "grand-late")
    store.append("copy-early", events[:1])
    store.append("copy-late", [*events[:2], grown[0]])
    assert _view(store, "grand-early") == _view(store, "copy-early")
    assert _view(store, "grand-late") == _view(store, "copy-late")
    assert [c.call_id for c in store.pending_tool_calls("grand-late")] == ["tu_B"]
    store.append("grand-late", [tool("G5", "tu_B", "run_shell", t=5)])
    store.append("copy-late", [tool("G5", "tu_B", "run_shell", t=5)])
    assert _view(store, "grand-late") == _view(store, "copy-late")
    assert [c.call_id for c in store.pending_tool_calls("child")] == ["tu_B", "tu_D"]
    assert store.export_bytes("s") == dumps(events)


def test_appending_the_prefix_again_to_a_fork_is_idempotent(store: Store) -> None:
    """An event of the shared prefix appended again to the fork is skipped; other bytes under its
    id are a conflict; a fork refuses an expect_last other than its last event."""
    events = turn_history()
    store.append("s", events)
    store.fork("s", "E03", "f")
    again = store.append("f", events[:3])
    assert (again.added, again.skipped) == (0, 3)
    with pytest.raises(ConflictError, match="E02"):
        store.append("f", [assistant("E02", "changed")])
    store.append("f", [user("F4", "mine", t=4)], expect_last="E03")
    assert [e.id for e in store.load("f", until="E02")] == ["E01", "E02"]
    assert [e.id for e in store.load("f")] == ["E01", "E02", "E03", "F4"]


def test_rebuild_keeps_every_fork_answering_the_same(store: Store) -> None:
    """Rebuilding all derived rows, or one fork's, changes no answer of any session."""
    events = turn_history()
    store.append("s", events)
    store.fork("s", "E02", "f")
    store.append("f", [tool("F3", "tu_B", "run_shell", t=3)])
    store.fork("f", "F3", "g")
    before = [_view(store, sid) for sid in ("s", "f", "g")]
    store.rebuild()
    assert [_view(store, sid) for sid in ("s", "f", "g")] == before
    store.rebuild("g")
    store.rebuild("f")
    assert [_view(store, sid) for sid in ("s", "f", "g")] == before
