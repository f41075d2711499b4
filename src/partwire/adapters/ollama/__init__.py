"""Ollama's native chat API (``POST /api/chat``) <-> canonical.

The mapping, every normalisation and every lossy case, and how it differs from the
OpenAI-compatible endpoint (``openai_chat`` with ``dialect="ollama"``): ``docs/adapters/ollama.md``.
Works on plain JSON and NDJSON; accepts the ``ollama`` package's objects by duck typing and never
imports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from partwire.adapters import Capabilities
from partwire.adapters._surface import ESTIMATE, READ, Docs, surface
from partwire.adapters.ollama._decode import from_wire as _from_wire
from partwire.adapters.ollama._request import build_request
from partwire.adapters.ollama._request import from_wire_request as _from_wire_request
from partwire.adapters.ollama._stream import Translator
from partwire.adapters.ollama._tokens import estimate_request_tokens
from partwire.adapters.ollama._wire import IMAGE_MEDIA_TYPES, ISSUER

__all__ = ["CAPABILITIES", "NAME", "Options", "astream", "estimate_input_tokens", "from_wire",
           "from_wire_request", "stream", "to_wire"]

NAME = "ollama"
"""The adapter's name in the registry."""

CAPABILITIES = Capabilities(
    name=NAME,
    issuer=ISSUER,
    thinking=True,  # the text only: Ollama has no signatures
    images=True,
    documents=False,
    audio=False,
    tools=True,
    server_tools=False,
    system_prompt=True,
    system_messages_in_list=True,
    developer_role=False,
    structured_output=True,
    streaming=True,
    streaming_tool_calls=False,  # a call arrives whole, in one line
    parallel_tool_calls=True,
    prompt_caching=False,  # the server reuses its KV cache by itself; nothing to mark
    citations=False,
    refusals=False,
    image_media_types=IMAGE_MEDIA_TYPES,
    media_sources=frozenset({"base64"}),
    call_ids=False,  # calls and results are paired by order and tool name
)
"""What Ollama's chat API takes (what a model behind it takes depends on the model)."""


@dataclass(frozen=True, slots=True)
class Options:
    """The Ollama adapter's own switches (``options=`` on every function, or as keywords)."""

    developer_role: Literal["system", "user"] = "system"
    """How a developer message goes, Ollama having no developer role: as a ``system`` message
    (most chat templates place those anywhere) or as a ``user`` one (for a template that keeps
    only the first system message). Either way a ``downgraded`` loss."""


_SURFACE = surface(
    NAME, Options, __name__, build=build_request, decode=_from_wire, read=_from_wire_request,
    count=estimate_request_tokens, translator=lambda options: Translator,
    docs=Docs(
        to_wire="""The request body for ``history``: ``ollama.Client().chat(**projection.request)``.

        ``model`` is the model tag (``llama3.1``, ``qwen3:8b``) or ``ollama:<tag>``. ``params``
        adds any other body field verbatim (``keep_alive``, ``stream``, ``options`` such as
        ``num_ctx``, which join the options the settings write). ``accept_issuers`` names whose
        provider data counts as Ollama's (default ``{"ollama"}``). ``strict=True`` raises
        :class:`~partwire.errors.LossError` instead of degrading.

        ``settings`` (:class:`~partwire.settings.RequestSettings`, or a mapping of its fields) are
        written into ``options``, ``think`` and ``format``; a setting Ollama cannot take (tool
        choice, end-user id) is a loss at ``request.settings.<field>``. Calls go without ids;
        results name their tool, and a history whose results Ollama would pair with the wrong
        calls is reported (``id_mapped``).
        """,
        from_wire="""A response body (dict, JSON text, or the package's ``ChatResponse``) as an assistant message.

        An error body (``{"error": "..."}``) raises :class:`~partwire.adapters.ProviderError`;
        anything else that is not a response raises :class:`~partwire.adapters.WireFormatError`.
        Calls get ids made from their place and content: the same body gives the same ids.
        """,
        from_wire_request=(
            READ,
            """``to_wire(r.history, **r.to_wire_kwargs()).request`` gives the body back. Calls get ids
            made from their place and content, and results are paired with them by order and name.
            """,
        ),
        stream="""Stream events from the NDJSON body (bytes or text, whole or chunked), parsed lines, or ``ChatResponse`` objects.

        Ends with one ``MessageCompleteEvent`` holding the message. An ``{"error": ...}`` line
        becomes a ``StreamErrorEvent`` and the partial message with ``status="error"``; a stream
        cut short ends with the partial message.
        """,
        astream=""":func:`stream` over an asynchronous source (the async client's stream, an httpx byte stream).""",
        estimate_input_tokens=(
            ESTIMATE,
            """Counted on the body ``to_wire`` would send, as the Chat Completions body that says the
            same (``o200k_base``): the order of the model's own count, not the count itself.
            """,
        ),
    ),
)

to_wire, from_wire, from_wire_request, stream, astream, estimate_input_tokens = _SURFACE
