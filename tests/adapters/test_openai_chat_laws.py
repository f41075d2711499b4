"""The laws of DESIGN §11 for the Chat Completions adapter, as hypothesis properties, per dialect.

- Echo: an assistant message built from parts the dialect supports survives
  ``from_wire(response_shaped(to_wire([m])))`` unchanged (canonical call ids are fresh per
  ``from_wire`` by design, so they are compared by position).
- Import: ``to_wire(from_wire_request(r)).request == r`` for requests the API can express (every
  request ``to_wire`` makes; the corpus requests are in ``test_openai_chat_corpus``).
- Stream parity: a response cut into any chunks accumulates to what ``from_wire`` gives for it,
  and to what ``from_wire`` gives for the SDK's own accumulation of the same chunks.
- Cross-provider: any history projects to a request the SDK's request types accept (without the
  dialect's documented extension fields), and every part that does not come back from that
  request is in the loss list.
"""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk
from pydantic import BaseModel

from partwire import (
    AssistantMessage,
    HistoryEvent,
    Opaque,
    Part,
    ProviderData,
    RedactedThinkingPart,
    RefusalPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UserMessage,
)
from partwire._base import replace
from partwire.adapters import openai_chat
from partwire.adapters.openai_chat._wire import FINISH_REASONS, stop_reason
from partwire.messages import DeveloperMessage, SystemMessage
from partwire.streaming import accumulate
from tests.harness.providers.openai_chat import strip_extensions
from tests.harness.validity import request_errors
from tests.strategies import histories

LAWS = settings(max_examples=int(os.environ.get("PARTWIRE_LAW_EXAMPLES", "60")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
DIALECTS = tuple(openai_chat.DIALECTS)

# -- strategies ------------------------------------------------------------------------------

_text = st.text(min_size=1, max_size=20)
_ident = st.from_regex(r"[A-Za-z0-9]{6,24}", fullmatch=True)
_names = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_-]{0,15}", fullmatch=True)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6)
_arguments = st.dictionaries(st.text(max_size=8), _json, max_size=4).map(
    lambda d: json.dumps(d, ensure_ascii=False, separators=(",", ":"))) | st.text(max_size=20)


def _calls(issuer: str) -> st.SearchStrategy[ToolCallPart]:
    return st.builds(ToolCallPart, id=_ident.map(lambda s: f"tu_{s}"), name=_names,
                     arguments_json=_arguments, provider_ids=_ident.map(lambda s: {issuer: f"call_{s}"}))


def _reasoning(dialect: openai_chat.Dialect) -> st.SearchStrategy[list[Part]]:
    """The reasoning parts one response of ``dialect`` can hold, as its decoder gives them."""
    issuer = dialect.issuer
    if dialect.reasoning_details:
        detail = {"field": "reasoning_details", "block": {"format": "anthropic-claude-v1"}}
        pd = ProviderData(issuer=issuer, data=detail)
        one = st.one_of(
            st.builds(ThinkingPart, text=st.text(max_size=20), provider_data=st.just(pd),
                      signature=st.none() | _ident.map(lambda s: Opaque(value=s, issuer=issuer))),
            st.builds(RedactedThinkingPart, data=_ident.map(lambda s: Opaque(value=s, issuer=issuer)),
                      provider_data=st.just(pd)),
        )
        return st.lists(one, max_size=3)
    if dialect.reasoning_fields:
        pd = ProviderData(issuer=issuer, data={"field": dialect.reasoning_fields[0]})
        return st.lists(st.builds(ThinkingPart, text=_text, provider_data=st.just(pd)), max_size=1)
    return st.just([])


@st.composite
def echoable(draw: st.DrawFn, dialect: openai_chat.Dialect) -> AssistantMessage:
    """An assistant message of parts ``dialect`` supports, in the order its wire form keeps."""
    parts: list[Part] = [*draw(_reasoning(dialect))]
    parts += draw(st.lists(st.builds(TextPart, text=_text), max_size=2))
    if dialect.capabilities.refusals and draw(st.booleans()):
        parts.append(RefusalPart(text=draw(_text)))
    parts += draw(st.lists(_calls(dialect.issuer), min_size=0 if parts else 1, max_size=3))
    raw = draw(st.sampled_from(sorted(FINISH_REASONS)))
    return AssistantMessage(
        parts=tuple(parts), model=f"{dialect.issuer}:m", provider=dialect.issuer, api="openai_chat",
        response_id=f"chatcmpl-{draw(_ident)}", stop_reason_raw=raw,
        stop_reason=stop_reason(raw, tool_calls=any(isinstance(p, ToolCallPart) for p in parts),
                                refusal=any(isinstance(p, RefusalPart) for p in parts)),
    )


def response_shaped(wire_message: dict[str, Any], message: AssistantMessage) -> dict[str, Any]:
    """A response body whose message is ``wire_message``, as the server would have sent it."""
    return {"id": message.response_id, "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": wire_message, "finish_reason": message.stop_reason_raw}]}


