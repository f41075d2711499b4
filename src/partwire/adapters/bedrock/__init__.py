"""AWS Bedrock Converse API (``Converse`` / ``ConverseStream`` of ``bedrock-runtime``) <-> canonical.

The mapping, every normalisation and every lossy case: ``docs/adapters/bedrock.md``.
Works on plain data: ``to_wire`` gives the keyword arguments of boto3's
``client.converse(**request)`` / ``client.converse_stream(**request)``; the decoders take what
boto3 returns, JSON text, or the raw HTTP bodies (the stream's binary event stream included).
Never imports boto3 or botocore.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from partwire.adapters import Capabilities
from partwire.adapters._surface import ESTIMATE, RAISES, READ_BACK, Docs, surface
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

__all__ = ["CAPABILITIES", "NAME", "Options", "astream", "estimate_input_tokens", "from_wire",
           "from_wire_request", "stream", "to_wire"]

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


_SURFACE = surface(
    NAME, Options, __name__, build=build_request, decode=_from_wire, read=_from_wire_request,
    count=estimate_request_tokens, translator=lambda options: partial(Translator, options.model_id),
    docs=Docs(
        to_wire="""The request for ``history``: ``client.converse(**projection.request)``.

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
        """,
        from_wire=(
            """A Converse response (boto3's dict, JSON text or bytes) as an assistant message.""",
            RAISES,
        ),
        from_wire_request=(
            """A Converse request (boto3 keyword arguments or the HTTP JSON body) read back.""",
            READ_BACK,
        ),
        stream="""Stream events from ``client.converse_stream(...)`` (the response or its ``stream``), its
        event dicts, or the raw ``application/vnd.amazon.eventstream`` body (bytes, whole or chunked).

        Ends with one ``MessageCompleteEvent``. An exception event (or botocore's
        ``EventStreamError`` for it) becomes a ``StreamErrorEvent`` and the partial message with
        ``status="error"``; a stream cut short ends with the partial message.
        """,
        astream=""":func:`stream` over an asynchronous source (aiobotocore's stream, an async byte stream).""",
        estimate_input_tokens=(
            ESTIMATE,
            """Counted on the body ``to_wire`` would send (``settings`` and the rest are ``to_wire``'s);
            Bedrock's ``CountTokens`` gives the exact figure for the models that support it.
            """,
        ),
    ),
)

to_wire, from_wire, from_wire_request, stream, astream, estimate_input_tokens = _SURFACE
