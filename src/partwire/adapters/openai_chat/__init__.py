"""OpenAI Chat Completions API (``POST /chat/completions``) <-> canonical, with its dialects.

The mapping, every normalisation, every lossy case and what each OpenAI-compatible server
(OpenRouter, DeepSeek, vLLM, Ollama) does differently: ``docs/adapters/openai_chat.md``.
Works on plain JSON; accepts the ``openai`` SDK's objects by duck typing and never imports it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from partwire.adapters._common import ImportedRequest, Losses, ToolChoice, ToolSpec, wire_model
from partwire.adapters.openai_chat._decode import from_wire as _from_wire
from partwire.adapters.openai_chat._decode import from_wire_request as _from_wire_request
from partwire.adapters.openai_chat._dialects import (
    BASE_CAPABILITIES,
    DIALECTS,
    DeveloperRole,
    Dialect,
    DialectName,
    EchoReasoning,
    get_dialect,
)
from partwire.adapters.openai_chat._encode import Encoder
from partwire.adapters.openai_chat._parts import FileResolver
from partwire.adapters.openai_chat._stream import Translator, aiter_wire_chunks, iter_wire_chunks
from partwire.adapters.openai_chat._tokens import estimate_request_tokens
from partwire.adapters.openai_chat._tools import tool_choice_to_wire, tool_to_wire
from partwire.projection import Projection, make_projection

if TYPE_CHECKING:
    from partwire.history import History
    from partwire.messages import AssistantMessage
    from partwire.streaming import StreamEvent

__all__ = [
    "CAPABILITIES",
    "DIALECTS",
    "NAME",
    "DeveloperRole",
    "Dialect",
    "DialectName",
    "EchoReasoning",
    "astream",
    "estimate_input_tokens",
    "from_wire",
    "from_wire_request",
    "stream",
    "to_wire",
]

NAME = "openai_chat"
"""The adapter's name in the registry."""

CAPABILITIES = BASE_CAPABILITIES
"""What OpenAI's own Chat Completions API takes; ``DIALECTS[name].capabilities`` for the others."""



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
    dialect: DialectName | Dialect = "openai",
    developer_role: DeveloperRole | None = None,
    echo_reasoning: EchoReasoning | None = None,
    resolve_file: FileResolver | None = None,
) -> Projection:
    """The request body for ``history``: ``client.chat.completions.create(**projection.request)``.

    ``model`` is the wire name or ``<issuer>:<name>`` (``openai:gpt-5``, ``openrouter:x/y``).
    ``dialect`` picks the server (``openai``, ``openrouter``, ``deepseek``, ``vllm``,
    ``ollama``, or a :class:`Dialect`). ``max_tokens`` sets the dialect's limit field
    (``max_completion_tokens`` for OpenAI). ``params`` adds any other body field verbatim
    (``stream``, ``stream_options``, ``response_format``, ``reasoning_effort``, ...).
    ``accept_issuers`` names whose opaque values and provider data count as the dialect's own
    (default: the dialect's issuer). ``developer_role`` sends developer messages natively
    (``developer``), as ``system`` or as ``user`` (default: the dialect's choice);
    ``echo_reasoning`` says which turns' reasoning text goes back to a dialect that returns it.
    ``resolve_file`` reads workspace file references so they can be sent inline.
    ``strict=True`` raises :class:`~partwire.errors.LossError` instead of degrading.
    """
    chosen = get_dialect(dialect)
    losses = Losses(NAME)
    request = _request(history, model=model, tools=tools, tool_choice=tool_choice,
                       max_tokens=max_tokens, params=params, losses=losses,
                       accept_issuers=accept_issuers, parallel_tool_calls=parallel_tool_calls,
                       dialect=chosen, developer_role=developer_role,
                       echo_reasoning=echo_reasoning, resolve_file=resolve_file)
    return make_projection(request, losses.items, adapter=NAME, strict=strict, session=session)


def from_wire(response: Any, *, dialect: DialectName | Dialect = "openai",
              choice: int = 0) -> AssistantMessage:
    """A response body (dict, JSON text, or the SDK's ``ChatCompletion``) as an assistant message.

    ``choice`` picks one of ``n`` choices. An error body raises
    :class:`~partwire.adapters.ProviderError`; anything else that is not a response raises
    :class:`~partwire.adapters.WireFormatError`.
    """
    return _from_wire(response, get_dialect(dialect), choice)


