"""Anthropic Messages API (``POST /v1/messages``) <-> canonical.

The mapping, every normalisation and every lossy case: ``docs/adapters/anthropic.md``.
Works on plain JSON; accepts the ``anthropic`` SDK's objects by duck typing and never imports it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from partwire._collector import hold, release
from partwire.adapters import Capabilities
from partwire.adapters._kernel import (
    arun_stream,
    boundary_error,
    project,
    resolve_options,
    run_stream,
)
from partwire.adapters._losses import LossCollector
from partwire.adapters._settings import resolve_settings
from partwire.adapters.anthropic._decode import from_wire as _from_wire
from partwire.adapters.anthropic._encode import FileResolver, ForeignThinking
from partwire.adapters.anthropic._request import build_request
from partwire.adapters.anthropic._request import from_wire_request as _from_wire_request
from partwire.adapters.anthropic._stream import Translator
from partwire.adapters.anthropic._tokens import estimate_request_tokens
from partwire.adapters.anthropic._wire import (
    DEFAULT_MAX_TOKENS,
    DOCUMENT_MEDIA_TYPES,
    IMAGE_MEDIA_TYPES,
    ISSUER,
)
from partwire.adapters.requests import ImportedRequest, SettingsArg, ToolChoice, ToolSpec

if TYPE_CHECKING:
    from partwire.history import History
    from partwire.messages import AssistantMessage
    from partwire.projection import Projection
    from partwire.streaming import StreamEvent

__all__ = [
    "CAPABILITIES",
    "DEFAULT_MAX_TOKENS",
    "NAME",
    "Options",
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


_OWN = frozenset({ISSUER})  # the issuers accepted by default


@dataclass(frozen=True, slots=True)
class Options:
    """The Anthropic adapter's own switches (``options=`` on every function, or as keywords)."""

    foreign_thinking: ForeignThinking = "drop"
    """Reasoning Anthropic cannot verify: ``drop`` it (with a loss) or send it as ``text``."""
    system_in_messages: bool = True
    """Send mid-conversation system messages where they were said; ``False`` hoists them into
    the system prompt, for models that refuse them in ``messages``."""
    resolve_file: FileResolver | None = None
    """Reads workspace file references, so they can be sent inline."""
    sampling: bool = False
    """Send ``temperature``, ``top_p`` and ``top_k``. The Messages API as SDK 2.x types it has
    none of them, so by default they are reported dropped; turn this on for an API version or a
    model that still takes them. A request read with any of them re-exports with it on."""


_DEFAULTS = Options()


def to_wire(
    history: History,
    *,
    model: str,
    tools: Sequence[ToolSpec] = (),
    tool_choice: ToolChoice | None = None,
    max_tokens: int | None = None,
    params: Mapping[str, Any] | None = None,
    parallel_tool_calls: bool | None = None,
    settings: SettingsArg = None,
    strict: bool = False,
    accept_issuers: Collection[str] | None = None,
    session: str | None = None,
    options: Options | Mapping[str, Any] | None = None,
    **switches: Any,
) -> Projection:
    """The request body for ``history``: ``client.messages.create(**projection.request)``.

    ``model`` is the wire name or ``anthropic:<name>`` (or an alias such as ``sonnet``).
    ``params`` adds any other body field verbatim (``thinking``, ``temperature``, ``stream``,
    ``metadata``, ``output_config``...). ``accept_issuers`` names whose opaque values and
    provider data count as Anthropic's (default ``{"anthropic"}``; add a proxy's name).
    ``options`` (or its fields as keywords) holds the adapter's switches: :class:`Options`.
    ``strict=True`` raises :class:`~partwire.errors.LossError` instead of degrading.

    ``settings`` (:class:`~partwire.settings.RequestSettings`, or a mapping of its fields) are
    written into the API's own fields; a setting it cannot take is a loss at
    ``request.settings.<field>``. ``max_tokens``, ``tool_choice`` and ``parallel_tool_calls`` are
    shortcuts for those settings and win over them when given; a ``tool_choice`` mapping is the
    API's own, sent as it is.
    """
    held = hold(history)
    try:
        opts = _DEFAULTS if options is None and not switches else resolve_options(Options, options, switches)
        losses = LossCollector(NAME)
        resolved, native = resolve_settings(settings, max_tokens=max_tokens, tool_choice=tool_choice,
                                            parallel_tool_calls=parallel_tool_calls)
        request = build_request(
            history, model=model, tools=tools, settings=resolved, native_choice=native,
            params=params, issuers=accept_issuers if accept_issuers is not None else _OWN,
            losses=losses, foreign_thinking=opts.foreign_thinking,
            system_in_messages=opts.system_in_messages, resolve_file=opts.resolve_file,
            sampling=opts.sampling)
        return project(request, losses, adapter=NAME, strict=strict, session=session)
    finally:
        if held:
            release()


