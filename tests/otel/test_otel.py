"""partwire.otel: histories as the GenAI span attributes of the pinned conventions, and back."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from partwire import (
    AssistantMessage,
    AudioPart,
    Base64Source,
    DocumentPart,
    HistoryEvent,
    ImagePart,
    Opaque,
    RefusalPart,
    ServerToolCallPart,
    ServerToolResultPart,
    SystemMessage,
    TextPart,
    TextSource,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UnknownEvent,
    UrlSource,
    Usage,
    UserMessage,
    WireFormatError,
    otel,
)
from partwire.adapters import anthropic
from partwire.cli._example import example_history
from partwire.errors import LossError
from partwire.messages import DeveloperMessage
from partwire.tools import ToolDefinition

_PART_DEFS = {"text": "TextPart", "tool_call": "ToolCallRequestPart",
              "tool_call_response": "ToolCallResponsePart", "blob": "BlobPart", "file": "FilePart",
              "uri": "UriPart", "reasoning": "ReasoningPart", "server_tool_call": "ServerToolCallPart",
              "server_tool_call_response": "ServerToolCallResponsePart"}


def assert_valid(attributes: dict[str, Any]) -> None:
    """Each attribute validates against its vendored schema, and each part against the definition
    of its own type (the schemas' unions also admit any part as a generic one)."""
    for name in otel.SCHEMAS:
        if name not in attributes:
            continue
        schema = otel.schema(name)
        jsonschema.validate(attributes[name], schema)
        messages = attributes[name] if name != "gen_ai.system_instructions" else [{"parts": attributes[name]}]
        for message in messages:
            for part in message.get("parts", ()):
                definition = _PART_DEFS.get(part["type"])
                if definition is not None and definition in schema["$defs"]:
                    jsonschema.validate(part, {"$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"})


def _call() -> list[HistoryEvent]:
    call = ToolCallPart.create("read_file", {"path": "README.md"})
    return [
        SystemMessage("You are terse."),
        UserMessage(["Read it.", ImagePart(source=Base64Source(data="iVBORw0KGgo="), media_type="image/png"),
                     ImagePart(source=UrlSource(url="https://example.com/a.png")),
                     AudioPart(source=Base64Source(data="UklGRg=="), media_type="audio/wav"),
                     DocumentPart(source=TextSource(text="notes"), media_type="text/plain")]),
        AssistantMessage([ThinkingPart(text="Look first."), call,
                          ServerToolCallPart(id="srv_1", name="web_search", input={"query": "partwire"},
                                             issuer="anthropic"),
                          ServerToolResultPart(call_id="srv_1", name="web_search_tool_result",
                                               output=[{"url": "https://example.com"}], issuer="anthropic")]),
        ToolMessage("# partwire", call_id=call.id, tool_name="read_file"),
        AssistantMessage([TextPart(text="It is a library."), RefusalPart(text="No more.")],
                         model="anthropic:claude-sonnet-4-6", provider="anthropic", stop_reason="stop",
                         response_id="msg_1", usage=Usage(input_tokens=120, output_tokens=30,
                                                          cache_read_tokens=100, reasoning_tokens=5)),
    ]


def _content(event: HistoryEvent) -> dict[str, Any]:
    """What a message says, without the ids and times a span does not carry."""
    return event.model_dump(mode="json", exclude={"id", "created_at"})


def test_the_bundled_example_validates_against_the_vendored_schemas() -> None:
    """Every attribute of the example session validates against the conventions' schemas."""
    result = otel.to_attributes(example_history())
    assert result.attributes["gen_ai.input.messages"]
    assert_valid(result.attributes)


def test_a_call_validates_and_comes_back_equal() -> None:
    """A history of parts the conventions hold crosses to the attributes and back unchanged."""
    history = _call()
    result = otel.to_attributes(history, tools=[
        ToolDefinition(name="read_file", description="Read a file.", side_effects="read",
                       input_schema={"type": "object", "properties": {"path": {"type": "string"}}})])
    assert_valid(result.attributes)
    attrs = result.attributes
    assert attrs["gen_ai.provider.name"] == "anthropic"
    assert attrs["gen_ai.response.model"] == "claude-sonnet-4-6"
    assert attrs["gen_ai.usage.cache_read.input_tokens"] == 100
    assert attrs["gen_ai.output.messages"][0]["finish_reason"] == "stop"
    back = otel.from_attributes(attrs)
    assert [_content(e) for e in back] == [_content(e) for e in history]
    # Only the tool definition's partwire-only fields were lost.
    assert [loss.part_type for loss in result.losses] == ["tool_definition"]
    (tool,) = otel.tools_from_attributes(attrs)
    assert isinstance(tool, ToolDefinition)
    assert tool.input_schema["properties"] == {"path": {"type": "string"}}


def test_the_example_round_trip_keeps_every_part_or_reports_it() -> None:
    """history -> OTel -> history: each part of each message is back, or a loss names it."""
    history = example_history()
    result = otel.to_attributes(history)
    dropped = {loss.path for loss in result.losses if loss.action == "dropped"}
    back = iter(e for e in otel.from_attributes(result.attributes))
    for i, event in enumerate(history):
        is_message = isinstance(event, SystemMessage | DeveloperMessage | UserMessage | AssistantMessage
                                           | ToolMessage)
        if f"history[{i}]" in dropped and not is_message:
            continue
        if not is_message:
            pytest.fail(f"history[{i}] ({event.type}) neither kept nor reported")
        came_back = next(back)
        assert isinstance(event, SystemMessage | DeveloperMessage | UserMessage | AssistantMessage | ToolMessage)
        assert isinstance(came_back, type(event))
        kept = [p for j, p in enumerate(event.parts) if not (
            f"history[{i}].parts[{j}]" in dropped and p.type in ("redacted_thinking", "unknown"))]
        assert [p.type for p in came_back.parts] == [p.type for p in kept], f"history[{i}]"
        for j, (old, new) in enumerate(zip(kept, came_back.parts, strict=True)):
            if isinstance(old, TextPart | RefusalPart) or (isinstance(old, ThinkingPart) and old.text):
                assert new.text == old.text, f"history[{i}].parts[{j}]"  # type: ignore[union-attr]
        if isinstance(event, ToolMessage):
            assert isinstance(came_back, ToolMessage)
            assert (came_back.call_id, came_back.tool_name, came_back.output_text) == (
                event.call_id, event.tool_name, event.output_text)


def test_a_signature_is_reported_not_carried() -> None:
    """A thinking signature has no place in the conventions: the reasoning text goes, the
    signature is a loss (and strict mode refuses)."""
    history: list[HistoryEvent] = [
        UserMessage("Why?"),
        AssistantMessage([ThinkingPart(text="Because.", signature=Opaque(value="EqQB", issuer="anthropic"))],
                         provider="anthropic", stop_reason="stop"),
    ]
    result = otel.to_attributes(history)
    assert result.attributes["gen_ai.output.messages"][0]["parts"] == [{"type": "reasoning", "content": "Because."}]
    assert [(loss.path, loss.part_type, loss.action) for loss in result.losses] == [
        ("history[1].parts[0]", "thinking", "dropped")]
    assert "EqQB" not in json.dumps(result.attributes)
    with pytest.raises(LossError, match="signature"):
        otel.to_attributes(history, strict=True)


def test_spans_recorded_as_json_text_or_otlp_import_the_same() -> None:
    """The attributes as JSON strings (a span's form) and as OTLP key-values import alike."""
    attrs = otel.to_attributes(_call()).attributes
    as_text = otel.span_attributes(attrs)
    assert isinstance(as_text["gen_ai.input.messages"], str)
    assert as_text["gen_ai.response.finish_reasons"] == ["stop"]

    def any_value(value: Any) -> dict[str, Any]:
        if isinstance(value, bool):
            return {"boolValue": value}
        if isinstance(value, int):
            return {"intValue": str(value)}
        if isinstance(value, list):
            return {"arrayValue": {"values": [any_value(v) for v in value]}}
        return {"stringValue": value}

    otlp = [{"key": k, "value": any_value(v)} for k, v in as_text.items()]
    expected = [_content(e) for e in otel.from_attributes(attrs)]
    assert [_content(e) for e in otel.from_attributes(as_text)] == expected
    assert [_content(e) for e in otel.from_attributes({"name": "chat", "attributes": as_text})] == expected
    assert [_content(e) for e in otel.from_attributes(otlp)] == expected


def test_other_choices_and_unknown_parts_are_kept() -> None:
    """A second output choice becomes an unknown event, a part type the conventions leave open
    an unknown part, each holding what was recorded."""
    video = {"type": "uri", "modality": "video", "uri": "https://example.com/v.mp4"}
    custom = {"type": "citation", "url": "https://example.com"}
    attrs = {
        "gen_ai.input.messages": [{"role": "user", "parts": [video, custom]}],
        "gen_ai.output.messages": [
            {"role": "assistant", "parts": [{"type": "text", "content": "a"}], "finish_reason": "stop"},
            {"role": "assistant", "parts": [{"type": "text", "content": "b"}], "finish_reason": "length"},
        ],
    }
    user, first, second = otel.from_attributes(attrs)
    assert isinstance(user, UserMessage)
    assert [(p.type, p.raw) for p in user.parts] == [("unknown", video), ("unknown", custom)]  # type: ignore[union-attr]
    assert isinstance(first, AssistantMessage)
    assert first.stop_reason == "stop"
    assert isinstance(second, UnknownEvent)
    assert second.raw == attrs["gen_ai.output.messages"][1]


def test_bad_spans_get_errors_naming_where() -> None:
    """Input that is not a GenAI span is refused with the attribute and path at fault."""
    with pytest.raises(WireFormatError, match="invalid JSON"):
        otel.from_attributes("{nope")
    with pytest.raises(WireFormatError, match=r"gen_ai\.input\.messages\[0\]\.parts\[0\]"):
        otel.from_attributes({"gen_ai.input.messages": [{"role": "user", "parts": [{"content": "x"}]}]})
    with pytest.raises(WireFormatError, match=r"gen_ai\.output\.messages.*not an array"):
        otel.from_attributes({"gen_ai.output.messages": {"role": "assistant"}})
    with pytest.raises(KeyError, match="no schema"):
        otel.schema("gen_ai.nothing")


def test_a_projection_records_the_exact_request() -> None:
    """The attributes of a projection are those of its request body as sent, with its model and
    sampling fields as gen_ai.request attributes."""
    history = list(_call()[:2])
    projection = anthropic.to_wire(history, model="anthropic:claude-sonnet-4-6", max_tokens=512,
                                   params={"temperature": 0.2, "stop_sequences": ["END"]})
    answer = AssistantMessage("Done.", provider="anthropic", model="anthropic:claude-sonnet-4-6",
                              stop_reason="length")
    result = otel.projection_attributes(projection, "anthropic", answer=answer)
    attrs = result.attributes
    assert_valid(attrs)
    assert (attrs["gen_ai.request.model"], attrs["gen_ai.request.max_tokens"],
            attrs["gen_ai.request.temperature"], attrs["gen_ai.request.stop_sequences"]) == (
        "claude-sonnet-4-6", 512, 0.2, ["END"])
    assert attrs["gen_ai.output.messages"][0]["finish_reason"] == "length"
    assert attrs["gen_ai.system_instructions"] == [{"type": "text", "content": "You are terse."}]


def test_an_ollama_projection_records_its_options_as_request_attributes() -> None:
    """Ollama states sampling in ``options``: ``num_predict`` is the max tokens, the rest by
    their names; the provider is ``ollama``."""
    from partwire.adapters import ollama

    projection = ollama.to_wire([UserMessage("hi")], model="qwen3:8b",
                                settings={"max_output_tokens": 64, "temperature": 0.3})
    attrs = otel.projection_attributes(projection, "ollama").attributes
    assert_valid(attrs)
    assert (attrs["gen_ai.provider.name"], attrs["gen_ai.request.model"],
            attrs["gen_ai.request.max_tokens"], attrs["gen_ai.request.temperature"]) == (
        "ollama", "qwen3:8b", 64, 0.3)


def test_record_sets_the_span_and_emits_the_event() -> None:
    """record() writes the attributes on the current span (structured values as JSON text) and
    emits the structured event through the OpenTelemetry SDK."""
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    spans = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
    logs = InMemoryLogRecordExporter()  # type: ignore[no-untyped-call]
    logger_provider = LoggerProvider()
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(logs))
    result = otel.to_attributes(_call())
    with tracer_provider.get_tracer("test").start_as_current_span("chat claude-sonnet-4-6"):
        otel.record(result, logger=logger_provider.get_logger("partwire"))
    (span,) = spans.get_finished_spans()
    assert span.attributes is not None
    assert json.loads(str(span.attributes["gen_ai.input.messages"])) == result.attributes["gen_ai.input.messages"]
    assert span.attributes["gen_ai.usage.input_tokens"] == 120
    (log,) = logs.get_finished_logs()
    record = log.log_record
    assert record.event_name == otel.EVENT_NAME
    assert record.attributes is not None
    assert [_content(e) for e in otel.from_attributes(dict(record.attributes))] == [
        _content(e) for e in otel.from_attributes(result.attributes)]


def test_tool_message_parts_before_any_response_are_kept() -> None:
    """A recorded tool message whose first parts answer no call keeps them as an unknown event."""
    stray = {"type": "text", "content": "progress..."}
    response = {"type": "tool_call_response", "id": "call_1", "response": "done"}
    (kept, tool) = otel.from_attributes({"gen_ai.input.messages": [{"role": "tool", "parts": [stray, response]}]})
    assert isinstance(kept, UnknownEvent)
    assert kept.raw == {"role": "tool", "parts": [stray]}
    assert isinstance(tool, ToolMessage)
    assert (tool.call_id, tool.output_text) == ("call_1", "done")
