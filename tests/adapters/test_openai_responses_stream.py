"""The Responses stream translator on hand-made event sequences (wire reference B.3).

Every case checks the folded message, and where a whole response exists, that the stream gives
what ``from_wire`` gives for it (the stream-parity law).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from partwire import Opaque, TextPart, ThinkingPart, ToolCallPart
from partwire.adapters import openai_responses
from partwire.streaming import (
    Accumulator,
    MessageCompleteEvent,
    MessageStartEvent,
    StreamErrorEvent,
    ThinkingDeltaEvent,
    aaccumulate,
    accumulate,
)
from tests.harness.compare import comparable

SSE_E = Path(__file__).resolve().parents[1] / "harness" / "responses" / "openai_responses" / "wire_examples" / "resp_sse_e.txt"


def response(status: str = "completed", output: list[Any] | None = None, **more: Any) -> dict[str, Any]:
    """A response object as stream lifecycle events carry it."""
    return {"id": "resp_s", "object": "response", "created_at": 1767225620, "model": "gpt-5.5",
            "status": status, "output": output if output is not None else [], "usage": None, **more}


def lifecycle(*events: dict[str, Any], end: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """``response.created``, the given events, then ``end`` (when given), numbered."""
    out = [{"type": "response.created", "response": response("in_progress")}, *events]
    if end is not None:
        out.append(end)
    return [{**e, "sequence_number": n} for n, e in enumerate(out)]


MESSAGE = {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
           "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": "Hello there"}]}


def text_events(text_parts: tuple[str, ...] = ("Hello", " there")) -> list[dict[str, Any]]:
    """One message item streaming its text in pieces."""
    return [
        {"type": "response.output_item.added", "output_index": 0,
         "item": {**MESSAGE, "status": "in_progress", "content": []}},
        {"type": "response.content_part.added", "item_id": "msg_1", "output_index": 0, "content_index": 0,
         "part": {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}},
        *({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0,
           "delta": piece, "logprobs": []} for piece in text_parts),
    ]


def test_one_identity_from_start_to_completion() -> None:
    """The start event's message id and time are the completed message's, and a UI's snapshot's."""
    events = list(openai_responses.stream(SSE_E.read_bytes()))
    start = next(e for e in events if isinstance(e, MessageStartEvent))
    ui = Accumulator()
    for event in events[:5]:
        ui.feed(event)
    final = events[-1]
    assert isinstance(final, MessageCompleteEvent)
    assert (final.message.id, final.message.created_at) == (start.message_id, start.created_at)
    assert (ui.message.id, ui.message.created_at) == (start.message_id, start.created_at)


def test_sse_cut_anywhere_gives_the_same_message() -> None:
    """Raw SSE bytes cut into 1-, 7- and 300-byte pieces accumulate to the same message."""
    raw = SSE_E.read_bytes()
    whole = comparable(accumulate(openai_responses.stream(raw)))
    for size in (1, 7, 300):
        pieces = [raw[i:i + size] for i in range(0, len(raw), size)]
        assert comparable(accumulate(openai_responses.stream(pieces))) == whole


async def test_astream_over_an_async_source() -> None:
    """astream over an async iterator of parsed events gives what stream gives."""
    events = lifecycle(*text_events(), end={"type": "response.completed", "response": response(output=[MESSAGE])})

    async def source() -> AsyncIterator[dict[str, Any]]:
        for event in events:
            yield event

    streamed = await aaccumulate(openai_responses.astream(source()))
    assert comparable(streamed) == comparable(accumulate(openai_responses.stream(events)))
    assert streamed.text == "Hello there"


def test_stream_cut_short_keeps_what_arrived() -> None:
    """A stream with no terminal event ends with the partial text and the call fragments so far."""
    call_added = {"type": "response.output_item.added", "output_index": 1, "item": {
        "id": "fc_1", "type": "function_call", "status": "in_progress", "call_id": "call_1",
        "name": "get_weather", "arguments": ""}}
    fragment = {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 1,
                "delta": '{"city": "Par'}
    message = accumulate(openai_responses.stream(lifecycle(*text_events(), call_added, fragment)))
    assert message.status == "partial"
    assert message.parts[0] == TextPart(text="Hello there")
    call = message.parts[1]
    assert isinstance(call, ToolCallPart)
    assert (call.arguments_json, call.provider_ids) == ('{"city": "Par', {"openai": "call_1"})


def test_error_event_keeps_the_text_and_reports_the_error() -> None:
    """A flat error event gives one error event, the text so far, status and stop reason error."""
    error = {"type": "error", "code": "server_error", "message": "boom", "param": None}
    events = list(openai_responses.stream(lifecycle(*text_events(("Hel",)), error)))
    errors = [e for e in events if isinstance(e, StreamErrorEvent)]
    assert [(e.error.code, e.error.retryable, e.error.provider) for e in errors] == [("server_error", True, "openai")]
    final = events[-1]
    assert isinstance(final, MessageCompleteEvent)
    assert (final.message.status, final.message.stop_reason, final.message.text) == ("error", "error", "Hel")


def test_nested_error_event_as_over_websocket() -> None:
    """The nested form {"type": "error", "error": {...}} is read too."""
    error = {"type": "error", "error": {"type": "invalid_request_error", "code": "rate_limit_exceeded",
                                        "message": "slow down"}}
    events = list(openai_responses.stream(lifecycle(error)))
    errors = [e for e in events if isinstance(e, StreamErrorEvent)]
    assert [(e.error.code, e.error.message) for e in errors] == [("rate_limit_exceeded", "slow down")]


def test_error_then_failed_reports_once_and_keeps_the_final_state() -> None:
    """An error event followed by response.failed gives one error event and the failed response's state."""
    failed = response("failed", output=[], error={"code": "server_error", "message": "boom"})
    events = list(openai_responses.stream(lifecycle(
        {"type": "error", "code": "server_error", "message": "boom"},
        end={"type": "response.failed", "response": failed})))
    assert len([e for e in events if isinstance(e, StreamErrorEvent)]) == 1
    message = events[-1].message  # type: ignore[union-attr]
    assert (message.status, message.stop_reason_raw) == ("error", "failed:server_error")
    assert comparable(message) == comparable(openai_responses.from_wire(failed))


