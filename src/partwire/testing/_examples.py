"""The histories the adapter laws run on when a suite gives none of its own: small, deterministic
conversations that between them hold every role, every part type and the echo state of an issuer."""

from __future__ import annotations

from partwire import parts as _parts
from partwire.history import HistoryEvent
from partwire.ids import deterministic_sources, use_sources
from partwire.messages import (
    AssistantMessage,
    DeveloperMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)

__all__ = ["example_histories"]

# A 1x1 PNG: a real image, small enough to read in a failure message.
_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def example_histories(issuer: str) -> list[tuple[str, list[HistoryEvent]]]:
    """Named example histories, with the echo state (signatures, provider call ids) ``issuer``
    would have given them, plus one whose echo state another provider issued."""
    ids, clock = deterministic_sources()
    with use_sources(ids=ids, clock=clock):
        return [
            ("plain_chat", _plain_chat()),
            ("parallel_tool_calls", _parallel_tools(issuer)),
            ("thinking_then_tool_use", _thinking(issuer)),
            ("images_and_documents", _media()),
            ("state_from_another_provider", _foreign()),
            ("refusal_developer_and_unknown", _odd_parts()),
        ]


def _plain_chat() -> list[HistoryEvent]:
    return [SystemMessage("You answer briefly."), UserMessage("What is the capital of France?"),
            AssistantMessage([_parts.TextPart(text="Paris.")], model="law:model"),
            UserMessage("And of Italy?")]


def _parallel_tools(issuer: str) -> list[HistoryEvent]:
    weather = _parts.ToolCallPart.create("get_weather", {"city": "Paris"}, provider_ids={issuer: "call_weather_1"})
    clock = _parts.ToolCallPart.create("get_time", {"zone": "Europe/Paris"}, provider_ids={issuer: "call_time_2"})
    return [
        UserMessage("Weather and time in Paris?"),
        AssistantMessage([_parts.TextPart(text="Checking both."), weather, clock], model="law:model",
                         stop_reason="tool_use"),
        ToolMessage(call_id=weather.id, tool_name=weather.name, status="success", output_text="18 C, cloudy"),
        ToolMessage(call_id=clock.id, tool_name=clock.name, status="error", output_text="time service down"),
        UserMessage("Thanks."),
    ]


def _thinking(issuer: str) -> list[HistoryEvent]:
    call = _parts.ToolCallPart.create("read_file", {"path": "README.md"}, provider_ids={issuer: "call_read_3"})
    return [
        UserMessage("Summarise README.md."),
        AssistantMessage([
            _parts.ThinkingPart(text="I should read the file first.",
                                signature=_parts.Opaque(value="c2lnLWxhdy0wMDAxLWFiY2RlZmdoaWprbA==", issuer=issuer)),
            call,
        ], model="law:model", stop_reason="tool_use"),
        ToolMessage(call_id=call.id, tool_name=call.name, status="success",
                    output_text="# Project\nA library for conversations."),
        AssistantMessage([_parts.TextPart(text="It describes a library for conversations.")], model="law:model"),
        UserMessage("Shorter, please."),
    ]


def _media() -> list[HistoryEvent]:
    return [UserMessage([
        _parts.TextPart(text="What do these show?"),
        _parts.ImagePart(source=_parts.Base64Source(data=_PNG), media_type="image/png"),
        _parts.ImagePart(source=_parts.UrlSource(url="https://example.com/chart-law.png"), media_type="image/png"),
        _parts.DocumentPart(source=_parts.TextSource(text="Quarterly notes: revenue up."), media_type="text/plain",
                            title="notes"),
    ])]


def _foreign() -> list[HistoryEvent]:
    # Opaque values are base64, as providers' are (an API may check the encoding).
    # Echo state only another provider can verify: an adapter must drop it with a loss, or send
    # what it can (the thought's text), never echo it in silence.
    return [
        UserMessage("Think about it."),
        AssistantMessage([
            _parts.ThinkingPart(text="A thought from elsewhere.",
                                signature=_parts.Opaque(value="c2lnLWVsc2V3aGVyZS05OTk5LXp5eHd2dXQ=", issuer="elsewhere")),
            _parts.RedactedThinkingPart(data=_parts.Opaque(value="cmVkYWN0ZWQtZWxzZXdoZXJlLTg4ODgtcXBvbm1s", issuer="elsewhere")),
            _parts.TextPart(text="Here is my answer."),
        ], model="elsewhere:model"),
        UserMessage("Go on."),
    ]


def _odd_parts() -> list[HistoryEvent]:
    return [
        DeveloperMessage([_parts.TextPart(text="$ ls\nREADME.md")]),
        UserMessage("How do I pick a lock?"),
        AssistantMessage([_parts.RefusalPart(text="I can't help with that.")], model="law:model",
                         stop_reason="refusal"),
        UserMessage("Then list the files."),
        AssistantMessage([_parts.UnknownPart(original_type="future_block", raw={"type": "future_block", "x": 1}),
                          _parts.TextPart(text="README.md")], model="law:model"),
        UserMessage("Thanks."),
    ]