def from_wire(response: Any, *, options: Options | Mapping[str, Any] | None = None,
              **switches: Any) -> AssistantMessage:
    """A response body (dict, JSON text, or the SDK's ``Message``) as an assistant message.

    An error body raises :class:`~partwire.adapters.ProviderError`; anything else that is not
    a response raises :class:`~partwire.adapters.WireFormatError`.
    """
    if options is not None or switches:
        resolve_options(Options, options, switches)
    try:
        return _from_wire(response)
    except Exception as exc:
        raise boundary_error(exc, NAME, "response")  # noqa: B904 (it sets the cause)


def from_wire_request(request: Any, *,
                      options: Options | Mapping[str, Any] | None = None,
                      **switches: Any) -> ImportedRequest:
    """A request body written for this API, as history and tools (and the other fields).

    ``to_wire(r.history, **r.to_wire_kwargs()).request`` gives the body back.
    """
    held = hold(request)
    try:
        if options is not None or switches:
            resolve_options(Options, options, switches)
        return _from_wire_request(request)
    except Exception as exc:
        raise boundary_error(exc, NAME, "request")  # noqa: B904 (it sets the cause)
    finally:
        if held:
            release()


def stream(chunks: Any, *, options: Options | Mapping[str, Any] | None = None,
           **switches: Any) -> Iterator[StreamEvent]:
    """Stream events from SDK events, parsed JSON events, or raw SSE (bytes/text, whole or chunked).

    Ends with one ``MessageCompleteEvent`` holding the message. An in-stream ``error`` (or the
    SDK's exception for it) becomes a ``StreamErrorEvent`` and the partial message with
    ``status="error"``; a stream cut short ends with the partial message.
    """
    resolve_options(Options, options, switches)
    return run_stream(Translator, chunks)


def astream(chunks: Any, *,
            options: Options | Mapping[str, Any] | None = None,
            **switches: Any) -> AsyncIterator[StreamEvent]:
    """:func:`stream` over an asynchronous source (the async SDK stream, an httpx byte stream)."""
    resolve_options(Options, options, switches)
    return arun_stream(Translator, chunks)


def estimate_input_tokens(history: History, tools: Sequence[ToolSpec] = (), *,
                          model: str | None = None, tool_choice: ToolChoice | None = None,
                          params: Mapping[str, Any] | None = None,
                          settings: SettingsArg = None,
                          accept_issuers: Collection[str] | None = None,
                          options: Options | Mapping[str, Any] | None = None,
                          **switches: Any) -> int:
    """An offline estimate of the input tokens of ``to_wire(history, tools=tools)``.

    Counted on the body ``to_wire`` would send. Use the API's ``count_tokens`` endpoint when
    you need the exact figure.

    ``model``, ``tool_choice``, ``params``, ``settings`` and ``accept_issuers`` are
    ``to_wire``'s: pass the ones the request will be sent with, and the estimate counts the same
    body (a forced tool choice,
    body fields in ``params``, another issuer's echo state accepted).
    """
    opts = resolve_options(Options, options, switches)
    resolved, native = resolve_settings(settings, tool_choice=tool_choice)
    request = build_request(
        history, model=model or f"{ISSUER}:estimate", tools=tools, settings=resolved,
        native_choice=native, params=params,
        issuers=accept_issuers if accept_issuers is not None else _OWN, losses=LossCollector(NAME),
        foreign_thinking=opts.foreign_thinking, system_in_messages=opts.system_in_messages,
        resolve_file=opts.resolve_file, sampling=opts.sampling)
    return estimate_request_tokens(request)
