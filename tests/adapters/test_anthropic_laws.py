"""The laws of DESIGN §11 for the Anthropic adapter, as hypothesis properties.

- Echo: an assistant message built from parts Anthropic supports survives
  ``from_wire(response_shaped(to_wire([m])))`` unchanged (canonical call ids are fresh per
  ``from_wire`` by design, so they are compared by position).
- Import: ``to_wire(from_wire_request(r)).request == r`` for requests the API can express.
- Stream parity: the stream of a response accumulates to what ``from_wire`` gives for it, and
  to what ``from_wire`` gives for the SDK's own accumulation of that stream.
- Any history projects without error, and re-importing a projected request projects to the
  same request (``to_wire`` only makes requests ``from_wire_request`` reads back exactly).
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import warnings
from typing import Any

import pytest
from anthropic.lib.streaming._messages import accumulate_event
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import partwire.adapters.anthropic as anthropic
from partwire import (
    AssistantMessage,
    AudioPart,
    Base64Source,
    DocumentCitation,
    DocumentPart,
    ImagePart,
    LossError,
    Opaque,
    Part,
    ProviderData,
    RedactedThinkingPart,
    RefusalPart,
    SearchResultCitation,
    ServerToolCallPart,
    ServerToolResultPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UnknownPart,
    UrlCitation,
    Usage,
    UserMessage,
)
from partwire._base import replace
from partwire.adapters._common import json_text
from partwire.adapters.anthropic._wire import STOP_REASONS, usage_from_wire
from partwire.history import HistoryEvent
from partwire.streaming import accumulate
from tests.strategies import histories

MODEL = "claude-sonnet-4-6"
# PARTWIRE_LAW_EXAMPLES raises the count for a deeper search than the default run affords.
LAWS = settings(max_examples=int(os.environ.get("PARTWIRE_LAW_EXAMPLES", "60")), deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- strategies ------------------------------------------------------------------------------

_text = st.text(min_size=1, max_size=20)
_ident = st.from_regex(r"[A-Za-z0-9]{6,24}", fullmatch=True)
_names = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_-]{0,15}", fullmatch=True)
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
    st.builds(ToolCallPart, id=_ident.map(lambda s: f"tu_{s}"), name=_names,
              arguments_json=_objects.map(json_text),
              provider_ids=_ident.map(lambda s: {"anthropic": f"toolu_{s}"})),
    st.builds(ServerToolCallPart, id=_ident.map(lambda s: f"srvtoolu_{s}"), name=_names, input=_objects,
              issuer=st.just("anthropic")),
    st.builds(ServerToolResultPart, call_id=_ident.map(lambda s: f"srvtoolu_{s}"),
              name=st.sampled_from(_SERVER_RESULTS), output=_json.filter(lambda v: v is not None),
              issuer=st.just("anthropic")),
    _names.map(lambda t: f"x_{t}").flatmap(lambda t: st.builds(
        UnknownPart, original_type=st.just(t), raw=_objects.map(lambda o: {**o, "type": t}),
        issuer=st.just("anthropic"))),
)


@st.composite
def responses_and_messages(draw: st.DrawFn) -> tuple[dict[str, Any], AssistantMessage]:
    """An assistant message of supported parts, and the response body the API would send for it."""
    parts = draw(st.lists(supported_parts, min_size=1, max_size=5))
    raw_stop = draw(st.sampled_from(sorted(STOP_REASONS)))
    raw_usage = {"input_tokens": draw(st.integers(0, 9999)), "output_tokens": draw(st.integers(0, 999)),
                 "cache_read_input_tokens": draw(st.integers(0, 999)),
                 "cache_creation_input_tokens": draw(st.integers(0, 99))}
    message = AssistantMessage(
        parts=tuple(parts), model=f"anthropic:{MODEL}", provider="anthropic", api="anthropic",
        response_id=f"msg_{draw(_ident)}", stop_reason=STOP_REASONS[raw_stop], stop_reason_raw=raw_stop,
        usage=usage_from_wire(raw_usage),
    )
    content = anthropic.to_wire([UserMessage("q"), message], model=MODEL).request["messages"][1]["content"]
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]  # the API always answers with a list
    body = {"id": message.response_id, "type": "message", "role": "assistant", "model": MODEL,
            "content": content, "stop_reason": raw_stop, "stop_sequence": None, "usage": raw_usage}
    return body, message


def comparable(message: AssistantMessage) -> AssistantMessage:
    """The message with what is fresh per decoding made neutral: message id and time, call ids."""
    parts = tuple(replace(p, id=f"call-{i}") if isinstance(p, ToolCallPart) else p
                  for i, p in enumerate(message.parts))
    return replace(message, id="m", created_at="2026-01-01T00:00:00Z", parts=parts)


# -- echo ------------------------------------------------------------------------------------


@LAWS
@given(responses_and_messages())
def test_echo(pair: tuple[dict[str, Any], AssistantMessage]) -> None:
    """A supported assistant message comes back from its own wire form unchanged."""
    body, message = pair
    assert comparable(anthropic.from_wire(body)) == comparable(message)
    assert anthropic.to_wire([UserMessage("q"), message], model=MODEL).losses == ()


@LAWS
@given(_objects, st.sampled_from([(",", ":"), (", ", ": "), (",", ": ")]))
def test_echo_keeps_arguments_as_json_values_whatever_their_spacing(arguments: dict[str, Any],
                                                                    separators: tuple[str, str]) -> None:
    """The wire carries an object, not text: any spelling echoes to the same JSON value."""
    call = ToolCallPart(id="tu_1", name="f", arguments_json=json.dumps(arguments, separators=separators),
                        provider_ids={"anthropic": "toolu_1"})
    content = anthropic.to_wire([AssistantMessage([call])], model=MODEL).request["messages"][0]["content"]
    echoed = anthropic.from_wire({"type": "message", "content": content, "model": MODEL})
    assert json.loads(echoed.parts[0].arguments_json) == arguments  # type: ignore[union-attr]
    assert echoed.parts[0].arguments_json == json_text(arguments)  # type: ignore[union-attr]


# -- import ------------------------------------------------------------------------------------

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
    block: dict[str, Any] = {"type": "tool_use", "id": wire_id, "name": draw(_names), "input": draw(_objects)}
    extra = draw(st.fixed_dictionaries({}, optional={"cache_control": _cache, "caller": st.just({"type": "direct"})}))
    return {**block, **extra}


@st.composite
def _tool_result(draw: st.DrawFn, ids: list[str]) -> dict[str, Any]:
    answers_a_call = bool(ids) and draw(st.booleans())
    target = draw(st.sampled_from(ids)) if answers_a_call else f"toolu_{draw(_ident)}"
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": target}
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


@LAWS
@given(requests())
def test_import(body: dict[str, Any]) -> None:
    """A request read back and projected again is the same request, with nothing reported lost."""
    imported = anthropic.from_wire_request(body)
    projection = anthropic.to_wire(imported.history, **imported.to_wire_kwargs())
    assert projection.request == body
    assert projection.losses == ()


# -- stream parity -------------------------------------------------------------------------------


def _split(draw: st.DrawFn, text: str) -> list[str]:
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=4))) if len(text) > 1 else []
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]


@st.composite
def streams(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A response body and the stream of events the API would send for it, fragments drawn at random."""
    body, _ = draw(responses_and_messages())
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
            deltas = [{"type": "text_delta", "text": t} for t in _split(draw, block["text"])]
            deltas += [{"type": "citations_delta", "citation": c} for c in block.get("citations", [])]
        elif kind == "thinking":
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": t} for t in _split(draw, block["thinking"])]
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif kind in ("tool_use", "server_tool_use"):
            start = {**block, "input": {}}
            deltas = [{"type": "input_json_delta", "partial_json": t} for t in _split(draw, json_text(block["input"]))]
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


