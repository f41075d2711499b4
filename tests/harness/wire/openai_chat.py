"""The Chat Completions half of the shared wire laws, per dialect: responses and chunk streams."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from partwire import (
    AssistantMessage,
    Opaque,
    Part,
    ProviderData,
    RedactedThinkingPart,
    RefusalPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)
from partwire.adapters import openai_chat
from partwire.adapters.openai_chat._wire import FINISH_REASONS, stop_reason
from tests.harness.laws import (
    ARGUMENT_TEXTS,
    NAMES,
    WireLaws,
    response_extras,
    without_parsed,
)
from tests.harness.providers.openai_chat import strip_extensions
from tests.harness.validity import DIALECT_VALIDATORS

__all__ = ["LAWS"]

DIALECTS = tuple(openai_chat.DIALECTS)

_text = st.text(min_size=1, max_size=20)
_ident = st.from_regex(r"[A-Za-z0-9]{6,24}", fullmatch=True)


def _calls(dialect: openai_chat.Dialect) -> st.SearchStrategy[ToolCallPart]:
    """Tool calls with ids of the form the dialect's server hands out."""
    issuer, size = dialect.issuer, dialect.call_id_length
    wire_ids = _ident.map(lambda s: f"call_{s}") if size is None else st.from_regex(
        f"[A-Za-z0-9]{{{size}}}", fullmatch=True)
    return st.builds(ToolCallPart, id=_ident.map(lambda s: f"tu_{s}"), name=NAMES,
                     arguments_json=ARGUMENT_TEXTS, provider_ids=wire_ids.map(lambda s: {issuer: s}))


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
    if dialect.thinking_chunks:
        pd = ProviderData(issuer=issuer, data={"field": "content"})
        return st.lists(st.builds(ThinkingPart, text=_text, provider_data=st.just(pd),
                                  signature=st.none() | _ident.map(lambda s: Opaque(value=s, issuer=issuer))),
                        max_size=1)
    return st.just([])


@st.composite
def echoable(draw: st.DrawFn, dialect: openai_chat.Dialect) -> AssistantMessage:
    """An assistant message of parts ``dialect`` supports, in the order its wire form keeps."""
    parts: list[Part] = [*draw(_reasoning(dialect))]
    parts += draw(st.lists(st.builds(TextPart, text=_text), max_size=2))
    if dialect.capabilities.refusals and draw(st.booleans()):
        parts.append(RefusalPart(text=draw(_text)))
    parts += draw(st.lists(_calls(dialect), min_size=0 if parts else 1, max_size=3))
    raw = draw(st.sampled_from(sorted(FINISH_REASONS)))
    return AssistantMessage(
        parts=tuple(parts), model=f"{dialect.issuer}:m", provider=dialect.issuer, api="openai_chat",
        response_id=f"chatcmpl-{draw(_ident)}", stop_reason_raw=raw,
        stop_reason=stop_reason(raw, tool_calls=any(isinstance(p, ToolCallPart) for p in parts),
                                refusal=any(isinstance(p, RefusalPart) for p in parts)),
        # What the response says beyond the message, kept as the decoder keeps it.
        provider_data=ProviderData(issuer=dialect.issuer, data={"response": {"created": draw(st.integers(0, 2**31))}}),
    )


def response_shaped(wire_message: dict[str, Any], message: AssistantMessage) -> dict[str, Any]:
    """A response body whose message is ``wire_message``, as the server would have sent it."""
    return {"id": message.response_id, "object": "chat.completion", **response_extras(message), "model": "m",
            "choices": [{"index": 0, "message": wire_message, "finish_reason": message.stop_reason_raw}]}


@st.composite
def chunked(draw: st.DrawFn, dialect: openai_chat.Dialect) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A response body and the stream of chunks that carries the same message, cut anywhere."""
    message = draw(echoable(dialect))
    wire = openai_chat.to_wire([message], model="m", dialect=dialect.name,
                               echo_reasoning="all").request["messages"][0]
    content = wire.get("content")
    thinking = [p for p in content if p["type"] == "thinking"] if isinstance(content, list) else []
    if isinstance(content, list):  # a streamed answer has one text (after its thinking chunk)
        text = "".join(p["text"] for p in content if p["type"] == "text")
        wire["content"] = [*thinking, *([{"type": "text", "text": text}] if text else [])] \
            if thinking else text
    body = response_shaped(wire, message)
    base = {"id": message.response_id, "object": "chat.completion.chunk", "created": body["created"],
            "model": "m"}

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
    for detail in thinking:  # Mistral: thinking chunks, each piece a chunk of its own
        text = detail["thinking"][0]["text"]
        for k, p in enumerate(pieces(text) or [""]):
            piece = {"type": "thinking", "thinking": [{"type": "text", "text": p}]}
            if k == 0 and "signature" in detail:
                piece["signature"] = detail["signature"]
            chunks.append(chunk({"content": [piece]}))
    if thinking and wire["content"][-1]["type"] == "text":
        chunks += [chunk({"content": [{"type": "text", "text": p}]})
                   for p in pieces(wire["content"][-1]["text"])]
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




def _response_for(message: AssistantMessage, variant: str) -> dict[str, Any]:
    """The response body a server of the dialect sends for ``message``, as ``to_wire`` writes it."""
    projection = openai_chat.to_wire([message], model="m", dialect=variant, echo_reasoning="all")
    assert projection.losses == (), projection.losses
    return response_shaped(projection.request["messages"][0], message)


def _sdk_final(chunks: list[dict[str, Any]]) -> Any:
    """The SDK's ChatCompletionStreamState fed the chunks: its completion snapshot."""
    state: ChatCompletionStreamState[Any] = ChatCompletionStreamState()
    for raw in chunks:
        state.handle_chunk(ChatCompletionChunk.construct(**raw))
    return without_parsed(state.current_completion_snapshot.to_dict(mode="json"))


LAWS = WireLaws(
    messages=lambda variant: echoable(openai_chat.DIALECTS[variant]),
    response_for=_response_for,
    streams=lambda variant: chunked(openai_chat.DIALECTS[variant]),
    variants=DIALECTS,
    options=lambda variant: {"dialect": variant},
    projection_options={"echo_reasoning": "all"},
    model="m",
    sdk_final=_sdk_final,
    sdk_variants=("openai",),
    foreign_issuers=frozenset(d.issuer for d in openai_chat.DIALECTS.values()),
    strip=lambda request, variant: strip_extensions(request, openai_chat.DIALECTS[variant]),
    validator=DIALECT_VALIDATORS.get,
    # Servers the corpus holds traffic of (mistral/), each read under its own dialect.
    # corpus/ollama/ is the native API's traffic (the ollama adapter's), not this dialect's.
    corpora={name: name for name in DIALECTS if name not in ("openai", "ollama")},
)
"""The Chat Completions wire laws."""
