"""Cohere v2 Chat API (``POST /v2/chat``) <-> canonical.

The mapping, every normalisation and every lossy case: ``docs/adapters/cohere.md``.
Works on plain JSON; accepts the ``cohere`` SDK's objects by duck typing and never imports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from partwire.adapters import Capabilities
from partwire.adapters._surface import EVENTS, READ, SETTINGS, Docs, surface
from partwire.adapters.cohere._decode import from_wire as _from_wire
from partwire.adapters.cohere._parts import ForeignThinking
from partwire.adapters.cohere._request import build_request
from partwire.adapters.cohere._request import from_wire_request as _from_wire_request
from partwire.adapters.cohere._stream import Translator
from partwire.adapters.cohere._tokens import estimate_request_tokens
from partwire.adapters.cohere._wire import DOCUMENT_MEDIA_TYPES, IMAGE_MEDIA_TYPES, ISSUER

__all__ = ["CAPABILITIES", "NAME", "Options", "astream", "estimate_input_tokens", "from_wire",
           "from_wire_request", "stream", "to_wire"]

NAME = "cohere"
"""The adapter's name in the registry."""

CAPABILITIES = Capabilities(
    name=NAME,
    issuer=ISSUER,
    thinking=True,
    images=True,  # the vision models (command-a-vision); others refuse images
    documents=True,  # text and JSON documents, in the request's documents or a tool result
    audio=False,
    tools=True,
    server_tools=False,
    system_prompt=True,
    system_messages_in_list=True,
    developer_role=False,
    structured_output=True,
    streaming=True,
    streaming_tool_calls=True,
    parallel_tool_calls=True,
    prompt_caching=False,  # Cohere caches by itself; a request has no cache breakpoints
    citations=True,
    refusals=False,
    image_media_types=IMAGE_MEDIA_TYPES,
    document_media_types=DOCUMENT_MEDIA_TYPES,
    media_sources=frozenset({"url", "base64", "text"}),
)
"""What the v2 Chat API takes."""


@dataclass(frozen=True, slots=True)
class Options:
    """The Cohere adapter's own switches (``options=`` on every function, or as keywords)."""

    foreign_thinking: ForeignThinking = "thinking"
    """Reasoning parts: send their text as Cohere ``thinking`` (Cohere's carry no signature, and
    it reads anyone's), as plain ``text``, or ``drop`` them (with a loss)."""
    model_id: str | None = None
    """For ``from_wire`` and ``stream``: the model the request named, recorded as
    ``model="cohere:<id>"`` (Cohere's answers do not say which model answered)."""


_SURFACE = surface(
    NAME, Options, __name__, build=build_request, decode=_from_wire, read=_from_wire_request,
    count=estimate_request_tokens, translator=lambda options: Translator if options.model_id is None else partial(Translator, options.model_id),
    docs=Docs(
        to_wire=(
            """The request body for ``history``: ``client.v2.chat(**projection.request)``.

            ``model`` is the wire name or ``cohere:<name>``. ``params`` adds any other body field
            verbatim (``safety_mode``, ``citation_options``, ``logprobs``, ``priority``...).
            ``accept_issuers`` names whose echo state counts as Cohere's (default ``{"cohere"}``).
            ``options`` (or its fields as keywords) holds the adapter's switches: :class:`Options`.
            ``strict=True`` raises :class:`~partwire.errors.LossError` instead of degrading.
            """,
            SETTINGS,
        ),
        from_wire="""A response body (dict, JSON text, or the SDK's ``V2ChatResponse``) as an assistant message.

        An error body (``{"message": ...}``) raises :class:`~partwire.adapters.ProviderError`;
        anything else that is not a response raises :class:`~partwire.adapters.WireFormatError`.
        """,
        from_wire_request=(
            READ,
            """``to_wire(r.history, **r.to_wire_kwargs()).request`` gives the body back. The body's
            ``documents`` become a user message of document parts.
            """,
        ),
        stream=(
            EVENTS,
            """Ends with one ``MessageCompleteEvent`` holding the message. A ``message-end`` with an
            ``error`` becomes a ``StreamErrorEvent`` and the message with ``status="error"``; a
            stream cut short ends with the partial message.
            """,
        ),
        estimate_input_tokens="""An offline estimate of the billed input tokens of ``to_wire(history, tools=tools)``.

        Counted on the body ``to_wire`` would send, as Cohere bills it (without its prompt
        template). Cohere's ``tokenize`` endpoint gives exact counts.

        ``model``, ``tool_choice``, ``params``, ``settings`` and ``accept_issuers`` are
        ``to_wire``'s: pass the ones the request will be sent with.
        """,
    ),
)

to_wire, from_wire, from_wire_request, stream, astream, estimate_input_tokens = _SURFACE
