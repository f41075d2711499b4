"""The laws of DESIGN §11 for the Google adapter, as hypothesis properties.

- Echo: an assistant message of parts Gemini returns survives
  ``from_wire(response_shaped(to_wire([m])))`` unchanged, echo state included (canonical call ids
  are fresh per decoding unless Gemini gave none, so they are compared by position).
- Import: ``to_wire(from_wire_request(r)) == r`` for every request ``to_wire`` makes from any
  history (the corpus requests are in ``test_google_corpus``).
- Stream parity: a response cut into any chunks, text split anywhere and signatures arriving on
  empty final parts, accumulates to what ``from_wire`` gives for the whole body.
- Cross-provider: any history projects to a request the SDK's types accept, and every part that
  does not come back from that request is in the loss list.
- Prefix stability: appending events never changes the wire contents before the last one.
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from partwire import (
    AssistantMessage,
    HistoryEvent,
    Opaque,
    Part,
    ProviderData,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UnknownPart,
    UserMessage,
)
from partwire._base import replace
from partwire.adapters import google
from partwire.adapters.google._wire import FINISH_REASONS
from partwire.messages import DeveloperMessage, SystemMessage
from partwire.streaming import accumulate
from tests.harness.validity import request_errors
from tests.strategies import histories

LAWS = settings(max_examples=int(os.environ.get("PARTWIRE_LAW_EXAMPLES", "40")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
MODEL = "gemini-3-flash-preview"

_text = st.text(min_size=1, max_size=20)
_sig = st.binary(min_size=8, max_size=40).map(lambda b: __import__("base64").b64encode(b).decode())
_ident = st.from_regex(r"[a-z0-9]{8}", fullmatch=True)
_names = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_]{0,15}", fullmatch=True)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6)


def _pd(data: dict[str, Any]) -> ProviderData:
    return ProviderData(issuer="google", data=data)


@st.composite
def _call(draw: st.DrawFn, signed: bool) -> ToolCallPart:
    args = draw(st.dictionaries(st.text(max_size=8), _json, max_size=4))
    wire_id = draw(st.none() | _ident)
    data: dict[str, Any] = {}
    if signed:
        data = {"thoughtSignature": draw(_sig), "model": MODEL}
    if wire_id is None:
        data["no_id"] = True
    return ToolCallPart(id=f"tu_{draw(_ident)}", name=draw(_names),
                        arguments_json=json.dumps(args, ensure_ascii=False),
                        provider_ids={"google": wire_id} if wire_id else {},
                        provider_data=_pd(data) if data else None)


@st.composite
def echoable(draw: st.DrawFn) -> AssistantMessage:
    """An assistant message as Gemini's decoder gives it: thoughts, text, calls, signatures anywhere."""
    parts: list[Part] = []
    for _ in range(draw(st.integers(0, 2))):
        sig = draw(st.none() | _sig)
        parts.append(ThinkingPart(text=draw(_text),
                                  signature=Opaque(value=sig, issuer="google", model=MODEL) if sig else None,
                                  provider_data=None if sig else _pd({"model": MODEL})))
    for _ in range(draw(st.integers(0, 2))):
        sig = draw(st.none() | _sig)
        parts.append(TextPart(text=draw(_text),
                              provider_data=_pd({"thoughtSignature": sig, "model": MODEL}) if sig else None))
    count = draw(st.integers(0 if parts else 1, 3))
    parts += [draw(_call(signed=k == 0)) for k in range(count)]
    raw = draw(st.sampled_from(sorted(FINISH_REASONS)))
    stop = FINISH_REASONS[raw]
    if stop == "stop" and any(isinstance(p, ToolCallPart) for p in parts):
        stop = "tool_use"
    return AssistantMessage(parts=tuple(parts), model=f"google:{MODEL}", provider="google", api="google",
                            response_id=draw(_ident), stop_reason=stop, stop_reason_raw=raw)


def response_shaped(content: dict[str, Any], message: AssistantMessage) -> dict[str, Any]:
    """A response body whose candidate is ``content``, as the server would have sent it."""
    return {"candidates": [{"content": {**content, "role": "model"}, "finishReason": message.stop_reason_raw,
                            "index": 0}], "modelVersion": MODEL, "responseId": message.response_id}


def dumped(message: AssistantMessage) -> Any:
    """The full dump, echo state included, with message identity and fresh call ids neutral."""
    parts = tuple(replace(p, id=f"tu_{i}") if isinstance(p, ToolCallPart) else p
                  for i, p in enumerate(message.parts))
    return replace(message, id="m", created_at="2026-01-01T00:00:00Z", parts=parts).model_dump(mode="json")


# -- echo ------------------------------------------------------------------------------------


@LAWS
@given(echoable())
def test_echo(message: AssistantMessage) -> None:
    """A Gemini assistant message comes back from its own wire form unchanged, with no loss."""
    projection = google.to_wire([UserMessage("q"), message], model=MODEL)
    assert projection.losses == ()
    decoded = google.from_wire(response_shaped(projection.request["contents"][1], message))
    assert dumped(decoded) == dumped(message)


# -- import ------------------------------------------------------------------------------------


@LAWS
@given(histories(max_turns=4))
def test_import_gives_back_every_request_to_wire_makes(history: list[HistoryEvent]) -> None:
    """Re-importing a projected request projects to the same request, whatever the history held."""
    first = google.to_wire(history, model=MODEL).request
    imported = google.from_wire_request(first)
    again = google.to_wire(imported.history, **{**imported.to_wire_kwargs(), "model": MODEL}).request
    assert again == first


# -- stream parity ------------------------------------------------------------------------------