def comparable(message: AssistantMessage) -> AssistantMessage:
    """The message with what is fresh per decoding made neutral: message id and time, call ids."""
    parts = tuple(replace(p, id=f"call-{i}") if isinstance(p, ToolCallPart) else p
                  for i, p in enumerate(message.parts))
    return replace(message, id="m", created_at="2026-01-01T00:00:00Z", parts=parts)


# -- echo ------------------------------------------------------------------------------------


@LAWS
@given(st.sampled_from(DIALECTS).flatmap(
    lambda d: st.tuples(st.just(d), echoable(openai_chat.DIALECTS[d]))))
def test_echo(case: tuple[str, AssistantMessage]) -> None:
    """A supported assistant message comes back from its own wire form unchanged, with no loss."""
    dialect, message = case
    projection = openai_chat.to_wire([message], model="m", dialect=dialect, echo_reasoning="all")
    assert projection.losses == ()
    body = response_shaped(projection.request["messages"][0], message)
    decoded = openai_chat.from_wire(body, dialect=dialect)
    assert comparable(decoded) == comparable(message)


# -- import ------------------------------------------------------------------------------------


@LAWS
@given(st.sampled_from(DIALECTS), histories(max_turns=4))
def test_import_gives_back_every_request_to_wire_makes(dialect: str, history: list[HistoryEvent]) -> None:
    """Re-importing a projected request projects to the same request, whatever the history held."""
    first = openai_chat.to_wire(history, model="m", dialect=dialect, echo_reasoning="all").request
    imported = openai_chat.from_wire_request(first, dialect=dialect)
    again = openai_chat.to_wire(imported.history, **imported.to_wire_kwargs(), dialect=dialect,
                                echo_reasoning="all").request
    assert again == first


# -- stream parity ------------------------------------------------------------------------------


@st.composite
def chunked(draw: st.DrawFn, dialect: openai_chat.Dialect) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A response body and the stream of chunks that carries the same message, cut anywhere."""
    message = draw(echoable(dialect))
    wire = openai_chat.to_wire([message], model="m", dialect=dialect.name,
                               echo_reasoning="all").request["messages"][0]
    if isinstance(wire.get("content"), list):  # a streamed answer has one text
        wire["content"] = "".join(p["text"] for p in wire["content"] if p["type"] == "text")
    body = response_shaped(wire, message)
    base = {"id": message.response_id, "object": "chat.completion.chunk", "created": 0, "model": "m"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    def pieces(text: str) -> list[str]:
        cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=3)))
        return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True) if text[a:b]]

    chunks = [chunk({"role": "assistant", "content": ""})]
    for name in dialect.reasoning_fields:
        if isinstance(wire.get(name), str):
            chunks += [chunk({name: p}) for p in pieces(wire[name])]
    for k, detail in enumerate(wire.get("reasoning_details") or []):
        text_key = "summary" if detail["type"] == "reasoning.summary" else "text"
        if text_key in detail and detail["type"] != "reasoning.encrypted":
            head = {k2: v for k2, v in detail.items() if k2 not in (text_key, "signature")}
            for p in pieces(detail[text_key]) or [""]:
                chunks.append(chunk({"reasoning_details": [{**head, "index": k, text_key: p}]}))
            if "signature" in detail:
                chunks.append(chunk({"reasoning_details": [{**head, "index": k, "signature": detail["signature"]}]}))
        else:
            chunks.append(chunk({"reasoning_details": [{**detail, "index": k}]}))
        detail["index"] = k  # the whole response carries the same index
    if isinstance(wire.get("content"), str):
        chunks += [chunk({"content": p}) for p in pieces(wire["content"])]
    if isinstance(wire.get("refusal"), str):
        chunks += [chunk({"refusal": p}) for p in pieces(wire["refusal"])]
    for index, call in enumerate(wire.get("tool_calls") or []):
        arguments = call["function"]["arguments"]
        chunks.append(chunk({"tool_calls": [{"index": index, "id": call["id"], "type": "function",
                                             "function": {"name": call["function"]["name"], "arguments": ""}}]}))
        chunks += [chunk({"tool_calls": [{"index": index, "function": {"arguments": p}}]})
                   for p in pieces(arguments)]
    chunks.append(chunk({}, message.stop_reason_raw))
    return body, chunks


@LAWS
@given(st.sampled_from(DIALECTS).flatmap(lambda d: st.tuples(st.just(d), chunked(openai_chat.DIALECTS[d]))))
def test_stream_parity(case: tuple[str, tuple[dict[str, Any], list[dict[str, Any]]]]) -> None:
    """Any chunking of a response accumulates to the message from_wire gives for the whole body."""
    dialect, (body, chunks) = case
    streamed = accumulate(openai_chat.stream(chunks, dialect=dialect))
    whole = openai_chat.from_wire(body, dialect=dialect)
    assert streamed.status == "complete"
    assert comparable(streamed) == comparable(whole)


@LAWS
@given(chunked(openai_chat.DIALECTS["openai"]))
def test_stream_parity_with_the_sdk_accumulator(case: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    """Our stream and the SDK's ChatCompletionStreamState accumulate the same chunks to one message."""
    _, chunks = case
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    for raw in chunks:
        state.handle_chunk(ChatCompletionChunk.construct(**raw))
    theirs = openai_chat.from_wire(state.current_completion_snapshot)
    ours = accumulate(openai_chat.stream(chunks))
    assert comparable(ours) == comparable(theirs)


