"""Anthropic Messages API (``POST /v1/messages``) <-> canonical.

The mapping, every normalisation and every lossy case: ``docs/adapters/anthropic.md``.
Works on plain JSON; accepts the ``anthropic`` SDK's objects by duck typing and never imports it.
"""

from __future__ import annotations

from dataclasses import dataclass

from partwire.adapters import Capabilities
from partwire.adapters._surface import (
    ESTIMATE,
    EVENTS,
    RAISES,
    READ,
    READ_BACK,
    SAME_BODY,
    SETTINGS,
    Docs,
    surface,
)
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

__all__ = ["CAPABILITIES", "DEFAULT_MAX_TOKENS", "NAME", "Options", "astream",
           "estimate_input_tokens", "from_wire", "from_wire_request", "stream", "to_wire"]

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



_SURFACE = surface(
    NAME, Options, __name__, build=build_request, decode=_from_wire, read=_from_wire_request,
    count=estimate_request_tokens, translator=lambda options: Translator,
    docs=Docs(
        to_wire=(
            """The request body for ``history``: ``client.messages.create(**projection.request)``.

            ``model`` is the wire name or ``anthropic:<name>`` (or an alias such as ``sonnet``).
            ``params`` adds any other body field verbatim (``thinking``, ``temperature``, ``stream``,
            ``metadata``, ``output_config``...). ``accept_issuers`` names whose opaque values and
            provider data count as Anthropic's (default ``{"anthropic"}``; add a proxy's name).
            ``options`` (or its fields as keywords) holds the adapter's switches: :class:`Options`.
            ``strict=True`` raises :class:`~partwire.errors.LossError` instead of degrading.
            """,
            SETTINGS,
        ),
        from_wire=(
            """A response body (dict, JSON text, or the SDK's ``Message``) as an assistant message.""",
            RAISES,
        ),
        from_wire_request=(READ, READ_BACK),
        stream=(
            EVENTS,
            """Ends with one ``MessageCompleteEvent`` holding the message. An in-stream ``error`` (or the
            SDK's exception for it) becomes a ``StreamErrorEvent`` and the partial message with
            ``status="error"``; a stream cut short ends with the partial message.
            """,
        ),
        estimate_input_tokens=(
            ESTIMATE,
            """Counted on the body ``to_wire`` would send. Use the API's ``count_tokens`` endpoint when
            you need the exact figure.
            """,
            SAME_BODY,
        ),
    ),
)

to_wire, from_wire, from_wire_request, stream, astream, estimate_input_tokens = _SURFACE