@st.composite
def chunked(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A response body and a stream of chunks that carries the same message, cut anywhere."""
    message = draw(echoable())
    content = google.to_wire([UserMessage("q"), message], model=MODEL).request["contents"][1]
    body = response_shaped(content, message)
    head = {"modelVersion": MODEL, "responseId": message.response_id}

    def chunk(parts: list[dict[str, Any]], finish: bool = False) -> dict[str, Any]:
        cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish:
            cand["finishReason"] = message.stop_reason_raw
        return {"candidates": [cand], **head}

    chunks: list[dict[str, Any]] = []
    whole: list[dict[str, Any]] = []
    parts = content["parts"]
    for n, part in enumerate(parts):
        nxt = parts[n + 1] if n + 1 < len(parts) else None
        mergeable_next = nxt is not None and "text" in nxt and bool(nxt.get("thought")) == bool(
            part.get("thought")) and "text" in part
        if "text" in part:
            text = part["text"]
            cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=3)))
            pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
            flag = {"thought": True} if part.get("thought") else {}
            if mergeable_next:
                # Two text parts of one kind side by side are one part in a stream; keep them apart
                # in the body too, by sending this one whole with nothing mergeable after it.
                return body, [chunk(parts, finish=True)]
            for piece in pieces[:-1]:
                chunks.append(chunk([{"text": piece, **flag}]))
            last = {"text": pieces[-1], **flag}
            if "thoughtSignature" in part:
                if draw(st.booleans()):  # the signature on an empty part after the text
                    chunks.append(chunk([last]))
                    last = {"text": "", **flag, "thoughtSignature": part["thoughtSignature"]}
                else:
                    last["thoughtSignature"] = part["thoughtSignature"]
            chunks.append(chunk([last]))
        else:
            chunks.append(chunk([part]))
        whole.append(part)
    chunks.append(chunk([], finish=True))
    return body, chunks


@LAWS
@given(chunked())
def test_stream_parity(case: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    """Any chunking of a response accumulates to the message from_wire gives for the whole body."""
    body, chunks = case
    streamed = accumulate(google.stream(chunks))
    whole = google.from_wire(body)
    assert streamed.status == "complete"
    assert dumped(streamed) == dumped(whole)


# -- cross-provider -----------------------------------------------------------------------------


def _views(history: list[HistoryEvent] | tuple[HistoryEvent, ...]) -> list[tuple[str, Any]]:
    """(path, view) of every part and tool output, viewed as what a model would be told."""
    out: list[tuple[str, Any]] = []
    for i, event in enumerate(history):
        if isinstance(event, ToolMessage):
            # The model is told the text, or the structured data when there is no text.
            told: Any = event.output_text if event.output_text or event.data is None else event.data
            if event.data is not None and event.output_text == json.dumps(event.data, ensure_ascii=False):
                told = event.data  # an imported JSON result: its text is the data, written out
            out.append((f"history[{i}]", json.dumps(["tool_output", told], sort_keys=True)))
        if isinstance(event, SystemMessage | DeveloperMessage | UserMessage | AssistantMessage | ToolMessage):
            for j, part in enumerate(event.parts):
                out.append((f"history[{i}].parts[{j}]", _view(part)))
    return out


def _view(part: Part) -> str:
    data = {name: getattr(part, name) for name in type(part).model_fields
            if name not in ("provider_data", "provider_ids", "id", "signature", "media_type",
                            "citations", "title", "filename", "detail")}
    if data.get("type") == "tool_call":
        # Gemini's arguments are an object: the same JSON comes back, not the same spelling.
        with contextlib.suppress(ValueError):  # malformed ones are sent as {} with a loss
            data["arguments_json"] = json.loads(data["arguments_json"] or "{}")
    if data.get("type") == "refusal":
        data["type"] = "text"  # Gemini has no refusal part: it travels as text (a reported loss)
    return json.dumps(data, sort_keys=True, default=lambda v: v.model_dump(mode="json"))


@LAWS
@given(histories(max_turns=4))
def test_cross_provider_request_is_valid_and_every_difference_is_a_loss(history: list[HistoryEvent]) -> None:
    """Any history projects to a valid Gemini request; what does not come back is a reported loss."""
    projection = google.to_wire(history, model=MODEL)
    # A part partwire does not know is echoed to Gemini as it came; today's SDK may not know it
    # either, so validity is asserted on requests without one.
    echoed_unknown = any(isinstance(p, UnknownPart) and p.issuer == "google"
                         for e in history for p in getattr(e, "parts", ()))
    if projection.request["contents"] and not echoed_unknown:
        errors = request_errors("google", projection.request)
        assert errors == [], errors
    back = google.from_wire_request(projection.request).history
    arrived = [view for _, view in _views(back)]
    lost = {loss.path for loss in projection.losses}
    for path, view in _views(history):
        if view in arrived:
            arrived.remove(view)
            continue
        assert any(path == p or path.startswith(p + ".") or p.startswith(path + ".") for p in lost), (
            f"{path} ({view}) did not arrive and no loss says so; losses: {sorted(lost)}")


# -- prefix stability ---------------------------------------------------------------------------


@LAWS
@given(histories(max_turns=3), histories(max_turns=2))
def test_appending_never_changes_earlier_contents(history: list[HistoryEvent],
                                                  more: list[HistoryEvent]) -> None:
    """The wire contents of h, but its last, are a prefix of the contents of h + more."""
    before = google.to_wire(history, model=MODEL).request["contents"]
    after = google.to_wire([*history, *more], model=MODEL).request["contents"]
    assert after[:max(0, len(before) - 1)] == before[:-1]
