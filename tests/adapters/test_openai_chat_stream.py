"""Unit tests of Chat Completions streaming: deltas by choice and tool-call index, usage, errors."""

from __future__ import annotations

import json
from typing import Any

from partwire import RefusalPart, TextPart, ToolCallPart
from partwire.adapters import openai_chat
from partwire.streaming import (
    MessageCompleteEvent,
    StreamErrorEvent,
    StreamEvent,
    TextDeltaEvent,
    ToolCallStartEvent,
    accumulate,
)


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, *, index: int = 0,
          **top: Any) -> dict[str, Any]:
    """One chunk with one choice."""
    choices = [] if delta is None else [{"index": index, "delta": delta, "finish_reason": finish}]
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-5.5",
            "choices": choices, **top}


def sse(chunks: list[dict[str, Any]], *, done: bool = True) -> bytes:
    """The raw SSE body of chunks."""
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return (body + ("data: [DONE]\n\n" if done else "")).encode()


def calls_of(events: list[StreamEvent]) -> list[ToolCallPart]:
    """The tool calls of the message a stream built."""
    return [p for p in accumulate(events).parts if isinstance(p, ToolCallPart)]


def test_text_then_tool_call_fragments() -> None:
    """Text deltas and a call whose arguments arrive in pieces build one message."""
    events = list(openai_chat.stream([
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Let me "}), chunk({"content": "check."}),
        chunk({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                               "function": {"name": "get", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"a"'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": ":1}"}}]}),
        chunk({}, "tool_calls"),
    ]))
    message = accumulate(events)
    assert message.parts[0] == TextPart(text="Let me check.")
    call = message.parts[1]
    assert isinstance(call, ToolCallPart)
    assert (call.name, call.arguments_json, call.provider_ids) == ("get", '{"a":1}', {"openai": "call_1"})
    assert (message.status, message.stop_reason, message.stop_reason_raw) == ("complete", "tool_use", "tool_calls")


def test_repeated_ids_and_names_are_not_concatenated() -> None:
    """A server repeating the id and name in every fragment gets them once (the SDK would concatenate)."""
    frags = [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": p}}
             for p in ('{"x"', ": 1", "}")]
    calls = calls_of(list(openai_chat.stream([chunk({"tool_calls": [f]}) for f in frags] + [
        chunk({}, "tool_calls")])))
    assert [(c.name, c.provider_ids, c.arguments_json) for c in calls] == [("f", {"openai": "call_1"}, '{"x": 1}')]


def test_parallel_calls_by_index() -> None:
    """Fragments of two calls are kept apart by their index, in the order the calls started."""
    stream = [
        chunk({"tool_calls": [{"index": 0, "id": "a", "type": "function", "function": {"name": "f", "arguments": "{"}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "b", "type": "function", "function": {"name": "g", "arguments": "["}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": "}"}}]}),
        chunk({"tool_calls": [{"index": 1, "function": {"arguments": "]"}}]}),
        chunk({}, "tool_calls"),
    ]
    assert [(c.name, c.arguments_json) for c in calls_of(list(openai_chat.stream(stream)))] == [
        ("f", "{}"), ("g", "[]")]


def test_whole_calls_without_an_index() -> None:
    """Calls sent whole and without an index (older Ollama) are still separate calls."""
    stream = [chunk({"tool_calls": [{"id": "call_a", "function": {"name": "f", "arguments": "{}"}}]}),
              chunk({"tool_calls": [{"id": "call_b", "function": {"name": "g", "arguments": "{}"}}]}),
              chunk({}, "stop")]
    calls = calls_of(list(openai_chat.stream(stream, dialect="ollama")))
    assert [(c.name, c.provider_ids) for c in calls] == [("f", {"ollama": "call_a"}), ("g", {"ollama": "call_b"})]


def test_calls_without_ids_get_distinct_canonical_ids() -> None:
    """Streamed calls without an id get their own canonical ids and no provider id."""
    stream = [chunk({"tool_calls": [{"index": i, "function": {"name": "f", "arguments": "{}"}}]}) for i in (0, 1)]
    events = list(openai_chat.stream([*stream, chunk({}, "tool_calls")]))
    starts = [e for e in events if isinstance(e, ToolCallStartEvent)]
    assert len({s.id for s in starts}) == 2
    assert all(not s.provider_ids for s in starts)


def test_a_name_after_the_first_fragment_is_waited_for() -> None:
    """A call whose name comes after some arguments starts once named, its arguments intact."""
    stream = [chunk({"tool_calls": [{"index": 0, "id": "c", "function": {"arguments": '{"a":'}}]}),
              chunk({"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": "1}"}}]}),
              chunk({}, "tool_calls")]
    assert [(c.name, c.arguments_json) for c in calls_of(list(openai_chat.stream(stream)))] == [("f", '{"a":1}')]


def test_usage_only_chunk_sets_the_usage() -> None:
    """The final usage-only chunk (include_usage) gives the message its usage."""
    message = accumulate(openai_chat.stream([
        chunk({"content": "hi"}), chunk({}, "stop"),
        chunk(None, usage={"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11,
                           "prompt_tokens_details": {"cached_tokens": 4}}),
    ]))
    assert message.usage is not None
    assert (message.usage.input_tokens, message.usage.output_tokens, message.usage.cache_read_tokens) == (9, 2, 4)


def test_mid_stream_error_gives_error_event_and_partial_message() -> None:
    """A {"error": ...} chunk becomes one error event and the partial message with status error."""
    events = list(openai_chat.stream(sse([chunk({"content": "Once upon"})], done=False) + (
        b'data: {"error": {"message": "Overloaded", "type": "server_error", "param": null, "code": null}}\n\n')))
    errors = [e for e in events if isinstance(e, StreamErrorEvent)]
    assert len(errors) == 1
    assert (errors[0].error.code, errors[0].error.message, errors[0].error.retryable) == (
        "server_error", "Overloaded", True)
    message = accumulate(events)
    assert (message.status, message.stop_reason, message.parts) == ("error", "error", (TextPart(text="Once upon"),))
    assert isinstance(events[-1], MessageCompleteEvent)


def test_error_chunk_with_choices_is_an_error() -> None:
    """An error chunk that also carries choices (OpenRouter) is an error all the same."""
    events = list(openai_chat.stream([
        chunk({"content": "a"}),
        {**chunk({"content": ""}, "error"), "error": {"code": 502, "message": "upstream"}},
    ], dialect="openrouter"))
    error = next(e for e in events if isinstance(e, StreamErrorEvent)).error
    assert (error.code, error.status, error.retryable, error.provider) == ("502", 502, True, "openrouter")


def test_cut_short_stream_is_partial_and_done_is_complete() -> None:
    """Without finish_reason or [DONE] the message is partial; [DONE] alone completes it."""
    cut = accumulate(openai_chat.stream(sse([chunk({"content": "half"})], done=False)))
    assert cut.status == "partial"
    done = accumulate(openai_chat.stream(sse([chunk({"content": "all"})], done=True)))
    assert done.status == "complete"
    assert done.stop_reason is None


def test_raw_sse_split_anywhere_with_comments() -> None:
    """Raw bytes split at every byte, with comment lines and CRLF, give the same message."""
    body = (b": OPENROUTER PROCESSING\r\n\r\n" + sse([chunk({"content": "h\u00e9llo"}), chunk({}, "stop")])
            .replace(b"\n", b"\r\n"))
    message = accumulate(openai_chat.stream(iter(body[i:i + 1] for i in range(len(body)))))
    assert message.parts == (TextPart(text="h\u00e9llo"),)
    assert message.status == "complete"


def test_only_the_chosen_choice_is_followed() -> None:
    """With n > 1, deltas of other choices are ignored; choice= picks one."""
    stream = [chunk({"content": "zero"}), chunk({"content": "one"}, index=1),
              chunk({}, "stop"), chunk({}, "stop", index=1)]
    assert accumulate(openai_chat.stream(stream)).text == "zero"
    assert accumulate(openai_chat.stream(stream, choice=1)).text == "one"


def test_refusal_deltas_build_one_refusal() -> None:
    """Refusal deltas build one refusal part; the stop reason is refusal."""
    message = accumulate(openai_chat.stream([
        chunk({"role": "assistant", "content": None, "refusal": ""}), chunk({"refusal": "I can't "}),
        chunk({"refusal": "help."}), chunk({}, "stop")]))
    assert message.parts == (RefusalPart(text="I can't help."),)
    assert message.stop_reason == "refusal"


def test_custom_tool_input_streams_as_wrapped_json() -> None:
    """A custom tool's input fragments accumulate to the same {"input": text} as the whole response."""
    stream = [chunk({"tool_calls": [{"index": 0, "id": "c", "type": "custom", "custom": {"name": "sql", "input": 'SELECT "'}}]}),
              chunk({"tool_calls": [{"index": 0, "type": "custom", "custom": {"input": 'x"\n'}}]}),
              chunk({}, "tool_calls")]
    call = calls_of(list(openai_chat.stream(stream)))[0]
    assert call.arguments == {"input": 'SELECT "x"\n'}
    whole = openai_chat.from_wire({"id": "x", "model": "m", "choices": [{"index": 0, "finish_reason": "tool_calls",
        "message": {"role": "assistant", "tool_calls": [
            {"id": "c", "type": "custom", "custom": {"name": "sql", "input": 'SELECT "x"\n'}}]}}]})
    assert whole.parts[0].arguments_json == call.arguments_json  # type: ignore[union-attr]


def test_legacy_function_call_streams_as_a_call() -> None:
    """The deprecated delta.function_call streams as one tool call."""
    stream = [chunk({"function_call": {"name": "f", "arguments": "{"}}), chunk({"function_call": {"arguments": "}"}}),
              chunk({}, "function_call")]
    calls = calls_of(list(openai_chat.stream(stream)))
    assert [(c.name, c.arguments_json) for c in calls] == [("f", "{}")]


def test_azure_empty_chunks_are_harmless() -> None:
    """Chunks without choices (Azure's filter results, object "") change nothing."""
    message = accumulate(openai_chat.stream([
        {"id": "", "object": "", "created": 0, "model": "", "choices": [], "prompt_filter_results": []},
        chunk({"content": "ok"}), chunk({}, "stop")]))
    assert message.text == "ok"
    assert message.status == "complete"


def test_sdk_error_exception_becomes_an_error_event() -> None:
    """The SDK raises APIError at an error chunk; the adapter turns its body into an error event."""
    import httpx2
    import openai

    def sdk_stream() -> Any:
        yield chunk({"content": "so far"})
        raise openai.APIError("boom", httpx2.Request("POST", "https://api.openai.com/v1/chat/completions"),
                              body={"message": "boom", "type": "server_error", "param": None, "code": None})

    events = list(openai_chat.stream(sdk_stream()))
    assert any(isinstance(e, StreamErrorEvent) for e in events)
    assert accumulate(events).text == "so far"


async def test_astream_over_an_async_byte_source() -> None:
    """astream reads an asynchronous source of raw SSE bytes."""
    async def source() -> Any:
        for piece in (sse([chunk({"content": "a"})], done=False), sse([chunk({}, "stop")])):
            yield piece

    events = [e async for e in openai_chat.astream(source())]
    assert accumulate(events).text == "a"
    assert [type(e) for e in events if isinstance(e, TextDeltaEvent)] == [TextDeltaEvent]


def test_a_stretch_the_content_filter_tripped_stays_tripped() -> None:
    """Azure's per-chunk filter results add up over the stream: a category one stretch tripped
    stays tripped, later safe stretches add their categories, and the finish chunk's empty
    results wipe nothing (the whole response gives one verdict for the completion)."""
    safe = {"filtered": False, "severity": "safe"}
    tripped = {"filtered": True, "severity": "medium"}
    chunks = [
        {"choices": [], "id": "", "model": "", "created": 0, "object": "",
         "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {"hate": safe}}]},
        {**chunk({"content": "a"}), "choices": [{"index": 0, "delta": {"content": "a"},
                                                 "finish_reason": None, "content_filter_results": {"violence": tripped}}]},
        {**chunk({"content": "b"}), "choices": [{"index": 0, "delta": {"content": "b"},
                                                 "finish_reason": None,
                                                 "content_filter_results": {"violence": safe, "hate": safe}}]},
        {**chunk({}), "choices": [{"index": 0, "delta": {}, "finish_reason": "content_filter",
                                   "content_filter_results": {}}]},
    ]
    message = accumulate(openai_chat.stream(chunks))
    assert message.stop_reason == "content_filter"
    assert message.response_id == "chatcmpl-1"
    assert message.model == "openai:gpt-5.5"
    assert message.provider_data is not None
    data: Any = message.provider_data.data
    assert data["choice"] == {"content_filter_results": {"violence": tripped, "hate": safe}}
    assert data["response"]["prompt_filter_results"] == chunks[0]["prompt_filter_results"]