def test_incomplete_response_stops_for_length() -> None:
    """response.incomplete for max_output_tokens ends the message with stop reason length."""
    end = {"type": "response.incomplete", "response": response(
        "incomplete", output=[MESSAGE], incomplete_details={"reason": "max_output_tokens"})}
    message = accumulate(openai_responses.stream(lifecycle(*text_events(), end=end)))
    assert (message.status, message.stop_reason, message.stop_reason_raw) == (
        "complete", "length", "incomplete:max_output_tokens")


def test_reasoning_summaries_and_the_done_copy_of_the_blob() -> None:
    """Summary parts stream as one thinking text; the blob is the done item's, not the added one's."""
    item = {"id": "rs_1", "type": "reasoning", "encrypted_content": "FULL",
            "summary": [{"type": "summary_text", "text": "one"}, {"type": "summary_text", "text": "two"}]}
    events = lifecycle(
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"id": "rs_1", "type": "reasoning", "encrypted_content": "PARTI", "summary": []}},
        *(e for n, text in enumerate(("one", "two")) for e in (
            {"type": "response.reasoning_summary_part.added", "item_id": "rs_1", "output_index": 0,
             "summary_index": n, "part": {"type": "summary_text", "text": ""}},
            {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0,
             "summary_index": n, "delta": text})),
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        end={"type": "response.completed", "response": response(output=[item])})
    streamed = list(openai_responses.stream(events))
    deltas = "".join(e.text for e in streamed if isinstance(e, ThinkingDeltaEvent))
    assert deltas == "one\n\ntwo"
    message = streamed[-1].message  # type: ignore[union-attr]
    assert message.parts == (ThinkingPart(text="one\n\ntwo", id="rs_1", signature=Opaque(value="FULL", issuer="openai")),)
    assert comparable(message) == comparable(openai_responses.from_wire(response(output=[item])))


def test_server_item_keeps_its_place_among_streamed_parts() -> None:
    """A web search item before a message stays first, though its events carry no text."""
    search = {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "q"}}
    shifted = [{**e, "output_index": 1} for e in text_events()]
    events = lifecycle(
        {"type": "response.output_item.added", "output_index": 0, "item": {**search, "status": "in_progress"}},
        {"type": "response.web_search_call.completed", "output_index": 0, "item_id": "ws_1"},
        {"type": "response.output_item.done", "output_index": 0, "item": search},
        *shifted,
        end={"type": "response.completed", "response": response(output=[search, MESSAGE])})
    message = accumulate(openai_responses.stream(events))
    assert [p.type for p in message.parts] == ["server_tool_call", "text"]
    assert comparable(message) == comparable(openai_responses.from_wire(response(output=[search, MESSAGE])))


def test_refusal_and_custom_input_grow_while_streaming() -> None:
    """A refusal is re-sent whole as it grows; a custom tool's input streams as its {"input"} arguments."""
    refusal_item = {"id": "msg_r", "type": "message", "status": "completed", "role": "assistant",
                    "content": [{"type": "refusal", "refusal": "No, sorry."}]}
    custom = {"id": "ctc_1", "type": "custom_tool_call", "call_id": "call_c", "input": 'print("hi")',
              "name": "python"}
    events = lifecycle(
        {"type": "response.output_item.added", "output_index": 0,
         "item": {**refusal_item, "status": "in_progress", "content": []}},
        {"type": "response.content_part.added", "item_id": "msg_r", "output_index": 0, "content_index": 0,
         "part": {"type": "refusal", "refusal": ""}},
        {"type": "response.refusal.delta", "item_id": "msg_r", "output_index": 0, "content_index": 0,
         "delta": "No, "},
        {"type": "response.refusal.delta", "item_id": "msg_r", "output_index": 0, "content_index": 0,
         "delta": "sorry."},
        {"type": "response.output_item.done", "output_index": 0, "item": refusal_item},
        {"type": "response.output_item.added", "output_index": 1, "item": {**custom, "input": ""}},
        {"type": "response.custom_tool_call_input.delta", "item_id": "ctc_1", "output_index": 1,
         "delta": 'print("'},
        {"type": "response.custom_tool_call_input.delta", "item_id": "ctc_1", "output_index": 1,
         "delta": 'hi")'},
        end={"type": "response.completed", "response": response(output=[refusal_item, custom])})
    ui = Accumulator()
    seen: list[Any] = []
    for event in openai_responses.stream(events):
        ui.feed(event)
        seen.append(ui.message.parts)
    assert any(parts and parts[0].text == "No, " for parts in seen)
    growing = [parts[1].arguments_json for parts in seen if len(parts) > 1]
    assert '{"input": "print(\\"' in growing
    final = ui.message
    assert comparable(final) == comparable(openai_responses.from_wire(response(output=[refusal_item, custom])))
    assert final.stop_reason == "tool_use"
