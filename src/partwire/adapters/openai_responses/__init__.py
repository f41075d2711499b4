"""OpenAI Responses API (``POST /responses``) <-> canonical.

The mapping, every lossy case and the two ways to continue a conversation (stateless and
chained): ``docs/adapters/openai_responses.md``. Works on plain JSON; accepts the ``openai``
SDK's objects by duck typing and never imports it.
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
from partwire.adapters.openai_responses._decode import from_wire as _from_wire
from partwire.adapters.openai_responses._parts import FileResolver
from partwire.adapters.openai_responses._request import build_request
from partwire.adapters.openai_responses._request import from_wire_request as _from_wire_request
from partwire.adapters.openai_responses._stream import Translator
from partwire.adapters.openai_responses._tokens import estimate_request_tokens
from partwire.adapters.openai_responses._wire import (
    DOCUMENT_MEDIA_TYPES,
    IMAGE_MEDIA_TYPES,
    ISSUER,
    ContinuationMode,
)
from partwire.adapters.requests import ImportedRequest, SettingsArg, ToolChoice, ToolSpec

if TYPE_CHECKING:
    from partwire.history import History
    from partwire.messages import AssistantMessage
    from partwire.projection import Projection
    from partwire.streaming import StreamEvent

__all__ = [
    "CAPABILITIES",
    "NAME",
    "ContinuationMode",
    "Options",
    "astream",
    "estimate_input_tokens",
    "from_wire",
    "from_wire_request",
    "stream",
    "to_wire",
]

NAME = "openai_responses"
"""The adapter's name in the registry."""

CAPABILITIES = Capabilities(
    name=NAME,
    issuer=ISSUER,
    thinking=True,
    images=True,
    documents=True,
    audio=False,  # no input_audio in Responses message content (SDK 3.54)
    tools=True,
    server_tools=True,
    system_prompt=True,
    system_messages_in_list=True,
    developer_role=True,
    structured_output=True,
    streaming=True,
    streaming_tool_calls=True,
    parallel_tool_calls=True,
    prompt_caching=False,  # automatic; prompt_cache_key and breakpoints go through params/echo state
    citations=True,
    refusals=True,
    image_media_types=IMAGE_MEDIA_TYPES,
    document_media_types=DOCUMENT_MEDIA_TYPES,
    media_sources=frozenset({"url", "base64", "provider_file"}),
    max_tool_name_length=64,
)
"""What the Responses API takes."""


@dataclass(frozen=True, slots=True)
class Options:
    """The Responses adapter's own switches (``options=`` on every function, or as keywords)."""

    continuation: ContinuationMode = "stateless"
    """``stateless``: every item, ``store: false`` and the encrypted reasoning included;
    ``chained``: ``previous_response_id`` and only the new items; ``none``: the items alone."""
    resolve_file: FileResolver | None = None
    """Reads workspace file references, so they can be sent inline."""


_DEFAULTS = Options()
_OWN_ISSUERS = frozenset({ISSUER})


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
    """The request body for ``history``: ``client.responses.create(**projection.request)``.

    ``model`` is the wire name or ``openai:<name>``. ``max_tokens`` sets
    ``max_output_tokens``. ``params`` adds any other body field verbatim (``reasoning``,
    ``text``, ``stream``, ``metadata``, ...). ``accept_issuers`` names whose opaque values and
    provider data count as OpenAI's (default ``{"openai"}``). ``options`` (or its fields as
    keywords) holds the adapter's switches: :class:`Options`. ``strict=True`` raises
    :class:`~partwire.errors.LossError` instead of degrading.

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
            history, model=model, tools=tools, settings=resolved, native_choice=native, params=params,
            issuers=accept_issuers if accept_issuers is not None else _OWN_ISSUERS, losses=losses,
            continuation=opts.continuation, resolve_file=opts.resolve_file)
        return project(request, losses, adapter=NAME, strict=strict, session=session)
    finally:
        if held:
            release()


def from_wire(response: Any, *, options: Options | Mapping[str, Any] | None = None,
              **switches: Any) -> AssistantMessage:
    """A response object (dict, JSON text, or the SDK's ``Response``) as an assistant message.

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

    ``to_wire(r.history, **r.to_wire_kwargs()).request`` gives the body back: the import
    re-exports with ``continuation="none"``, its own ``store``/``include`` kept in ``params``.
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

    Ends with one ``MessageCompleteEvent`` holding the message. An ``error`` event or
    ``response.failed`` becomes a ``StreamErrorEvent`` and the message so far with
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

    Counted on the body ``to_wire`` would send. The API's ``POST /responses/input_tokens``
    gives the exact figure.

    ``model``, ``tool_choice``, ``params``, ``settings`` and ``accept_issuers`` are
    ``to_wire``'s: pass the ones the request will be sent with, and the estimate counts the same
    body (a forced tool choice,
    body fields in ``params``, another issuer's echo state accepted).
    """
    opts = resolve_options(Options, options, switches)
    resolved, native = resolve_settings(settings, tool_choice=tool_choice)
    request = build_request(
        history, model=model or f"{ISSUER}:estimate", tools=tools,
        settings=resolved.model_copy(update={"max_output_tokens": None}), native_choice=native,
        params=params,
        issuers=accept_issuers if accept_issuers is not None else {ISSUER}, losses=LossCollector(NAME),
        continuation=opts.continuation, resolve_file=opts.resolve_file)
    return estimate_request_tokens(request)
