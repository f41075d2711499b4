"""Properties over any history (the shared strategy): the store gives back the codec's bytes and
derives the same tool-call states as ``tool_call_states``, on both backends."""

from __future__ import annotations

import uuid

from hypothesis import HealthCheck, given, settings

from partwire.codec import dumps
from partwire.history import HistoryEvent
from partwire.store import Store
from partwire.store._derive import clean
from partwire.toolstate import tool_call_states
from tests.harness.depth import examples
from tests.strategies import histories


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=histories())
def test_any_history_round_trips_and_derives_tool_states(store: Store, history: list[HistoryEvent]) -> None:
    """Appended in two parts, any history exports as ``dumps(history)`` and its tool calls stand as
    ``tool_call_states`` says."""
    ids = [event.id for event in history]
    if len(set(map(clean, ids))) != len(ids):
        return  # the same id twice is a conflict, tested on its own
    session = f"s-{uuid.uuid4().hex}"
    half = len(history) // 2
    store.append(session, history[:half])
    store.append(session, history[half:])
    if not history:
        return
    assert store.export_bytes(session) == dumps(history)
    expected = {clean(cid): state.state for cid, state in tool_call_states(history).items()}
    assert {c.call_id: c.status for c in store.tool_calls(session)} == expected
    summary = store.session(session)
    assert summary.event_count == len(history)
    assert summary.last_event_id == clean(history[-1].id)
