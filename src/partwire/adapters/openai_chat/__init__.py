"""OpenAI Chat Completions API (``POST /chat/completions``) <-> canonical, with its dialects.

The mapping, every normalisation, every lossy case and what each OpenAI-compatible server
(OpenRouter, DeepSeek, vLLM, Ollama, Mistral) does differently: ``docs/adapters/openai_chat.md``.
Works on plain JSON; accepts the ``openai`` SDK's objects by duck typing and never imports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from partwire.adapters._surface import ESTIMATE, READ, SAME_BODY, SETTINGS, Docs, surface
from partwire.adapters.openai_chat._decode import from_wire as _from_wire
from partwire.adapters.openai_chat._dialects import (
    BASE_CAPABILITIES,
    DIALECTS,
    DeveloperRole,
    Dialect,
    DialectName,
    EchoReasoning,
    get_dialect,
)
from partwire.adapters.openai_chat._parts import FileResolver
from partwire.adapters.openai_chat._request import build_request
from partwire.adapters.openai_chat._request import from_wire_request as _from_wire_request
from partwire.adapters.openai_chat._stream import Translator
from partwire.adapters.openai_chat._tokens import estimate_request_tokens

__all__ = ["CAPABILITIES", "DIALECTS", "NAME", "DeveloperRole", "Dialect", "DialectName",
           "EchoReasoning", "Options", "astream", "estimate_input_tokens", "from_wire",
           "from_wire_request", "stream", "to_wire"]

NAME = "openai_chat"
"""The adapter's name in the registry."""

CAPABILITIES = BASE_CAPABILITIES
"""What OpenAI's own Chat Completions API takes; ``DIALECTS[name].capabilities`` for the others."""


@dataclass(frozen=True, slots=True)
class Options:
    """The Chat Completions adapter's own switches (``options=`` on every function, or keywords)."""

    dialect: DialectName | Dialect = "openai"
    """The server: ``openai``, ``openrouter``, ``deepseek``, ``vllm``, ``ollama``, ``mistral``, or
    a :class:`Dialect` of your own."""
    developer_role: DeveloperRole | None = None
    """Send developer messages as ``developer``, ``system`` or ``user`` (default: the dialect's)."""
    echo_reasoning: EchoReasoning | None = None
    """Which turns' reasoning text goes back to a dialect that returns it (default: the dialect's)."""
    resolve_file: FileResolver | None = None
    """Reads workspace file references, so they can be sent inline."""
    choice: int = 0
    """Which of ``n`` choices ``from_wire`` and ``stream`` read."""


_SURFACE = surface(
    NAME, Options, __name__, build=build_request, decode=_from_wire, read=_from_wire_request,
    count=estimate_request_tokens, translator=lambda options: partial(Translator, get_dialect(options.dialect), options.choice),
    tool_choice_words=lambda options: get_dialect(options.dialect).tool_choices,
    docs=Docs(
        to_wire=(
            """The request body for ``history``: ``client.chat.completions.create(**projection.request)``.

            ``model`` is the wire name or ``<issuer>:<name>`` (``openai:gpt-5``, ``openrouter:x/y``).
            ``max_tokens`` sets the dialect's limit field (``max_completion_tokens`` for OpenAI).
            ``params`` adds any other body field verbatim (``stream``, ``stream_options``,
            ``response_format``, ``reasoning_effort``, ...). ``accept_issuers`` names whose opaque values
            and provider data count as the dialect's own (default: the dialect's issuer). ``options``
            (or its fields as keywords: ``dialect="deepseek"``) holds the adapter's switches:
            :class:`Options`. ``strict=True`` raises :class:`~partwire.errors.LossError` instead of
            degrading.
            """,
            SETTINGS,
        ),
        from_wire="""A response body (dict, JSON text, or the SDK's ``ChatCompletion``) as an assistant message.

        ``Options.choice`` picks one of ``n`` choices. An error body raises
        :class:`~partwire.adapters.ProviderError`; anything else that is not a response raises
        :class:`~partwire.adapters.WireFormatError`.
        """,
        from_wire_request=(
            READ,
            """A stored chat log (a JSON list of messages) is read as the ``messages`` of a body.
            ``to_wire(r.history, **r.to_wire_kwargs()).request`` gives the body back: the kwargs carry
            the dialect it was read as and ``echo_reasoning="all"`` (the body's reasoning of earlier
            turns goes back too).
            """,
        ),
        stream="""Stream events from SDK chunks, parsed JSON chunks, or raw SSE (bytes/text, whole or chunked).

        Ends with one ``MessageCompleteEvent`` holding the message. A mid-stream ``{"error": ...}``
        (or the SDK's exception for it) becomes a ``StreamErrorEvent`` and the partial message with
        ``status="error"``; a stream cut short (no ``finish_reason``, no ``[DONE]``) ends with the
        partial message.
        """,
        estimate_input_tokens=(
            ESTIMATE,
            """Counted on the body ``to_wire`` would send; providers count exactly, this routes.""",
            SAME_BODY,
        ),
    ),
)

to_wire, from_wire, from_wire_request, stream, astream, estimate_input_tokens = _SURFACE
