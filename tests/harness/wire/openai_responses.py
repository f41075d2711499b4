"""The Responses half of the shared wire laws: output items, event streams, the SDK's accumulator."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st
from openai import omit
from openai._models import construct_type_unchecked
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types.responses import ResponseStreamEvent

from partwire import AssistantMessage, Part
from partwire.adapters import openai_responses
from partwire.adapters.openai_responses._request import chain_start
from partwire.history import HistoryEvent
from tests.harness.laws import (
    ARGUMENT_TEXTS,
    NAMES,
    WireLaws,
    default_view,
    without_parsed,
)

__all__ = ["LAWS"]

MODEL = "gpt-5.5"

_text = st.text(max_size=20)
_ident = st.from_regex(r"[a-f0-9]{8,24}", fullmatch=True)


@st.composite
def _reasoning(draw: st.DrawFn) -> dict[str, Any]:
    item: dict[str, Any] = {"id": f"rs_{draw(_ident)}", "type": "reasoning"}
    if draw(st.booleans()):
        item["encrypted_content"] = "gAAAA" + draw(_ident)
    item["summary"] = [{"type": "summary_text", "text": t}
                       for t in draw(st.lists(_text, max_size=2))]
    return item


@st.composite
def _message(draw: st.DrawFn) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 2))):
        if draw(st.integers(0, 4)) == 0:
            content.append({"type": "refusal", "refusal": draw(_text)})
            continue
        text = draw(_text)
        annotations: list[dict[str, Any]] = []
        if text and draw(st.booleans()):
            annotations.append({"type": "url_citation", "end_index": len(text), "start_index": 0,
                                "title": draw(_text), "url": f"https://example.com/{draw(_ident)}"})
        content.append({"type": "output_text", "annotations": annotations, "logprobs": [], "text": text})
    item: dict[str, Any] = {"id": f"msg_{draw(_ident)}", "type": "message", "status": "completed",
                            "content": content}
    phase = draw(st.sampled_from([None, "commentary", "final_answer"]))
    if phase is not None:
        item["phase"] = phase
    item["role"] = "assistant"
    return item


@st.composite
def _call(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.integers(0, 5)) == 0:
        return {"id": f"ctc_{draw(_ident)}", "type": "custom_tool_call", "call_id": f"call_{draw(_ident)}",
                "input": draw(_text), "name": draw(NAMES)}
    return {"id": f"fc_{draw(_ident)}", "type": "function_call", "status": "completed",
            "arguments": draw(ARGUMENT_TEXTS), "call_id": f"call_{draw(_ident)}", "name": draw(NAMES)}


def _server_item(ident: str) -> dict[str, Any]:
    return {"id": f"ws_{ident}", "type": "web_search_call", "status": "completed",
            "action": {"type": "search", "query": "weather"}}


def _unique(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items with distinct ids and call ids, as one response has them."""
    out = []
    for n, item in enumerate(items):
        prefix, _, rest = item["id"].partition("_")
        item = {**item, "id": f"{prefix}_{n:02d}{rest}"}
        if "call_id" in item:
            item["call_id"] = f"call_{n:02d}{item['call_id'][5:]}"
        out.append(item)
    return out


output_items = st.lists(st.one_of(_reasoning(), _message(), _call(), _ident.map(_server_item)),
                        min_size=1, max_size=5).map(_unique)


def response(output: list[dict[str, Any]], status: str = "completed") -> dict[str, Any]:
    """A response object holding ``output``."""
    return {"id": "resp_law", "object": "response", "created_at": 1767225620, "status": status,
            "model": "gpt-5.5-2026-04-23", "output": output,
            "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                      "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                      "output_tokens_details": {"reasoning_tokens": 0}}}


