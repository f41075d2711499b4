"""Anthropic Messages API (``POST /v1/messages``) <-> canonical.

The mapping, every normalisation and every lossy case: ``docs/adapters/anthropic.md``.
Works on plain JSON; accepts the ``anthropic`` SDK's objects by duck typing and never imports it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from partwire.adapters import Capabilities
from partwire.adapters._common import ImportedRequest, Losses, ToolChoice, ToolSpec, wire_model
from partwire.adapters.anthropic._decode import from_wire as _from_wire
from partwire.adapters.anthropic._encode import (
    Encoder,
    FileResolver,
    ForeignThinking,
    tool_choice_to_wire,
    tool_to_wire,
)
from partwire.adapters.anthropic._request import from_wire_request as _from_wire_request
from partwire.adapters.anthropic._stream import Translator, aiter_wire_events, iter_wire_events
from partwire.adapters.anthropic._tokens import estimate_request_tokens
from partwire.adapters.anthropic._wire import (
    DEFAULT_MAX_TOKENS,
    DOCUMENT_MEDIA_TYPES,
    IMAGE_MEDIA_TYPES,
    ISSUER,
)
from partwire.projection import Projection, make_projection

if TYPE_CHECKING:
    from partwire.history import History
    from partwire.messages import AssistantMessage
    from partwire.streaming import StreamEvent

__all__ = [
    "CAPABILITIES",
    "DEFAULT_MAX_TOKENS",
    "NAME",
    "astream",
    "estimate_input_tokens",
    "from_wire",
    "from_wire_request",
    "stream",
    "to_wire",
]

NAME = "anthropic"
"""The adapter's name in the registry."""

CAPABILITIES = Capabilities(
    name=NAME,
    issuer=ISSUER,
    thinking=True,
    images=True,
    documents=True,
    audio=False,
    tools=True,
    server_tools=True,
    system_prompt=True,
    system_messages_in_list=True,  # SDK 2.12's SystemMessageParam; model-dependent (see docs)
    developer_role=False,
    structured_output=True,
    streaming=True,
    streaming_tool_calls=True,
    parallel_tool_calls=True,
    prompt_caching=True,
    citations=True,
    refusals=False,  # a refusal is a stop_reason, not a block
    image_media_types=IMAGE_MEDIA_TYPES,
    document_media_types=DOCUMENT_MEDIA_TYPES,
    media_sources=frozenset({"url", "base64", "provider_file", "text"}),
    max_messages=100_000,
    max_images=100,
    max_tool_name_length=64,
)
"""What the Messages API takes."""

# Body fields to_wire builds itself; params may not set them.
_BUILT = frozenset({"model", "max_tokens", "messages", "system", "tools", "tool_choice"})


def to_wire(
    history: History,
    *,
    model: str,
    tools: Sequence[ToolSpec] = (),
    tool_choice: ToolChoice | None = None,
    max_tokens: int | None = None,
    params: Mapping[str, Any] | None = None,
    strict: bool = False,
    accept_issuers: Collection[str] | None = None,
    session: str | None = None,
    parallel_tool_calls: bool | None = None,
    foreign_thinking: ForeignThinking = "drop",
    system_in_messages: bool = True,
    resolve_file: FileResolver | None = None,
) -> Projection:
    """The request body for ``history``: ``client.messages.create(**projection.request)``.

    ``model`` is the wire name or ``anthropic:<name>`` (or an alias such as ``sonnet``).
    ``params`` adds any other body field verbatim (``thinking``, ``temperature``, ``stream``,
    ``metadata``, ``output_config``...). ``accept_issuers`` names whose opaque values and
    provider data count as Anthropic's (default ``{"anthropic"}``; add a proxy's name).
    ``foreign_thinking="text"`` sends reasoning Anthropic cannot verify as plain text instead
    of dropping it. ``system_in_messages=False`` hoists mid-conversation system messages into
    the system prompt for models that refuse them in ``messages``. ``resolve_file`` reads
    workspace file references so they can be sent inline. ``strict=True`` raises
    :class:`~partwire.errors.LossError` instead of degrading.
    """
    losses = Losses(NAME)
    request = _request(history, model=model, tools=tools, tool_choice=tool_choice,
                       max_tokens=max_tokens, params=params, losses=losses,
                       accept_issuers=accept_issuers, parallel_tool_calls=parallel_tool_calls,
                       foreign_thinking=foreign_thinking, system_in_messages=system_in_messages,
                       resolve_file=resolve_file)
    return make_projection(request, losses.items, adapter=NAME, strict=strict, session=session)


