"""The laws of DESIGN §11 over every registered adapter, on generated histories and scenarios,
and the stream laws on every recorded stream of the corpus.

Comparisons are of full JSON dumps (``provider_data`` included), never ``==`` on models.

- any history projects, and the request validates against the SDK's own request types;
- switch: ``check_switch(h, target)`` equals ``target.to_wire(h).losses``;
- no silent drop: every part is in the request or named by a loss;
- prefix stability: appending events never changes the earlier wire messages;
- stream identity: every snapshot of a real stream, and the message it completes, are one message
  (one id, one ``created_at``), whatever form the stream arrives in.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from partwire.adapters import get_adapter
from partwire.errors import SwitchRefusedError
from partwire.history import HistoryEvent
from partwire.streaming import Accumulator, MessageCompleteEvent
from partwire.switch import check_switch
from tests.harness.corpus import CORPUS
from tests.harness.providers import get_kit
from tests.harness.validity import request_errors
from tests.laws.test_corpus_laws import (
    ADAPTERS,
    PAIRS,
    _key,
    _silent_drops,
    _uncached,
    _wire_list,
)
from tests.scenarios import build_scenarios
from tests.strategies import histories

LAWS = settings(max_examples=int(os.environ.get("PARTWIRE_LAW_EXAMPLES", "60")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _model(name: str) -> str:
    return f"{get_adapter(name).CAPABILITIES.issuer}:law"


@pytest.mark.parametrize("name", ADAPTERS)
@LAWS
@given(history=histories())
def test_any_history_projects_to_a_valid_request_and_loses_only_what_it_says(
        name: str, history: list[HistoryEvent]) -> None:
    """Any history from elsewhere gives a request the SDK's own types accept (when there is
    anything to send), and every part arrives or is named by a loss. Its echo state is another
    issuer's, as in a switch: raw blocks a generator made up are never echoed."""
    projection = get_adapter(name).to_wire(history, model=_model(name),
                                           accept_issuers={"elsewhere"})
    if _wire_list(projection.request):
        assert request_errors(name, json.loads(json.dumps(projection.request))) == []
    assert _silent_drops(tuple(history), projection.request, projection.losses) == []


@pytest.mark.parametrize("name", ADAPTERS)
@LAWS
@given(history=histories())
def test_check_switch_is_the_targets_to_wire_on_any_history(name: str,
                                                            history: list[HistoryEvent]) -> None:
    """The switch prediction and the projection report the same losses, in the same order."""
    try:
        predicted = check_switch(history, name, model=_model(name))
    except SwitchRefusedError as refused:
        predicted = refused.losses
    actual = get_adapter(name).to_wire(history, model=_model(name)).losses
    assert [_key(x) for x in predicted] == [_key(x) for x in actual]


@pytest.mark.parametrize("name", ADAPTERS)
@LAWS
@given(history=histories(), more=histories(max_turns=3))
def test_appending_never_changes_the_earlier_wire_messages(
        name: str, history: list[HistoryEvent], more: list[HistoryEvent]) -> None:
    """The request for ``h + more`` starts with the request for ``h`` but its last message."""
    adapter = get_adapter(name)
    short = _uncached(_wire_list(adapter.to_wire(history, model=_model(name)).request))
    long = _uncached(_wire_list(adapter.to_wire(history + more, model=_model(name)).request))
    kept = max(len(short) - 1, 0)
    assert long[:kept] == short[:kept]


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_every_scenario_switches_exactly_as_it_projects(source: str, target: str) -> None:
    """The canonical scenarios, with one provider's echo state, moved to every other adapter."""
    origin = get_kit(source).origin
    adapter = get_adapter(target)
    for scenario in build_scenarios(origin):
        kwargs: dict[str, Any] = {"model": _model(target), "tools": scenario.tools}
        try:
            predicted = check_switch(scenario.history, target, **kwargs)
        except SwitchRefusedError as refused:
            predicted = refused.losses
        projection = adapter.to_wire(scenario.history, **kwargs)
        assert [_key(x) for x in predicted] == [_key(x) for x in projection.losses], scenario.name
        assert _silent_drops(tuple(scenario.history), projection.request,
                             projection.losses) == [], scenario.name


# -- streams --------------------------------------------------------------------------------


def _streams(name: str) -> list[tuple[str, str]]:
    folder = CORPUS / name.replace("_", "-")
    found = []
    for path in sorted(folder.glob("*.json")):
        record = json.loads(path.read_text())
        if isinstance(record.get("sse"), str) and record["sse"]:
            found.append((path.name, record["sse"]))
    assert found, f"no recorded streams at {folder}"
    return found


@pytest.mark.parametrize("name", ADAPTERS)
def test_every_real_stream_has_one_identity(name: str) -> None:
    """Fed whole or in 7-byte pieces, every recorded stream shows one id and created_at from its
    first event to the completed message, to any accumulator that folds it."""
    adapter = get_adapter(name)
    split = []
    for file, sse in _streams(name):
        raw = sse.encode()
        for chunks in ([raw], [raw[i:i + 7] for i in range(0, len(raw), 7)]):
            ui = Accumulator()
            seen = set()
            final = None
            for event in adapter.stream(chunks):
                ui.feed(event)
                seen.add((ui.message.id, ui.message.created_at))
                if isinstance(event, MessageCompleteEvent):
                    final = event.message
            if final is None or seen != {(final.id, final.created_at)}:
                split.append(file)
                break
    assert split == []