@st.composite
def streamed(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A final response and the stream of events that carries it, its deltas cut anywhere."""
    output = draw(output_items)
    final = response(output)

    def pieces(text: str) -> list[str]:
        cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=3)))
        return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True) if text[a:b]]

    events: list[dict[str, Any]] = []
    start = {**final, "status": "in_progress", "output": [], "usage": None}
    events.append({"type": "response.created", "response": start})
    for index, item in enumerate(output):
        kind = item["type"]
        where = {"output_index": index, "item_id": item["id"]}
        if kind == "message":
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": {**item, "status": "in_progress", "content": []}})
            for n, part in enumerate(item["content"]):
                empty = {**part, "text": "", "annotations": []} if part["type"] == "output_text" \
                    else {**part, "refusal": ""}
                events.append({"type": "response.content_part.added", **where, "content_index": n,
                               "part": empty})
                if part["type"] == "output_text":
                    events += [{"type": "response.output_text.delta", **where, "content_index": n,
                                "delta": p, "logprobs": []} for p in pieces(part["text"])]
                else:
                    events += [{"type": "response.refusal.delta", **where, "content_index": n,
                                "delta": p} for p in pieces(part["refusal"])]
                events.append({"type": "response.content_part.done", **where, "content_index": n,
                               "part": part})
        elif kind == "reasoning":
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": {"id": item["id"], "type": "reasoning", "summary": []}})
            for n, entry in enumerate(item["summary"]):
                events.append({"type": "response.reasoning_summary_part.added", **where,
                               "summary_index": n, "part": {"type": "summary_text", "text": ""}})
                events += [{"type": "response.reasoning_summary_text.delta", **where, "summary_index": n,
                            "delta": p} for p in pieces(entry["text"])]
        elif kind == "function_call":
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": {**item, "status": "in_progress", "arguments": ""}})
            events += [{"type": "response.function_call_arguments.delta", **where, "delta": p}
                       for p in pieces(item["arguments"])]
        elif kind == "custom_tool_call":
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": {**item, "input": ""}})
            events += [{"type": "response.custom_tool_call_input.delta", **where, "delta": p}
                       for p in pieces(item["input"])]
        else:
            events.append({"type": "response.output_item.added", "output_index": index,
                           "item": {**item, "status": "in_progress"} if "status" in item else item})
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append({"type": "response.completed", "response": final})
    return final, [{**e, "sequence_number": n} for n, e in enumerate(events)]




def _response_for(message: AssistantMessage, variant: str = "") -> dict[str, Any]:
    """The response whose output is ``message`` as ``to_wire`` writes it back."""
    projection = openai_responses.to_wire([message], model=MODEL)
    assert projection.losses == (), projection.losses
    return response(projection.request["input"])


def _sdk_final(events: list[dict[str, Any]]) -> Any:
    """The SDK's ResponseStreamState fed the events: its completed response, as the wire has it."""
    state: ResponseStreamState[Any] = ResponseStreamState(input_tools=omit, text_format=omit)
    for event in events:
        state.handle_event(construct_type_unchecked(type_=ResponseStreamEvent, value=event))  # type: ignore[arg-type]
    assert state._completed_response is not None
    theirs = json.loads(state._completed_response.to_json())

    return without_parsed(theirs)


def _view(part: Part, event: HistoryEvent) -> dict[str, Any] | None:
    """A part as the model is told it: an image's detail is ``auto`` unless set (message content
    requires one, and it is the API's own default). An empty answer text counts too: the
    encoder drops it, and must say so."""
    data = default_view(part, event)
    if data is None:
        return None
    if data.get("type") == "image" and data.get("detail") is None:
        data["detail"] = "auto"
    return data


LAWS = WireLaws(
    messages=lambda variant: output_items.map(lambda output: openai_responses.from_wire(response(output))),
    response_for=_response_for,
    streams=lambda variant: streamed(),
    # The continuation modes: every item sent (stateless), only what follows the last response
    # (chained), or the store off and no reasoning echo (none).
    variants=("stateless", "chained", "none"),
    options=lambda variant: {"continuation": variant},
    first_sent=lambda history, variant: chain_start(history, {"openai"})[0] if variant == "chained" else 0,
    model=MODEL,
    sdk_final=_sdk_final,
    view=_view,
    foreign_issuers=frozenset({"openai"}),
)
"""The Responses wire laws."""