def from_wire_request(request: Any, *, dialect: DialectName | Dialect = "openai") -> ImportedRequest:
    """A request body written for this API, as history and tools (and the other fields).

    A stored chat log (a JSON list of messages) is read as the ``messages`` of a body.
    ``to_wire(r.history, **r.to_wire_kwargs(), dialect=dialect).request`` gives the body back
    (reasoning of earlier turns only with ``echo_reasoning="all"``).
    """
    return _from_wire_request(request, get_dialect(dialect))


def stream(chunks: Any, *, dialect: DialectName | Dialect = "openai",
           choice: int = 0) -> Iterator[StreamEvent]:
    """Stream events from SDK chunks, parsed JSON chunks, or raw SSE (bytes/text, whole or chunked).

    Ends with one ``MessageCompleteEvent`` holding the message. A mid-stream ``{"error": ...}``
    (or the SDK's exception for it) becomes a ``StreamErrorEvent`` and the partial message with
    ``status="error"``; a stream cut short (no ``finish_reason``, no ``[DONE]``) ends with the
    partial message.
    """
    translator = Translator(get_dialect(dialect), choice)
    feed = translator.feed
    for chunk in iter_wire_chunks(chunks):
        yield from feed(chunk)
    yield from translator.finish_stream()


async def astream(chunks: Any, *, dialect: DialectName | Dialect = "openai",
                  choice: int = 0) -> AsyncIterator[StreamEvent]:
    """:func:`stream` over an asynchronous source (the async SDK stream, an httpx byte stream)."""
    if not hasattr(chunks, "__aiter__"):
        for event in stream(chunks, dialect=dialect, choice=choice):
            yield event
        return
    translator = Translator(get_dialect(dialect), choice)
    async for chunk in aiter_wire_chunks(chunks):
        for event in translator.feed(chunk):
            yield event
    for event in translator.finish_stream():
        yield event


def estimate_input_tokens(history: History, tools: Sequence[ToolSpec] = (), *,
                          dialect: DialectName | Dialect = "openai") -> int:
    """A rough, offline estimate of the input tokens of ``to_wire(history, tools=tools)``.

    About 4 characters per token for text and JSON, 4 tokens per message, 765 per image (85 at
    ``detail="low"``), 1,500 per estimated PDF page. Providers count exactly; this routes.
    """
    chosen = get_dialect(dialect)
    request = _request(history, model=f"{chosen.issuer}:estimate", tools=tools, tool_choice=None,
                       max_tokens=None, params=None, losses=Losses(NAME), accept_issuers=None,
                       parallel_tool_calls=None, dialect=chosen, developer_role=None,
                       echo_reasoning=None, resolve_file=None)
    return estimate_request_tokens(request)


def _request(
    history: History, *, model: str, tools: Sequence[ToolSpec], tool_choice: ToolChoice | None,
    max_tokens: int | None, params: Mapping[str, Any] | None, losses: Losses,
    accept_issuers: Collection[str] | None, parallel_tool_calls: bool | None, dialect: Dialect,
    developer_role: DeveloperRole | None, echo_reasoning: EchoReasoning | None,
    resolve_file: FileResolver | None,
) -> dict[str, Any]:
    issuers = accept_issuers if accept_issuers is not None else {dialect.issuer}
    encoder = Encoder(history, dialect=dialect, issuers=issuers, losses=losses,
                      developer_role=developer_role, echo_reasoning=echo_reasoning,
                      resolve_file=resolve_file)
    request: dict[str, Any] = {"model": wire_model(model, dialect.issuer), "messages": encoder.run()}
    if tools:
        request["tools"] = [tool_to_wire(t, f"tools[{i}]", losses) for i, t in enumerate(tools)]
    choice = tool_choice_to_wire(tool_choice)
    if choice is not None:
        request["tool_choice"] = choice
    if parallel_tool_calls is not None:
        request["parallel_tool_calls"] = parallel_tool_calls
    if max_tokens is not None:
        request[dialect.max_tokens_field] = max_tokens
    for key, value in (params or {}).items():
        if key in request:
            raise ValueError(f"params[{key!r}] conflicts with a field to_wire builds; pass it as "
                             "its own argument (or put it in the history)")
        request[key] = value
    return request