def from_wire(response: Any) -> AssistantMessage:
    """A response body (dict, JSON text, or the SDK's ``Message``) as an assistant message.

    An error body raises :class:`~partwire.adapters.ProviderError`; anything else that is not
    a response raises :class:`~partwire.adapters.WireFormatError`.
    """
    return _from_wire(response)


def from_wire_request(request: Any) -> ImportedRequest:
    """A request body written for this API, as history and tools (and the other fields).

    ``to_wire(r.history, **r.to_wire_kwargs()).request`` gives the body back.
    """
    return _from_wire_request(request)


def stream(chunks: Any) -> Iterator[StreamEvent]:
    """Stream events from SDK events, parsed JSON events, or raw SSE (bytes/text, whole or chunked).

    Ends with one ``MessageCompleteEvent`` holding the message. An in-stream ``error`` (or the
    SDK's exception for it) becomes a ``StreamErrorEvent`` and the partial message with
    ``status="error"``; a stream cut short ends with the partial message.
    """
    translator = Translator()
    feed, delta = translator.feed, translator.delta
    # Parsed events in a list need no input handling: skip that generator (a hot loop).
    events = chunks if isinstance(chunks, list) and all(type(e) is dict for e in chunks[:1]) else (
        iter_wire_events(chunks))
    for wire in events:
        if wire.get("type") == "content_block_delta":
            event = delta(wire)
            if event is not None:
                yield event
        else:
            yield from feed(wire)
    yield from translator.finish()


async def astream(chunks: Any) -> AsyncIterator[StreamEvent]:
    """:func:`stream` over an asynchronous source (the async SDK stream, an httpx byte stream)."""
    if not hasattr(chunks, "__aiter__"):
        for event in stream(chunks):
            yield event
        return
    translator = Translator()
    async for wire in aiter_wire_events(chunks):
        for event in translator.feed(wire):
            yield event
    for event in translator.finish():
        yield event


def estimate_input_tokens(history: History, tools: Sequence[ToolSpec] = ()) -> int:
    """A rough, offline estimate of the input tokens of ``to_wire(history, tools=tools)``.

    About 4 characters per token for text and JSON, 1,600 per image, 1,500 per estimated PDF
    page. Use the API's ``count_tokens`` endpoint when you need the exact figure.
    """
    request = _request(history, model=f"{ISSUER}:estimate", tools=tools, tool_choice=None,
                       max_tokens=None, params=None, losses=Losses(NAME), accept_issuers=None,
                       parallel_tool_calls=None, foreign_thinking="drop", system_in_messages=True,
                       resolve_file=None)
    return estimate_request_tokens(request)


def _request(
    history: History, *, model: str, tools: Sequence[ToolSpec], tool_choice: ToolChoice | None,
    max_tokens: int | None, params: Mapping[str, Any] | None, losses: Losses,
    accept_issuers: Collection[str] | None, parallel_tool_calls: bool | None,
    foreign_thinking: ForeignThinking, system_in_messages: bool, resolve_file: FileResolver | None,
) -> dict[str, Any]:
    encoder = Encoder(history, issuers=accept_issuers if accept_issuers is not None else {ISSUER},
                      losses=losses, foreign_thinking=foreign_thinking,
                      system_in_messages=system_in_messages, resolve_file=resolve_file)
    system, messages = encoder.run()
    request: dict[str, Any] = {
        "model": wire_model(model, ISSUER),
        "max_tokens": DEFAULT_MAX_TOKENS if max_tokens is None else max_tokens,
    }
    if system is not None:
        request["system"] = system
    request["messages"] = messages
    if tools:
        request["tools"] = [tool_to_wire(t) for t in tools]
    choice = tool_choice_to_wire(tool_choice, parallel_tool_calls)
    if choice is not None:
        request["tool_choice"] = choice
    for key, value in (params or {}).items():
        if key in request or (key in _BUILT and key not in ("system", "tools")):
            raise ValueError(f"params[{key!r}] conflicts with a field to_wire builds; pass it as "
                             "its own argument (or put it in the history)")
        request[key] = value
    return request
