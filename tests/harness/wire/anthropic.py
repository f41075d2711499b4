"""The Anthropic half of the shared wire laws: its responses, streams and request shapes."""

from __future__ import annotations

import json
import warnings
from typing import Any

from anthropic.lib.streaming._messages import accumulate_event
from hypothesis import strategies as st

import partwire.adapters.anthropic as anthropic
from partwire import (
    AssistantMessage,
    DocumentCitation,
    Opaque,
    Part,
    ProviderData,
    RedactedThinkingPart,
    SearchResultCitation,
    ServerToolCallPart,
    ServerToolResultPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    UnknownPart,
    UrlCitation,
    UserMessage,
)
from partwire._json import json_text
from partwire.adapters.anthropic._wire import STOP_REASONS, usage_from_wire
from tests.harness.laws import (
    NAMES,
    WireLaws,
    object_arguments_view,
    response_extras,
    split_text,
    tools_called,
)

__all__ = ["LAWS"]

MODEL = "claude-sonnet-4-6"

_text = st.text(min_size=1, max_size=20)
_ident = st.from_regex(r"[A-Za-z0-9]{6,24}", fullmatch=True)
_json_scalars = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(
    allow_nan=False, allow_infinity=False, width=32) | st.text(max_size=10)
_json = st.recursive(_json_scalars, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=6)
_objects = st.dictionaries(st.text(max_size=8), _json, max_size=4)


def _anthropic_block(extras: dict[str, Any]) -> ProviderData:
    return ProviderData(issuer="anthropic", data={"block": extras})


_citations = st.one_of(
    st.builds(DocumentCitation, document_index=st.integers(0, 5), document_title=st.none() | _text,
              unit=st.sampled_from(["char", "page", "block"]), start=st.integers(0, 50),
              end=st.integers(0, 50), cited_text=st.text(max_size=10), file_id=st.none() | _ident),
    st.builds(UrlCitation, url=_ident.map(lambda s: f"https://{s}.example"), title=st.none() | _text,
              cited_text=st.text(max_size=10),
              provider_data=_ident.map(lambda s: _anthropic_block({"encrypted_index": s}))),
    st.builds(SearchResultCitation, source=_ident, title=st.none() | _text,
              search_result_index=st.integers(0, 3), start_block=st.integers(0, 3),
              end_block=st.integers(0, 3), cited_text=st.text(max_size=10)),
)

_SERVER_RESULTS = ("web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
                   "bash_code_execution_tool_result", "tool_search_tool_result")

supported_parts: st.SearchStrategy[Part] = st.one_of(
    st.builds(TextPart, text=_text, citations=st.lists(_citations, max_size=2).map(tuple)),
    st.builds(ThinkingPart, text=st.text(max_size=20),
              signature=_ident.map(lambda s: Opaque(value=s, issuer="anthropic"))),
    st.builds(RedactedThinkingPart, data=_ident.map(lambda s: Opaque(value=s, issuer="anthropic"))),
    st.builds(ToolCallPart, id=_ident.map(lambda s: f"tu_{s}"), name=NAMES,
              arguments_json=_objects.map(json_text),
              provider_ids=_ident.map(lambda s: {"anthropic": f"toolu_{s}"})),
    st.builds(ServerToolCallPart, id=_ident.map(lambda s: f"srvtoolu_{s}"), name=NAMES, input=_objects,
              issuer=st.just("anthropic")),
    st.builds(ServerToolResultPart, call_id=_ident.map(lambda s: f"srvtoolu_{s}"),
              name=st.sampled_from(_SERVER_RESULTS), output=_json.filter(lambda v: v is not None),
              issuer=st.just("anthropic")),
    NAMES.map(lambda t: f"x_{t}").flatmap(lambda t: st.builds(
        UnknownPart, original_type=st.just(t), raw=_objects.map(lambda o: {**o, "type": t}),
        issuer=st.just("anthropic"))),
)


@st.composite
def _messages(draw: st.DrawFn) -> AssistantMessage:
    """An assistant message of parts Anthropic answers with, as the decoder gives it."""
    parts = draw(st.lists(supported_parts, min_size=1, max_size=5))
    raw_stop = draw(st.sampled_from(sorted(STOP_REASONS)))
    raw_usage = {"input_tokens": draw(st.integers(0, 9999)), "output_tokens": draw(st.integers(0, 999)),
                 "cache_read_input_tokens": draw(st.integers(0, 999)),
                 "cache_creation_input_tokens": draw(st.integers(0, 99))}
    return AssistantMessage(
        parts=tuple(parts), model=f"anthropic:{MODEL}", provider="anthropic", api="anthropic",
        response_id=f"msg_{draw(_ident)}", stop_reason=STOP_REASONS[raw_stop], stop_reason_raw=raw_stop,
        usage=usage_from_wire(raw_usage),
        provider_data=ProviderData(issuer="anthropic", data={"response": {"stop_sequence": None, "stop_details": None}}),
    )


