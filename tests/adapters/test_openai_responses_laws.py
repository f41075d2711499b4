"""The laws of DESIGN §11 for the Responses adapter, as hypothesis properties.

- Echo: any output the API can give decodes to a message whose projection gives the same items
  back, and those items decode to the same message again.
- Import: ``to_wire(from_wire_request(r)).request == r`` for every request ``to_wire`` makes from
  any history (the corpus requests are in ``test_openai_responses_corpus``).
- Stream parity: the stream of any response, its deltas cut anywhere, accumulates to what
  ``from_wire`` gives for the final response, and to what it gives for the SDK's own
  accumulation of the same events (``ResponseStreamState``).
- Cross-provider: any history from elsewhere projects to a request the SDK's
  ``ResponseCreateParams`` accepts, and every part that does not come back from that request is
  in the loss list.
"""

from __future__ import annotations

import json
import os
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai import omit
from openai._models import construct_type_unchecked
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types.responses import ResponseStreamEvent
from pydantic import BaseModel

from partwire import (
    AssistantMessage,
    DeveloperMessage,
    HistoryEvent,
    Part,
    SystemMessage,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UserMessage,
)
from partwire.adapters import openai_responses
from partwire.streaming import accumulate
from tests.harness.compare import comparable
from tests.harness.validity import request_errors
from tests.strategies import histories

LAWS = settings(max_examples=int(os.environ.get("PARTWIRE_LAW_EXAMPLES", "60")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

# -- output items as the API gives them ------------------------------------------------------------

_text = st.text(max_size=20)
_ident = st.from_regex(r"[a-f0-9]{8,24}", fullmatch=True)
_names = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_-]{0,15}", fullmatch=True)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6)
_arguments = st.dictionaries(st.text(max_size=8), _json, max_size=4).map(
    lambda d: json.dumps(d, ensure_ascii=False, separators=(",", ":"))) | st.text(max_size=20)


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
                "input": draw(_text), "name": draw(_names)}
    return {"id": f"fc_{draw(_ident)}", "type": "function_call", "status": "completed",
            "arguments": draw(_arguments), "call_id": f"call_{draw(_ident)}", "name": draw(_names)}


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


# -- echo ----------------------------------------------------------------------------------------


@LAWS
@given(output_items)
def test_echo(output: list[dict[str, Any]]) -> None:
    """Decoded output projects back to exactly its items, losslessly, and they decode to the same message."""
    message = openai_responses.from_wire(response(output))
    projection = openai_responses.to_wire([message], model="gpt-5.5")
    assert projection.losses == ()
    assert projection.request["input"] == output
    again = openai_responses.from_wire(response(projection.request["input"]))
    assert comparable(again) == comparable(message)


# -- import --------------------------------------------------------------------------------------


@LAWS
@given(histories(max_turns=4), st.sampled_from(["stateless", "chained", "none"]))
def test_import_gives_back_every_request_to_wire_makes(history: list[HistoryEvent], mode: str) -> None:
    """Re-importing a projected request projects to the same request, whatever the history held."""
    first = openai_responses.to_wire(history, model="gpt-5.5", continuation=mode).request
    imported = openai_responses.from_wire_request(first)
    again = openai_responses.to_wire(imported.history, **imported.to_wire_kwargs())
    assert again.request == first
    assert again.losses == ()


# -- stream parity -------------------------------------------------------------------------------


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


@LAWS
@given(streamed())
def test_stream_parity(case: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    """Any stream of a response accumulates to the message from_wire gives for the final response."""
    final, events = case
    ours = accumulate(openai_responses.stream(events))
    assert ours.status == "complete"
    assert comparable(ours) == comparable(openai_responses.from_wire(final))


@LAWS
@given(streamed())
def test_stream_parity_with_the_sdk_accumulator(case: tuple[dict[str, Any], list[dict[str, Any]]]) -> None:
    """Our stream and the SDK's ResponseStreamState accumulate the same events to one message."""
    _, events = case
    state: ResponseStreamState[Any] = ResponseStreamState(input_tools=omit, text_format=omit)
    for event in events:
        state.handle_event(construct_type_unchecked(type_=ResponseStreamEvent, value=event))  # type: ignore[arg-type]
    assert state._completed_response is not None
    theirs = json.loads(state._completed_response.to_json())

    def plain(value: Any) -> Any:  # the SDK's parsed types add parsed* keys the wire never has
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items() if not k.startswith("parsed")}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value

    ours = accumulate(openai_responses.stream(events))
    assert comparable(ours) == comparable(openai_responses.from_wire(plain(theirs)))