# -- cross-provider -----------------------------------------------------------------------------


def _foreign(history: list[HistoryEvent], issuers: frozenset[str]) -> list[HistoryEvent]:
    """The history with everything ``issuers`` issued re-issued by another provider."""
    def clean(value: Any) -> Any:
        if isinstance(value, list | tuple):
            return type(value)(clean(v) for v in value)
        if isinstance(value, dict):
            return {("elsewhere" if k in issuers else k): clean(v) for k, v in value.items()}
        if not isinstance(value, BaseModel):
            return value
        changes = {name: clean(getattr(value, name)) for name in type(value).model_fields}
        if changes.get("issuer") in issuers:
            changes["issuer"] = "elsewhere"
        return value.model_copy(update=changes)
    return [clean(e) for e in history]


def _views(history: list[HistoryEvent] | tuple[HistoryEvent, ...]) -> list[tuple[str, Any]]:
    """(path, view) of every part and tool output, viewed as what a model would be told."""
    out: list[tuple[str, Any]] = []
    for i, event in enumerate(history):
        if isinstance(event, ToolMessage):
            # A tool with no text output tells the model its structured result, as JSON.
            told = event.output_text or (json.dumps(event.data, ensure_ascii=False)
                                         if event.data is not None else "")
            out.append((f"history[{i}]", json.dumps(["tool_output", told])))
        if isinstance(event, SystemMessage | DeveloperMessage | UserMessage | AssistantMessage | ToolMessage):
            for j, part in enumerate(event.parts):
                if isinstance(part, ThinkingPart) and not part.text and part.signature is None:
                    continue  # says nothing: not sent, and not a loss
                out.append((f"history[{i}].parts[{j}]", _view(part)))
    return out


def _view(part: Part) -> str:
    """What a part tells the model: its kind and content, not ids, media types or echo state."""
    # Fields only: extra fields a newer version wrote are stored, never sent to a provider.
    data = {name: getattr(part, name) for name in type(part).model_fields
            if name not in ("provider_data", "provider_ids", "id", "signature", "media_type", "citations")}
    return json.dumps(data, sort_keys=True, default=lambda v: v.model_dump(mode="json"))


@LAWS
@given(st.sampled_from(DIALECTS), histories(max_turns=4))
def test_cross_provider_request_is_valid_and_every_difference_is_a_loss(
        dialect: str, history: list[HistoryEvent]) -> None:
    """A history from elsewhere projects to a valid request; what does not come back is a reported loss."""
    spec = openai_chat.DIALECTS[dialect]
    history = _foreign(history, frozenset({spec.issuer}))
    projection = openai_chat.to_wire(history, model="m", dialect=dialect)
    assert request_errors("openai_chat", strip_extensions(projection.request, spec)) == []
    back = openai_chat.from_wire_request(projection.request, dialect=dialect).history
    arrived = [view for _, view in _views(back)]
    lost = {loss.path for loss in projection.losses}
    for path, view in _views(history):
        if view in arrived:
            arrived.remove(view)
            continue
        assert any(path == p or path.startswith(p + ".") or p.startswith(path + ".") for p in lost), (
            f"{path} ({view}) did not arrive and no loss says so; losses: {sorted(lost)}")
