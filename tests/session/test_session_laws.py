"""Law 7 for the session projector: at every turn, ``Session.request()`` equals ``to_wire`` of
the same history (as JSON, losses included), for every adapter, on generated histories and on the
histories of real requests from the corpus; and turn n+1 keeps turn n's wire messages."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from partwire.adapters import get_adapter
from partwire.adapters._kernel import dry_run
from partwire.history import CompactionEvent, HistoryEvent
from partwire.projection import Loss, Projection
from partwire.session import Session, Target
from partwire.session._projector import _REFCOUNT
from tests.harness.depth import examples
from tests.harness.laws import json_default
from tests.laws.test_corpus_laws import ADAPTERS, _imported, _kwargs, _wire_list
from tests.strategies import histories

LAWS = settings(max_examples=examples(25, "PARTWIRE_SESSION_EXAMPLES"), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=json_default)


def _losses(losses: Sequence[Loss]) -> list[tuple[Any, ...]]:
    return sorted((x.path, x.part_type, x.action, x.reason, x.adapter, x.message_id or "")
                  for x in losses)


def _into_history(session: Session, losses: Sequence[Loss]) -> tuple[Loss, ...]:
    """``to_wire``'s losses on the context, with each ``history[k]`` the index in the session's
    history of the k-th context message (the latest compaction's for its summary)."""
    history = session.history
    where = {id(e): k for k, e in enumerate(history)}
    compaction = max((k for k, e in enumerate(history) if isinstance(e, CompactionEvent)), default=-1)
    out = []
    for loss in losses:
        head, sep, rest = loss.path.partition("]")
        if head.startswith("history[") and sep:
            k = int(head[len("history["):])
            at = where.get(id(session.context[k]), compaction)
            loss = dataclasses.replace(loss, path=f"history[{at}]{rest}")
        out.append(loss)
    return tuple(out)


def _outcome(call: Any) -> tuple[str, Projection | None]:
    try:
        return "", call()
    except Exception as exc:  # the same refusal from both sides is the law too
        return type(exc).__name__, None


def _check_every_turn(name: str, history: list[HistoryEvent], target: Target,
                      kwargs: dict[str, Any]) -> tuple[Session, int]:
    """Feed ``history`` one event at a time, comparing the session's request with ``to_wire``.

    Every other request is held through the next turn, which must leave it as it was; the others
    are let go at once, so the next turn may extend their list in place. Returns the session and
    how many turns did (the request's list the one of the turn before, the history not projected
    whole)."""
    adapter = get_adapter(name)
    session = Session(target, cache="off")
    previous: list[str] = []  # the previous request's wire messages, as JSON
    held: tuple[dict[str, Any], str] | None = None
    last_list, reused = 0, 0
    for n, event in enumerate(history, 1):
        session.append(event)
        full = session.full_projections
        error, got = _outcome(session.request)
        with dry_run():
            want_error, want = _outcome(lambda: adapter.to_wire(list(session.context), **kwargs))
        assert error == want_error, f"turn {n}"
        if held is not None:
            assert _dump(held[0]) == held[1], f"turn {n} changed the request of turn {n - 1}"
            held = None
        if got is None or want is None:
            continue
        assert _dump(got.request) == _dump(want.request), f"turn {n}"
        assert _losses(got.losses) == _losses(_into_history(session, want.losses)), f"turn {n}"
        wire = _wire_list(got.request)
        # Prefix stability: every wire message of the previous turn but its last is kept as is
        # (a compaction rewrites the context: the prefix starts again from it).
        dumped = [_dump(m) for m in wire]
        if not isinstance(event, CompactionEvent):
            assert dumped[:max(len(previous) - 1, 0)] == previous[:-1], f"turn {n}"
        previous = dumped
        reused += id(wire) == last_list and session.full_projections == full
        last_list = id(wire)
        if n % 2:
            held = (got.request, _dump(got.request))
        del got, want, wire
    return session, reused


def _model(name: str) -> str:
    return f"{get_adapter(name).CAPABILITIES.issuer}:law"


@pytest.mark.parametrize("name", ADAPTERS)
@LAWS
@given(history=histories(max_turns=8))
def test_session_request_is_to_wire_at_every_turn_of_any_history(
        name: str, history: list[HistoryEvent]) -> None:
    """On any generated history, the incremental request equals the full projection at every
    turn, and keeps the earlier wire messages."""
    target = Target(adapter=name, model=_model(name))
    _check_every_turn(name, history, target, {"model": target.model})


@pytest.mark.parametrize("name", ADAPTERS)
def test_session_request_is_to_wire_at_every_turn_of_real_requests(name: str) -> None:
    """On every corpus request's history (tools and parameters included), replayed one event
    at a time, the session's request equals ``to_wire`` at every turn."""
    checked = 0
    for _file, _raw, imported in _imported(name)[:15]:
        kwargs = _kwargs(imported)
        target = Target(adapter=name, model=kwargs["model"], tools=tuple(kwargs["tools"]),
                        tool_choice=kwargs.get("tool_choice"), max_tokens=kwargs.get("max_tokens"),
                        params=kwargs["params"], settings=kwargs["settings"],
                        options=kwargs.get("options"))
        assert set(kwargs) <= {"model", "tools", "tool_choice", "max_tokens", "params", "settings",
                               "options"}
        _check_every_turn(name, list(imported.history), target, kwargs)
        checked += 1
    assert checked


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_long_agent_session_reuses_earlier_turns(name: str) -> None:
    """In a tool loop the session projects the whole history only at its start: later turns
    reuse the wire messages already built (in the list of the request before, when it was let
    go), and still equal ``to_wire``."""
    from tests.session.agent_loop import agent_events

    target = Target(adapter=name, model=_model(name))
    session, reused = _check_every_turn(name, agent_events(30), target, {"model": target.model})
    assert session.full_projections <= 3
    if _REFCOUNT is not None:  # CPython: a list let go is extended in place (half the turns)
        assert reused >= 10


def _check_marks_every_turn(name: str, history: list[HistoryEvent], model: str) -> int:
    """Feed ``history`` to two sessions with automatic cache marks, one incremental (marks put on
    its kept list in place, then taken off) and one projecting the whole history each turn:
    their requests are equal at every turn, and a request held through the next turn is left as
    it was. Returns how many turns had a body."""
    fast = Session(Target(adapter=name, model=model), cache="auto")
    whole = Session(Target(adapter=name, model=model), cache="auto", incremental=False)
    held: tuple[dict[str, Any], str] | None = None
    bodies = 0
    for n, event in enumerate(history, 1):
        fast.append(event)
        whole.append(event)
        error, got = _outcome(fast.request)
        want_error, want = _outcome(whole.request)
        assert error == want_error, f"turn {n}"
        if held is not None:
            assert _dump(held[0]) == held[1], f"turn {n} changed the request of turn {n - 1}"
            held = None
        if got is None or want is None:
            continue
        bodies += 1
        assert _dump(got.request) == _dump(want.request), f"turn {n}"
        if n % 2:
            held = (got.request, _dump(got.request))
        del got, want
    return bodies


@pytest.mark.parametrize("name", ["anthropic", "bedrock"])
@LAWS
@given(history=histories(max_turns=8))
def test_cache_marks_in_place_equal_marks_on_a_whole_projection(
        name: str, history: list[HistoryEvent]) -> None:
    """The session marks the kept wire list in place and puts the messages back before reusing
    it: at every turn the body equals the one marked on a whole projection, and a request still
    held is never changed."""
    _check_marks_every_turn(name, history, _model(name) if name == "anthropic"
                            else "anthropic.claude-sonnet-4-20250514-v1:0")


@pytest.mark.parametrize("name", ["anthropic", "bedrock"])
def test_cache_marks_in_place_on_a_long_agent_session(name: str) -> None:
    """The same on a 30-turn tool loop, where the kept list is reused in place."""
    from tests.session.agent_loop import agent_events

    model = _model(name) if name == "anthropic" else "anthropic.claude-sonnet-4-20250514-v1:0"
    assert _check_marks_every_turn(name, agent_events(30), model) > 20