# -- cross-provider ------------------------------------------------------------------------------


def _foreign(history: list[HistoryEvent]) -> list[HistoryEvent]:
    """The history with everything OpenAI issued re-issued by another provider."""
    def clean(value: Any) -> Any:
        if isinstance(value, list | tuple):
            return type(value)(clean(v) for v in value)
        if isinstance(value, dict):
            return {("elsewhere" if k == "openai" else k): clean(v) for k, v in value.items()}
        if not isinstance(value, BaseModel):
            return value
        changes = {name: clean(getattr(value, name)) for name in type(value).model_fields}
        if changes.get("issuer") == "openai":
            changes["issuer"] = "elsewhere"
        return value.model_copy(update=changes)
    return [clean(e) for e in history]


def _views(history: list[HistoryEvent] | tuple[HistoryEvent, ...]) -> list[tuple[str, Any]]:
    """(path, view) of every part and tool output, viewed as what a model would be told."""
    out: list[tuple[str, Any]] = []
    for i, event in enumerate(history):
        if isinstance(event, ToolMessage):
            told = event.output_text or (json.dumps(event.data, ensure_ascii=False)
                                         if event.data is not None else "")
            out.append((f"history[{i}]", json.dumps(["tool_output", told])))
        if isinstance(event, SystemMessage | DeveloperMessage | UserMessage | AssistantMessage | ToolMessage):
            for j, part in enumerate(event.parts):
                if isinstance(part, ThinkingPart) and not part.text and part.signature is None:
                    continue  # says nothing: not sent, and not a loss
                if getattr(part, "type", None) == "text" and not part.text and isinstance(  # type: ignore[union-attr]
                        event, AssistantMessage):
                    continue  # an empty answer text says nothing: not sent
                out.append((f"history[{i}].parts[{j}]", _view(part)))
    return out


def _view(part: Part) -> str:
    """What a part tells the model: its kind and content, not ids, media types or echo state."""
    data = {name: getattr(part, name) for name in type(part).model_fields
            if name not in ("provider_data", "provider_ids", "id", "signature", "media_type", "citations")}
    if data.get("type") == "image" and data.get("detail") is None:
        data["detail"] = "auto"  # message content requires a detail; "auto" is the API's own default
    return json.dumps(data, sort_keys=True, default=lambda v: v.model_dump(mode="json"))


@LAWS
@given(histories(max_turns=4))
def test_cross_provider_request_is_valid_and_every_difference_is_a_loss(history: list[HistoryEvent]) -> None:
    """A history from elsewhere projects to a valid request; what does not come back is a reported loss."""
    history = _foreign(history)
    projection = openai_responses.to_wire(history, model="gpt-5.5")
    assert request_errors("openai_responses", projection.request) == []
    back = openai_responses.from_wire_request(projection.request).history
    arrived = [view for _, view in _views(back)]
    lost = {loss.path for loss in projection.losses}
    for path, view in _views(history):
        if view in arrived:
            arrived.remove(view)
            continue
        assert any(path == p or path.startswith(p + ".") or p.startswith(path + ".") for p in lost), (
            f"{path} ({view}) did not arrive and no loss says so; losses: {sorted(lost)}")


def test_tool_calls_of_foreign_histories_get_canonical_ids() -> None:
    """A foreign call goes out under its canonical id, named as id_mapped, and its result points at it."""
    call = ToolCallPart.create("read_file", {"path": "a"}, provider_ids={"elsewhere": "x_1"})
    projection = openai_responses.to_wire(
        [UserMessage("q"), AssistantMessage([call]), ToolMessage(call_id=call.id, tool_name="read_file",
                                                                 output_text="ok")], model="gpt-5.5")
    assert [i.get("call_id") for i in projection.request["input"]] == [None, call.id, call.id]
    assert [loss.action for loss in projection.losses] == ["id_mapped"]