def _response_for(message: AssistantMessage, variant: str = "") -> dict[str, Any]:
    """The response body the API sends for ``message``: its content as ``to_wire`` writes it."""
    projection = anthropic.to_wire([UserMessage("q"), message], model=MODEL, tools=tools_called([message]))
    assert projection.losses == (), projection.losses
    content = projection.request["messages"][1]["content"]
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]  # the API always answers with a list
    assert message.usage is not None
    assert message.usage.provider_data is not None
    return {"id": message.response_id, "type": "message", "role": "assistant",
            "model": (message.model or "").removeprefix("anthropic:"), "content": content,
            "stop_reason": message.stop_reason_raw, **response_extras(message),
            "usage": message.usage.provider_data.data}


_cache = st.none() | st.just({"type": "ephemeral"}) | st.just({"type": "ephemeral", "ttl": "1h"})


def _with_cache(block: dict[str, Any], cache: dict[str, Any] | None) -> dict[str, Any]:
    return block if cache is None else {**block, "cache_control": cache}


_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

_text_blocks = st.builds(lambda t, c, cit: _with_cache({"type": "text", "text": t, **cit}, c), _text, _cache,
                         st.just({}) | st.just({"citations": None}) | st.just({"citations": []}))
_image_blocks = st.builds(_with_cache, st.sampled_from([
    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": _PNG}},
    {"type": "image", "source": {"type": "url", "url": "https://x.example/a.png"}},
    {"type": "image", "source": {"type": "file", "file_id": "file_011"}},
]), _cache)
_document_blocks = st.builds(
    lambda source, extra: {"type": "document", "source": source, **extra},
    st.sampled_from([{"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjQ="},
                     {"type": "text", "media_type": "text/plain", "data": "plain"},
                     {"type": "url", "url": "https://x.example/a.pdf"},
                     {"type": "file", "file_id": "file_012"},
                     {"type": "content", "content": [{"type": "text", "text": "nested"}]}]),
    st.fixed_dictionaries({}, optional={"title": st.none() | _text, "context": _text,
                                        "citations": st.just({"enabled": True}), "cache_control": _cache}),
)
_other_blocks = st.sampled_from([
    {"type": "search_result", "source": "kb://1", "title": "T", "content": [{"type": "text", "text": "x"}]},
    {"type": "container_upload", "file_id": "file_013"},
    {"type": "redacted_thinking", "data": "EmwKAhgB"},
    {"type": "thinking", "thinking": "plan", "signature": "EqQB"},
    {"type": "thinking", "thinking": "", "signature": ""},
    {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
    {"type": "hologram", "v": [1]},
])
_user_blocks = st.one_of(_text_blocks, _image_blocks, _document_blocks, _other_blocks)


@st.composite
def _tool_use(draw: st.DrawFn, ids: list[str]) -> dict[str, Any]:
    wire_id = f"toolu_{draw(_ident)}"
    ids.append(wire_id)
    block: dict[str, Any] = {"type": "tool_use", "id": wire_id, "name": draw(NAMES), "input": draw(_objects)}
    extra = draw(st.fixed_dictionaries({}, optional={"cache_control": _cache, "caller": st.just({"type": "direct"})}))
    return {**block, **extra}


@st.composite
def _tool_result(draw: st.DrawFn, ids: list[str]) -> dict[str, Any]:
    if not ids:  # the API refuses a tool_result that answers no tool_use
        text: dict[str, Any] = draw(_text_blocks)
        return text
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": draw(st.sampled_from(ids))}
    content = draw(st.sampled_from(["absent", "string", "list"]))
    if content == "string":
        block["content"] = draw(st.text(max_size=12))
    elif content == "list":
        block["content"] = draw(st.lists(st.one_of(_text_blocks, _image_blocks, _other_blocks), max_size=3))
    block.update(draw(st.fixed_dictionaries({}, optional={"is_error": st.booleans(), "cache_control": _cache})))
    return block


_TOOLS: list[dict[str, Any]] = [
    {"name": "get", "description": "Get.", "input_schema": {"type": "object", "properties": {}}},
    {"name": "put", "description": "Put.", "input_schema": {"type": "object"}, "strict": True},
    {"name": "x", "description": "X.", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}},
    {"name": "y", "input_schema": {"type": "object", "anyOf": []}},
    {"type": "web_search_20250305", "name": "web_search", "max_uses": 2},
]


