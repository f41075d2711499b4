"""A third-party adapter with the bugs adapters have in the wild, for the plugin's tests: what a
stranger might write by wrapping partwire's Anthropic adapter, and get wrong.

- ``to_wire`` drops thinking parts and says nothing, and writes ``max_tokens`` as text;
- ``from_wire_request`` renumbers tool-call ids;
- ``from_wire`` indexes the body before looking at it (a ``TypeError`` on bad input);
- ``stream`` leaves the thinking out of the message it completes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Iterator
from typing import Any

from partwire import AssistantMessage, ThinkingPart, ToolCallPart
from partwire.adapters import anthropic
from partwire.adapters.requests import ImportedRequest
from partwire.history import HistoryEvent
from partwire.projection import Projection
from partwire.streaming import MessageCompleteEvent, StreamEvent


class BrokenAdapter:
    """An Anthropic Messages adapter of someone else's, with four bugs."""

    NAME = "broken_messages"
    CAPABILITIES = dataclasses.replace(anthropic.CAPABILITIES, name="broken_messages")
    Options = anthropic.Options

    def to_wire(self, history: Any, **kwargs: Any) -> Projection:
        """Anthropic's request, less every thinking part (no loss said), ``max_tokens`` as text."""
        kept: list[HistoryEvent] = [
            e.model_copy(update={"parts": tuple(p for p in e.parts if not isinstance(p, ThinkingPart))})
            if isinstance(e, AssistantMessage) else e for e in history]
        projection = anthropic.to_wire(kept, **kwargs)
        request = {**projection.request, "max_tokens": str(projection.request["max_tokens"])}
        return Projection(request=request, losses=projection.losses)

    def from_wire(self, response: Any, **kwargs: Any) -> AssistantMessage:
        """Anthropic's reading, after a look at ``content`` that fails on anything but a mapping."""
        if not response["content"]:
            return AssistantMessage([])
        return anthropic.from_wire(response, **kwargs)

    def from_wire_request(self, request: Any, **kwargs: Any) -> ImportedRequest:
        """Anthropic's reading, with every tool call's wire id renumbered."""
        imported = anthropic.from_wire_request(request, **kwargs)
        history = []
        count = 0
        for event in imported.history:
            if isinstance(event, AssistantMessage):
                parts = []
                for part in event.parts:
                    if isinstance(part, ToolCallPart):
                        count += 1
                        part = part.model_copy(update={"provider_ids": {"anthropic": f"call_{count}"}})
                    parts.append(part)
                event = event.model_copy(update={"parts": tuple(parts)})
            history.append(event)
        return dataclasses.replace(imported, history=tuple(history))

    def stream(self, chunks: Any, **kwargs: Any) -> Iterator[StreamEvent]:
        """Anthropic's stream, its final message without the thinking."""
        for event in anthropic.stream(chunks, **kwargs):
            if isinstance(event, MessageCompleteEvent):
                parts = tuple(p for p in event.message.parts if not isinstance(p, ThinkingPart))
                event = MessageCompleteEvent(event.message.model_copy(update={"parts": parts}))
            yield event

    def astream(self, chunks: Any, **kwargs: Any) -> AsyncIterator[StreamEvent]:
        """Anthropic's asynchronous stream."""
        return anthropic.astream(chunks, **kwargs)

    def estimate_input_tokens(self, history: Any, tools: Any = (), **kwargs: Any) -> int:
        """Anthropic's estimate."""
        return anthropic.estimate_input_tokens(history, tools, **kwargs)


def max_tokens_errors(request: dict[str, Any]) -> list[str]:
    """The user's validator: Anthropic wants ``max_tokens`` as an integer."""
    value = request.get("max_tokens")
    return [] if isinstance(value, int) else [f"max_tokens: {value!r} is not an integer"]


# One streamed Anthropic answer with a signed thought, and the same answer whole.
SSE = b"".join(f"event: {kind}\ndata: {data}\n\n".encode() for kind, data in [
    ("message_start", '{"type":"message_start","message":{"id":"msg_law","type":"message","role":"assistant",'
                      '"model":"claude-law","content":[],"stop_reason":null,"stop_sequence":null,'
                      '"usage":{"input_tokens":10,"output_tokens":1}}}'),
    ("content_block_start", '{"type":"content_block_start","index":0,"content_block":{"type":"thinking",'
                            '"thinking":"","signature":""}}'),
    ("content_block_delta", '{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta",'
                            '"thinking":"Two and two."}}'),
    ("content_block_delta", '{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta",'
                            '"signature":"sig-law-stream"}}'),
    ("content_block_stop", '{"type":"content_block_stop","index":0}'),
    ("content_block_start", '{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}'),
    ("content_block_delta", '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Four."}}'),
    ("content_block_stop", '{"type":"content_block_stop","index":1}'),
    ("message_delta", '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},'
                      '"usage":{"output_tokens":12}}'),
    ("message_stop", '{"type":"message_stop"}'),
])
FINAL = {"id": "msg_law", "type": "message", "role": "assistant", "model": "claude-law",
         "content": [{"type": "thinking", "thinking": "Two and two.", "signature": "sig-law-stream"},
                     {"type": "text", "text": "Four."}],
         "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 12}}
