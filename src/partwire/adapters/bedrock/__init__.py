"""AWS Bedrock Converse API (``Converse`` / ``ConverseStream`` of ``bedrock-runtime``) <-> canonical.

The mapping, every normalisation and every lossy case: ``docs/adapters/bedrock.md``.
Works on plain data: ``to_wire`` gives the keyword arguments of boto3's
``client.converse(**request)`` / ``client.converse_stream(**request)``; the decoders take what
boto3 returns, JSON text, or the raw HTTP bodies (the stream's binary event stream included).
Never imports boto3 or botocore.
"""

from __future__ import annotations

import functools
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
from partwire.adapters.bedrock._decode import from_wire as _from_wire
from partwire.adapters.bedrock._parts import FileResolver, ForeignThinking
from partwire.adapters.bedrock._request import build_request
from partwire.adapters.bedrock._request import from_wire_request as _from_wire_request
from partwire.adapters.bedrock._stream import Translator
from partwire.adapters.bedrock._tokens import estimate_request_tokens
from partwire.adapters.bedrock._wire import (
    AUDIO_FORMATS,
    DOCUMENT_FORMATS,
    IMAGE_FORMATS,
    ISSUER,
    Blobs,
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
    "Options",
    "astream",
    "estimate_input_tokens",
    "from_wire",
    "from_wire_request",
    "stream",
    "to_wire",
]

NAME = "bedrock"
"""The adapter's name in the registry."""

CAPABILITIES = Capabilities(
    name=NAME,
    issuer=ISSUER,
    thinking=True,  # reasoningContent with signatures (Claude), unsigned for other families
    images=True,
    documents=True,
    audio=True,  # AudioBlock in the 2023-09-30 model; model-dependent (Nova Sonic and kin)
    tools=True,
    server_tools=True,  # systemTool definitions and server_tool_use blocks (model-dependent)
    system_prompt=True,
    system_messages_in_list=False,
    developer_role=False,
    structured_output=True,  # outputConfig.textFormat (json_schema)
    streaming=True,
    streaming_tool_calls=True,
    parallel_tool_calls=True,
    prompt_caching=True,  # cachePoint blocks
    citations=True,
    refusals=False,
    image_media_types=frozenset(IMAGE_FORMATS.values()),
    document_media_types=frozenset(DOCUMENT_FORMATS.values()),
    audio_media_types=frozenset(AUDIO_FORMATS.values()),
    media_sources=frozenset({"base64", "url", "text"}),  # url: s3:// locations only
    max_images=20,
    max_tool_name_length=64,
)
"""What Converse takes (per model family it is narrower: see docs/adapters/bedrock.md)."""


_OWN = frozenset({ISSUER})  # the issuers accepted by default


@dataclass(frozen=True, slots=True)
class Options:
    """The Bedrock adapter's own switches (``options=`` on every function, or as keywords)."""

    foreign_thinking: ForeignThinking = "drop"
    """Reasoning Bedrock cannot verify (Anthropic's own signatures included): ``drop`` it (with a
    loss) or send it as ``text``."""
    blobs: Blobs = "bytes"
    """Binary fields as ``bytes`` (boto3's keyword arguments) or ``base64`` text (the HTTP JSON
    body, which a stored request holds)."""
    resolve_file: FileResolver | None = None
    """Reads workspace file references, so they can be sent inline."""
    model_id: str | None = None
    """The model the request named, for the decoders: Converse responses do not say which model
    answered, so ``from_wire`` and ``stream`` record it as ``bedrock:<model_id>`` (which prices
    the message). ``to_wire`` takes its model as its own argument."""


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
    """The request for ``history``: ``client.converse(**projection.request)``.

    ``model`` is a Bedrock model id, inference profile or ARN, or ``bedrock:<id>``.
    ``params`` adds any other field verbatim (``guardrailConfig``, ``requestMetadata``...;
    ``inferenceConfig`` and ``additionalModelRequestFields`` keys join the settings' own). ``accept_issuers`` names whose opaque values and provider data
    count as Bedrock's (default ``{"bedrock"}``). ``strict=True`` raises
    :class:`~partwire.errors.LossError` instead of degrading.

    ``settings`` (:class:`~partwire.settings.RequestSettings`, or a mapping of its fields) go to
    ``inferenceConfig``, ``toolConfig.toolChoice``, ``outputConfig`` and, per model family,
    ``additionalModelRequestFields`` (reasoning, top_k); a setting Converse cannot take is a loss
    at ``request.settings.<field>``. ``max_tokens``, ``tool_choice`` and
    ``parallel_tool_calls`` are shortcuts for those settings and win over them; a
    ``tool_choice`` mapping is Converse's own ``toolChoice``, sent as it is.
    """
    held = hold(history)
    try:
        opts = _DEFAULTS if options is None and not switches else resolve_options(Options, options, switches)
        losses = LossCollector(NAME)
        resolved, native = resolve_settings(settings, max_tokens=max_tokens, tool_choice=tool_choice,
                                            parallel_tool_calls=parallel_tool_calls)
        request = build_request(
            history, model=model, tools=tools, settings=resolved, native_choice=native, params=params,
            issuers=accept_issuers if accept_issuers is not None else _OWN, losses=losses,
            foreign_thinking=opts.foreign_thinking, resolve_file=opts.resolve_file, blobs=opts.blobs)
        return project(request, losses, adapter=NAME, strict=strict, session=session)
    finally:
        if held:
            release()


