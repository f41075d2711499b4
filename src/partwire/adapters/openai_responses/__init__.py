"""OpenAI Responses API (``POST /responses``) <-> canonical.

The mapping, every lossy case and the two ways to continue a conversation (stateless and
chained): ``docs/adapters/openai_responses.md``. Works on plain JSON; accepts the ``openai``
SDK's objects by duck typing and never imports it.
"""

from __future__ import annotations

from dataclasses import dataclass

from partwire.adapters import Capabilities
from partwire.adapters._surface import (
    ESTIMATE,
    EVENTS,
    RAISES,
    READ,
    SAME_BODY,
    SETTINGS,
    Docs,
    surface,
)
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

__all__ = ["CAPABILITIES", "NAME", "ContinuationMode", "Options", "astream",
           "estimate_input_tokens", "from_wire", "from_wire_request", "stream", "to_wire"]

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


_SURFACE = surface(
    NAME, Options, __name__, build=build_request, decode=_from_wire, read=_from_wire_request,
    count=estimate_request_tokens, translator=lambda options: Translator,
    docs=Docs(
        to_wire=(
            """The request body for ``history``: ``client.responses.create(**projection.request)``.

            ``model`` is the wire name or ``openai:<name>``. ``max_tokens`` sets
            ``max_output_tokens``. ``params`` adds any other body field verbatim (``reasoning``,
            ``text``, ``stream``, ``metadata``, ...). ``accept_issuers`` names whose opaque values and
            provider data count as OpenAI's (default ``{"openai"}``). ``options`` (or its fields as
            keywords) holds the adapter's switches: :class:`Options`. ``strict=True`` raises
            :class:`~partwire.errors.LossError` instead of degrading.
            """,
            SETTINGS,
        ),
        from_wire=(
            """A response object (dict, JSON text, or the SDK's ``Response``) as an assistant message.""",
            RAISES,
        ),
        from_wire_request=(
            READ,
            """``to_wire(r.history, **r.to_wire_kwargs()).request`` gives the body back: the import
            re-exports with ``continuation="none"``, its own ``store``/``include`` kept in ``params``.
            """,
        ),
        stream=(
            EVENTS,
            """Ends with one ``MessageCompleteEvent`` holding the message. An ``error`` event or
            ``response.failed`` becomes a ``StreamErrorEvent`` and the message so far with
            ``status="error"``; a stream cut short ends with the partial message.
            """,
        ),
        estimate_input_tokens=(
            ESTIMATE,
            """Counted on the body ``to_wire`` would send. The API's ``POST /responses/input_tokens``
            gives the exact figure.
            """,
            SAME_BODY,
        ),
    ),
)

to_wire, from_wire, from_wire_request, stream, astream, estimate_input_tokens = _SURFACE