@LAWS
@given(streams(), st.integers(1, 40))
def test_stream_parity(pair: tuple[dict[str, Any], list[dict[str, Any]]], chunk: int) -> None:
    """Events, or their SSE bytes cut anywhere, accumulate to the non-streamed message and the SDK's."""
    body, events = pair
    whole = comparable(anthropic.from_wire(body))
    assert comparable(accumulate(anthropic.stream(events))) == whole
    raw = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
    assert comparable(accumulate(anthropic.stream([raw[i:i + chunk] for i in range(0, len(raw), chunk)]))) == whole
    assert comparable(anthropic.from_wire(_sdk_final(events).to_dict(mode="json", warnings=False))) == whole


# -- any history -----------------------------------------------------------------------------------


@LAWS
@given(histories())
def test_any_history_projects_and_reimports_to_the_same_request(history: list[HistoryEvent]) -> None:
    """Every history projects; the request it gives imports and projects back to itself."""
    first = anthropic.to_wire(history, model=MODEL)
    again = anthropic.from_wire_request(first.request)
    second = anthropic.to_wire(again.history, **again.to_wire_kwargs())
    assert second.request == first.request
    assert second.losses == ()


def _strings(value: Any) -> set[str]:
    """Every string value in a JSON value."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


def _marks(part: Any) -> set[str]:
    """Strings of which at least one is on the wire when ``part`` was sent."""
    match part:
        case TextPart() | RefusalPart():
            return {part.text}
        case ThinkingPart():
            return {part.signature.value} if part.signature is not None else {part.text}
        case RedactedThinkingPart():
            return {part.data.value}
        case ToolCallPart():
            return {part.id, *part.provider_ids.values()}
        case ServerToolCallPart():
            return {part.id}
        case ServerToolResultPart():
            return {part.name}
        case UnknownPart():
            kind = part.raw.get("type") if isinstance(part.raw, dict) else None
            return {kind} if isinstance(kind, str) else set()
        case ImagePart() | DocumentPart() | AudioPart():
            source = part.source
            found = {v for k, v in source.__dict__.items() if isinstance(v, str) and k != "type"}
            if isinstance(source, Base64Source):
                found.add(base64.b64decode(source.data).decode("utf-8", errors="replace"))
            return found
    raise AssertionError(f"no marks for {part!r}")


@LAWS
@given(histories())
def test_every_part_arrives_or_a_loss_names_it(history: list[HistoryEvent]) -> None:
    """Cross-provider law: whatever is not on the wire is in the loss list (DESIGN §11.5)."""
    projection = anthropic.to_wire(history, model=MODEL)
    on_wire = _strings(projection.request)
    lost = {loss.path for loss in projection.losses}
    for i, event in enumerate(history):
        if f"history[{i}]" in lost:
            continue
        if isinstance(event, ToolMessage):
            assert event.output_text in on_wire or not event.output_text, f"history[{i}] output"
        for j, part in enumerate(getattr(event, "parts", ())):
            where = f"history[{i}].parts[{j}]"
            if where in lost or any(p.startswith(where + ".") for p in lost):
                continue
            assert _marks(part) & on_wire, f"{where} ({part.type}) did not arrive and no loss says so"


@LAWS
@given(histories())
def test_strict_refuses_exactly_the_lossy_histories(history: list[HistoryEvent]) -> None:
    """strict=True raises when, and only when, the lenient projection reports a loss."""
    lenient = anthropic.to_wire(history, model=MODEL)
    if lenient.losses:
        with pytest.raises(LossError) as caught:
            anthropic.to_wire(history, model=MODEL, strict=True)
        assert caught.value.losses == lenient.losses
    else:
        assert anthropic.to_wire(history, model=MODEL, strict=True).request == lenient.request


def test_usage_strategy_is_normalised() -> None:
    """The responses above carry usage the way from_wire normalises it (a guard on the strategy)."""
    usage = usage_from_wire({"input_tokens": 1, "output_tokens": 2, "cache_read_input_tokens": 3})
    assert usage == Usage(input_tokens=4, output_tokens=2, cache_read_tokens=3)