def from_wire(response: Any, *, options: Options | Mapping[str, Any] | None = None,
              **switches: Any) -> AssistantMessage:
    """A Converse response (boto3's dict, JSON text or bytes) as an assistant message.

    An error body raises :class:`~partwire.adapters.ProviderError`; anything else that is not
    a response raises :class:`~partwire.adapters.WireFormatError`.
    """
    opts = resolve_options(Options, options, switches)
    try:
        return _from_wire(response, opts.model_id)
    except Exception as exc:
        raise boundary_error(exc, NAME, "response")  # noqa: B904 (it sets the cause)


def from_wire_request(request: Any, *,
                      options: Options | Mapping[str, Any] | None = None,
                      **switches: Any) -> ImportedRequest:
    """A Converse request (boto3 keyword arguments or the HTTP JSON body) read back.

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
    """Stream events from ``client.converse_stream(...)`` (the response or its ``stream``), its
    event dicts, or the raw ``application/vnd.amazon.eventstream`` body (bytes, whole or chunked).

    Ends with one ``MessageCompleteEvent``. An exception event (or botocore's
    ``EventStreamError`` for it) becomes a ``StreamErrorEvent`` and the partial message with
    ``status="error"``; a stream cut short ends with the partial message.
    """
    opts = resolve_options(Options, options, switches)
    return run_stream(functools.partial(Translator, opts.model_id), chunks)


def astream(chunks: Any, *,
            options: Options | Mapping[str, Any] | None = None,
            **switches: Any) -> AsyncIterator[StreamEvent]:
    """:func:`stream` over an asynchronous source (aiobotocore's stream, an async byte stream)."""
    opts = resolve_options(Options, options, switches)
    return arun_stream(functools.partial(Translator, opts.model_id), chunks)


def estimate_input_tokens(history: History, tools: Sequence[ToolSpec] = (), *,
                          model: str | None = None, tool_choice: ToolChoice | None = None,
                          params: Mapping[str, Any] | None = None,
                          settings: SettingsArg = None,
                          accept_issuers: Collection[str] | None = None,
                          options: Options | Mapping[str, Any] | None = None,
                          **switches: Any) -> int:
    """An offline estimate of the input tokens of ``to_wire(history, tools=tools)``.

    Counted on the body ``to_wire`` would send (``settings`` and the rest are ``to_wire``'s);
    Bedrock's ``CountTokens`` gives the exact figure for the models that support it.
    """
    opts = resolve_options(Options, options, switches)
    resolved, native = resolve_settings(settings, tool_choice=tool_choice)
    request = build_request(
        history, model=model or f"{ISSUER}:estimate", tools=tools, settings=resolved,
        native_choice=native, params=params,
        issuers=accept_issuers if accept_issuers is not None else _OWN, losses=LossCollector(NAME),
        foreign_thinking=opts.foreign_thinking, resolve_file=opts.resolve_file, blobs="base64")
    return estimate_request_tokens(request)
