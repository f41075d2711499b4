"""The wire laws of DESIGN §11 over every registered adapter, on hypothesis-made wire data.

Each adapter's kit brings the strategies for its own wire shapes (:class:`tests.harness.laws.
WireLaws`); the laws are written once. Comparisons are of full JSON dumps, echo state included,
with only what each decoding makes fresh (message id and time, canonical call ids) neutral.

- echo: a message the API can answer with goes to its wire form and back unchanged, and that
  wire form comes back from the decoded message unchanged, with no loss;
- import: a request ``to_wire`` makes from any history imports and re-exports equal, with no
  loss; so does every request shape the kit generates;
- stream parity: the stream of a response, cut anywhere (and as SSE bytes in any pieces, where
  the adapter reads SSE), accumulates to what ``from_wire`` gives for the final response, and to
  what it gives for the SDK's own accumulation of the same stream;
- strict: ``strict=True`` refuses exactly the histories the lenient projection reports losses for;
- cross-provider: a history from elsewhere projects to a request the SDK's own types accept, and
  every part it held comes back on import or is named by a loss.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from partwire import LossError, ToolMessage
from partwire.adapters import get_adapter
from partwire.history import HistoryEvent
from partwire.streaming import accumulate
from tests.harness.depth import examples
from tests.harness.laws import WireLaws, dumps, neutral_dump, tools_called
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


def _to_wire(name: str, variant: str, history: Any, *, echo: bool = False, **kwargs: Any) -> Any:
    """``to_wire`` under the variant's options (and, for ``echo``, the kit's echo options)."""
    laws = _laws(name)
    kwargs.setdefault("model", laws.model)
    kwargs.setdefault("tools", tools_called(history))
    extra = laws.projection_options if echo else {}
    return get_adapter(name).to_wire(history, **{**laws.options(variant), **extra, **kwargs})


# -- echo ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "variant"), CASES, ids=_IDS)
@LAWS
@given(data=st.data())
def test_echo(name: str, variant: str, data: st.DataObject) -> None:
    """message -> wire -> message and wire -> message -> wire are both the identity, losslessly."""
    laws = _laws(name)
    message = data.draw(laws.messages(variant))
    body = laws.response_for(message, variant)
    decoded = get_adapter(name).from_wire(body, **laws.options(variant))
    assert neutral_dump(decoded) == neutral_dump(message)
    assert dumps(laws.response_for(decoded, variant)) == dumps(body)


# -- import --------------------------------------------------------------------------------------


def _reimported(name: str, variant: str, request: dict[str, Any]) -> Any:
    laws = _laws(name)
    imported = get_adapter(name).from_wire_request(request, **laws.options(variant))
    kwargs = imported.to_wire_kwargs()  # the options it was read under included
    kwargs["model"] = kwargs.get("model") or laws.model
    return get_adapter(name).to_wire(imported.history, **{**laws.projection_options, **kwargs})


@pytest.mark.parametrize(("name", "variant"), CASES, ids=_IDS)
@LAWS
@given(history=histories(max_turns=4))
def test_any_request_to_wire_makes_imports_and_re_exports_equal(
        name: str, variant: str, history: list[HistoryEvent]) -> None:
    """Whatever the history held, the request to_wire makes reads back to itself, with no loss."""
    first = _to_wire(name, variant, history, echo=True).request
    again = _reimported(name, variant, first)
    assert dumps(again.request) == dumps(first)
    assert again.losses == ()


_WIRE_MADE = [(name, variant) for name, variant in CASES if _laws(name).requests is not None]


@pytest.mark.parametrize(("name", "variant"), _WIRE_MADE, ids=[f"{n}-{v}" if v else n for n, v in _WIRE_MADE])
@LAWS
@given(data=st.data())
def test_every_request_shape_imports_and_re_exports_equal(name: str, variant: str, data: st.DataObject) -> None:
    """A request of any shape the API takes reads back and projects to itself, with no loss."""
    strategy = _laws(name).requests
    assert strategy is not None
    body = data.draw(strategy)
    again = _reimported(name, variant, body)
    assert dumps(again.request) == dumps(body)
    assert again.losses == ()


# -- streams -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "variant"), CASES, ids=_IDS)
@LAWS
@given(data=st.data(), piece=st.integers(1, 40))
def test_any_stream_accumulates_to_its_final_response(name: str, variant: str, data: st.DataObject,
                                                      piece: int) -> None:
    """A stream cut anywhere, as parsed events and as SSE bytes in any pieces, and the SDK's own
    accumulation of it, all give the message from_wire gives for the final response."""
    laws = _laws(name)
    adapter = get_adapter(name)
    opts = laws.options(variant)
    final, events = data.draw(laws.streams(variant))
    whole = neutral_dump(adapter.from_wire(final, **opts))
    streamed = accumulate(adapter.stream(events, **opts))
    assert streamed.status == "complete"
    assert neutral_dump(streamed) == whole
    if laws.sse is not None:
        raw = laws.sse(events)
        pieces = [raw[i:i + piece] for i in range(0, len(raw), piece)]
        assert neutral_dump(accumulate(adapter.stream(pieces, **opts))) == whole
    if laws.sdk_final is not None and variant in laws.sdk_variants:
        assert neutral_dump(adapter.from_wire(laws.sdk_final(events), **opts)) == whole


# -- strict --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "variant"), CASES, ids=_IDS)
@LAWS
@given(history=histories(max_turns=4))
def test_strict_refuses_exactly_the_lossy_histories(name: str, variant: str,
                                                    history: list[HistoryEvent]) -> None:
    """strict=True raises when, and only when, the lenient projection reports a loss."""
    lenient = _to_wire(name, variant, history)
    if lenient.losses:
        with pytest.raises(LossError) as caught:
            _to_wire(name, variant, history, strict=True)
        assert caught.value.losses == lenient.losses
    else:
        assert dumps(_to_wire(name, variant, history, strict=True).request) == dumps(lenient.request)


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
