"""The laws of DESIGN §11 over every registered adapter, on generated histories and scenarios.

Comparisons are of full JSON dumps (``provider_data`` included), never ``==`` on models.

- switch: ``check_switch(h, target)`` equals ``target.to_wire(h).losses``, and the canonical
  scenarios drop nothing in silence on the way;
- prefix stability: appending events never changes the earlier wire messages.

Request validity, no silent drop and stream identity on one adapter run through partwire's
pytest plugin (``test_adapter_laws.py``).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from partwire.adapters import get_adapter
from partwire.errors import SwitchRefusedError
from partwire.history import HistoryEvent
from partwire.switch import check_switch
from partwire.testing import silent_drops
from tests.harness.depth import examples
from tests.harness.providers import get_kit
from tests.laws.test_corpus_laws import (
    ADAPTERS,
    PAIRS,
    _key,
    _uncached,
    _wire_list,
)
from tests.scenarios import build_scenarios
from tests.strategies import histories

LAWS = settings(max_examples=examples(60, "PARTWIRE_LAW_EXAMPLES"), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _model(name: str) -> str:
    return f"{get_adapter(name).CAPABILITIES.issuer}:law"


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
        assert silent_drops(tuple(scenario.history), projection.request,
                             projection.losses) == [], scenario.name
