"""The cross-provider wire law of DESIGN §11 over every registered adapter, on hypothesis-made
histories: a history from elsewhere projects to a request the SDK's own types accept, and every
part it held comes back on import or is named by a loss.

Each adapter's kit brings what its wire shapes need (:class:`tests.harness.laws.WireLaws`). The
laws of one adapter alone (echo, import, stream parity, strict) run through partwire's pytest
plugin, in ``test_adapter_laws.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from pydantic import BaseModel

from partwire import ToolMessage
from partwire.adapters import get_adapter
from partwire.history import HistoryEvent
from tests.harness.depth import examples
from tests.harness.laws import WireLaws, dumps, tools_called
from tests.harness.providers import get_kit
from tests.harness.validity import request_errors
from tests.laws.test_corpus_laws import ADAPTERS, _wire_list
from tests.strategies import histories

LAWS = settings(max_examples=examples(60, "PARTWIRE_LAW_EXAMPLES"), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _laws(name: str) -> WireLaws:
    return get_kit(name).laws()


CASES = [(name, variant) for name in ADAPTERS for variant in _laws(name).variants]
_IDS = [f"{name}-{variant}" if variant else name for name, variant in CASES]


def _to_wire(name: str, variant: str, history: Any, **kwargs: Any) -> Any:
    """``to_wire`` under the variant's options."""
    laws = _laws(name)
    kwargs.setdefault("model", laws.model)
    kwargs.setdefault("tools", tools_called(history))
    return get_adapter(name).to_wire(history, **{**laws.options(variant), **kwargs})


# -- cross-provider ------------------------------------------------------------------------------


def _foreign(history: list[HistoryEvent], issuers: frozenset[str]) -> list[HistoryEvent]:
    """The history with everything ``issuers`` issued re-issued by another provider."""
    def clean(value: Any) -> Any:
        if isinstance(value, list | tuple):
            return type(value)(clean(v) for v in value)
        if isinstance(value, dict):
            return {("elsewhere" if k in issuers else k): clean(v) for k, v in value.items()}
        if not isinstance(value, BaseModel):
            return value
        changes = {field: clean(getattr(value, field)) for field in type(value).model_fields}
        if changes.get("issuer") in issuers:
            changes["issuer"] = "elsewhere"
        return value.model_copy(update=changes)
    return [clean(e) for e in history]


def _views(laws: WireLaws, history: list[HistoryEvent] | tuple[HistoryEvent, ...],
           start: int = 0) -> list[tuple[str, str]]:
    """(path, view) of every part and tool output from ``history[start]``, as a model is told them."""
    out: list[tuple[str, str]] = []
    for i, event in enumerate(history):
        if i < start:
            continue
        if isinstance(event, ToolMessage):
            out.append((f"history[{i}]", dumps(["tool_output", laws.tool_view(event)])))
        for j, part in enumerate(getattr(event, "parts", ())):
            view = laws.view(part, event)
            if view is not None:
                out.append((f"history[{i}].parts[{j}]", json.dumps(
                    view, sort_keys=True, ensure_ascii=False, default=lambda v: v.model_dump(mode="json"))))
    return out


@pytest.mark.parametrize(("name", "variant"), CASES, ids=_IDS)
@LAWS
@given(history=histories(max_turns=4))
def test_every_part_from_elsewhere_comes_back_or_a_loss_names_it(
        name: str, variant: str, history: list[HistoryEvent]) -> None:
    """A history from elsewhere projects to a request the SDK's types accept (the variant's
    documented extension fields aside); every part it held comes back on import or is a loss."""
    laws = _laws(name)
    history = _foreign(history, laws.foreign_issuers)
    projection = _to_wire(name, variant, history)
    if _wire_list(projection.request):
        own = laws.validator(variant)
        body = projection.request if own is not None else laws.strip(projection.request, variant)
        assert request_errors(own or name, body) == []
    back = get_adapter(name).from_wire_request(projection.request, **laws.options(variant)).history
    arrived = [view for _, view in _views(laws, back)]
    lost = {loss.path for loss in projection.losses}

    def named(path: str) -> bool:
        return any(path == p or path.startswith(p + ".") or p.startswith(path + ".") for p in lost)

    # What no loss names is matched first: a dropped item must not take the arrival of an equal
    # one that was sent (an orphan tool result and a later sent result, both with empty output).
    views = sorted(_views(laws, history, laws.first_sent(history, variant)), key=lambda pv: named(pv[0]))
    for path, view in views:
        if view in arrived:
            arrived.remove(view)
            continue
        assert named(path), f"{path} ({view}) did not arrive and no loss says so; losses: {sorted(lost)}"