@st.composite
def requests(draw: st.DrawFn) -> dict[str, Any]:
    """Request bodies of every shape the API takes: roles, block kinds, markers and parameters."""
    ids: list[str] = []
    messages: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 6))):
        role = draw(st.sampled_from(["user", "user", "assistant", "assistant", "system"]))
        if role == "system" or draw(st.integers(0, 4)) == 0:
            content: Any = draw(st.text(max_size=12))
        elif role == "assistant":
            content = draw(st.lists(st.one_of(_text_blocks, _other_blocks, _tool_use(ids)), max_size=4))
        else:
            content = draw(st.lists(st.one_of(_user_blocks, _tool_result(ids)), max_size=4))
        if role == "system" and isinstance(content, list):
            content = [b for b in content if b["type"] == "text"]
        messages.append({"role": role, "content": content})
    # The API refuses an empty message, but for a final assistant one: not a request it can express.
    messages = [m for k, m in enumerate(messages) if m["content"] or (
        k == len(messages) - 1 and m["role"] == "assistant")]
    body: dict[str, Any] = {"model": MODEL, "max_tokens": draw(st.integers(1, 64000)), "messages": messages}
    system = draw(st.sampled_from(["absent", "string", "blocks"]))
    if system == "string":
        body["system"] = draw(st.text(max_size=12))
    elif system == "blocks":
        body["system"] = draw(st.lists(_text_blocks, max_size=2))
    tools = draw(st.lists(st.sampled_from(_TOOLS), max_size=3, unique_by=lambda t: str(t["name"])))
    # The API refuses a tool_use whose tool the request does not define.
    called = dict.fromkeys(b["name"] for m in messages if isinstance(m["content"], list)
                           for b in m["content"] if b.get("type") == "tool_use")
    tools += [{"name": n, "input_schema": {"type": "object"}} for n in called
              if n not in {t["name"] for t in tools}]
    empty_tools = draw(st.booleans())
    if tools or empty_tools:
        body["tools"] = tools
    body.update(draw(st.fixed_dictionaries({}, optional={
        "tool_choice": st.sampled_from([{"type": "auto"}, {"type": "any"}, {"type": "none"},
                                        {"type": "tool", "name": "get", "disable_parallel_tool_use": True}]),
        "temperature": st.floats(0, 1),
        "stream": st.booleans(),
        "thinking": st.sampled_from([{"type": "enabled", "budget_tokens": 2048}, {"type": "adaptive"}]),
        "metadata": st.just({"user_id": "u-1"}),
        "stop_sequences": st.lists(st.text(min_size=1, max_size=4), max_size=2),
    })))
    return body


@st.composite
def streams(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A response body and the stream of events the API would send for it, fragments drawn at random."""
    body = _response_for(draw(_messages()))
    usage = body["usage"]
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {
        **{k: v for k, v in body.items() if k != "content"}, "content": [], "stop_reason": None,
        "usage": {**usage, "output_tokens": 1}}}]
    for index, block in enumerate(body["content"]):
        kind = block["type"]
        start: dict[str, Any]
        deltas: list[dict[str, Any]] = []
        if kind == "text":
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": t} for t in split_text(draw, block["text"])]
            deltas += [{"type": "citations_delta", "citation": c} for c in block.get("citations", [])]
        elif kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": t} for t in split_text(draw, block["thinking"])]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind in ("tool_use", "server_tool_use"):
            start = {**block, "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": t} for t in split_text(draw, json_text(block["input"]))]
        else:
            start = block
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    events.append({"type": "message_delta", "delta": {"stop_reason": body["stop_reason"], "stop_sequence": None},
                   "usage": {"output_tokens": usage["output_tokens"]}})
    events.append({"type": "message_stop"})
    return body, events


def _sdk_final(events: list[dict[str, Any]]) -> Any:
    """The SDK's own accumulation of ``events``."""
    snapshot = None
    bufs: dict[int, bytes] = {}
    with warnings.catch_warnings():
        # The SDK dumps the unvalidated models it builds from plain dicts; pydantic warns about
        # the nested ones. The values are right; the warning is the SDK's business.
        warnings.simplefilter("ignore", UserWarning)
        for event in events:
            snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=bufs)  # type: ignore[arg-type]
    return snapshot




def _sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


LAWS = WireLaws(
    messages=lambda variant: _messages(),
    response_for=_response_for,
    streams=lambda variant: streams(),
    model=MODEL,
    sse=_sse,
    sdk_final=lambda events: _sdk_final(events).to_dict(mode="json", warnings=False),
    requests=requests(),
    view=object_arguments_view,
    foreign_issuers=frozenset({"anthropic"}),
)
"""The Anthropic wire laws."""
