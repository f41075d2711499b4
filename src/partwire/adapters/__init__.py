"""Adapters: one module per wire API, all with the same public surface (DESIGN §7).

Every adapter module defines, in this order: ``NAME``, ``CAPABILITIES``, ``Options``, ``to_wire``,
``from_wire``, ``from_wire_request``, ``stream``, ``astream`` and ``estimate_input_tokens`` (the
six functions made by the adapters' kernel from the adapter's hooks).
:class:`Adapter` states that surface as a protocol, so an adapter that drifts from it is a type
error; :func:`get_adapter` imports an adapter lazily by name and checks it at run time too.
Importing this package imports no provider SDK and no adapter.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from partwire.adapters.requests import ImportedRequest, SettingsArg, ToolChoice, ToolSpec
from partwire.errors import ProviderError, UnknownAdapterError, WireFormatError

if TYPE_CHECKING:
    from partwire.history import History
    from partwire.messages import AssistantMessage
    from partwire.projection import Projection
    from partwire.streaming import StreamEvent

__all__ = [
    "ADAPTER_ALIASES",
    "ADAPTER_NAMES",
    "Adapter",
    "Capabilities",
    "ImportedRequest",
    "ProviderError",
    "SettingsArg",
    "ToolChoice",
    "ToolSpec",
    "UnknownAdapterError",
    "WireFormatError",
    "adapter_name",
    "get_adapter",
]

# Public name -> module. Names with a dash are accepted too (``openai-chat``), as the CLI says them.
_MODULES: dict[str, str] = {
    "anthropic": "partwire.adapters.anthropic",
    "openai_chat": "partwire.adapters.openai_chat",
    "openai_responses": "partwire.adapters.openai_responses",
    "google": "partwire.adapters.google",
    "bedrock": "partwire.adapters.bedrock",
    "ollama": "partwire.adapters.ollama",
    "cohere": "partwire.adapters.cohere",
}

ADAPTER_NAMES: tuple[str, ...] = tuple(_MODULES)
"""The adapters partwire knows, by name."""

ADAPTER_ALIASES: dict[str, str] = {
    "openai-chat": "openai_chat",
    "openai": "openai_chat",
    "openai-responses": "openai_responses",
    "gemini": "google",
}
"""Other names every entry point (``get_adapter``, ``convert``, ``Session``, the CLI) takes for an
adapter: the dashed spelling the command line uses, and the provider names ``openai`` (Chat
Completions) and ``gemini``."""


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a wire API (or one model behind it) can take: honest declarations, not hopes.

    Narrow it for a model with ``dataclasses.replace(CAPABILITIES, images=False)``.
    """

    name: str
    """The adapter (or model) these describe."""
    issuer: str
    """The issuer whose opaque values and provider data the adapter reads by default."""
    thinking: bool
    """Reasoning parts can be sent back (with their issuer's signature)."""
    images: bool
    """Image input."""
    documents: bool
    """Document input (PDF, text)."""
    audio: bool
    """Audio input."""
    tools: bool
    """Client tools: definitions, calls and results."""
    server_tools: bool
    """Provider-run tools (web search, code execution) and their result blocks."""
    system_prompt: bool
    """A system prompt."""
    system_messages_in_list: bool
    """System messages in the middle of the conversation, where they were said."""
    developer_role: bool
    """A native developer role (otherwise developer messages join a user turn)."""
    structured_output: bool
    """Output constrained to a JSON Schema."""
    streaming: bool
    """Streamed responses."""
    streaming_tool_calls: bool
    """Tool-call arguments streamed in fragments."""
    parallel_tool_calls: bool
    """Several tool calls in one response."""
    prompt_caching: bool
    """Explicit prompt-cache breakpoints."""
    citations: bool
    """Typed citations on text."""
    refusals: bool
    """A distinct refusal part (otherwise refusals travel as text)."""
    image_media_types: frozenset[str] = frozenset()
    """Image media types accepted; empty when none or unknown."""
    document_media_types: frozenset[str] = frozenset()
    """Document media types accepted."""
    audio_media_types: frozenset[str] = frozenset()
    """Audio media types accepted."""
    media_sources: frozenset[str] = frozenset()
    """Media source kinds it reads: ``url``, ``base64``, ``provider_file``, ``text``."""
    max_messages: int | None = None
    """Most messages in one request, when documented."""
    max_images: int | None = None
    """Most images in one request, when documented."""
    max_tool_name_length: int | None = None
    """Longest tool name accepted."""
    call_ids: bool = True
    """Tool calls carry an id on the wire; without one (Ollama) a result is paired with its call
    by order and tool name, and a canonical call id does not travel."""


@runtime_checkable
class Adapter(Protocol):
    """The public surface of every adapter module (a module satisfies it structurally).

    ``options`` takes the adapter's ``Options``, a mapping of its fields, or ``None``; its fields
    are also accepted as keywords (``switches``). See ``docs/adapters/index.md``.
    """

    NAME: str
    CAPABILITIES: Capabilities
    Options: type[Any]

    def to_wire(
        self, history: History, *, model: str, tools: Sequence[ToolSpec] = (),
        tool_choice: ToolChoice | None = None, max_tokens: int | None = None,
        params: Mapping[str, Any] | None = None, parallel_tool_calls: bool | None = None,
        settings: SettingsArg = None, strict: bool = False,
        accept_issuers: Collection[str] | None = None, session: str | None = None,
        options: Any = None, **switches: Any,
    ) -> Projection:
        """The request body for ``history`` and what it lost.

        ``settings`` (:class:`~partwire.settings.RequestSettings` or a mapping of its fields)
        are written into the API's own fields; what the API cannot take is a loss at
        ``request.settings.<field>``. ``max_tokens``, ``tool_choice`` and
        ``parallel_tool_calls`` are shortcuts for those settings and win over them when given;
        a ``tool_choice`` mapping is the API's own, sent as it is.
        """
        ...

    def from_wire(self, response: Any, *, options: Any = None, **switches: Any) -> AssistantMessage:
        """One response body (a dict, JSON text or the SDK's object) as an assistant message."""
        ...

    def from_wire_request(self, request: Any, *, options: Any = None,
                          **switches: Any) -> ImportedRequest:
        """A request body written for this API, read back into canonical form."""
        ...

    def stream(self, chunks: Any, *, options: Any = None, **switches: Any) -> Iterator[StreamEvent]:
        """Stream events from SDK events, parsed JSON events or raw SSE bytes."""
        ...

    def astream(self, chunks: Any, *, options: Any = None,
                **switches: Any) -> AsyncIterator[StreamEvent]:
        """:meth:`stream` over an asynchronous source."""
        ...

    def estimate_input_tokens(self, history: History, tools: Sequence[ToolSpec] = (), *,
                              model: str | None = None, tool_choice: ToolChoice | None = None,
                              params: Mapping[str, Any] | None = None,
                              settings: SettingsArg = None,
                              accept_issuers: Collection[str] | None = None,
                              options: Any = None, **switches: Any) -> int:
        """A provider-free estimate of the input tokens of ``to_wire(history, tools=tools)``."""
        ...


def adapter_name(name: str) -> str:
    """The adapter's own name for ``name`` or one of its aliases (``openai`` -> ``openai_chat``);
    :class:`UnknownAdapterError`, listing the names and aliases, for anything else."""
    if name in _MODULES:
        return name
    found = ADAPTER_ALIASES.get(name)
    if found is None:
        raise UnknownAdapterError(name, f"known adapters are {_known()}")
    return found


def _known() -> str:
    named = []
    for adapter in ADAPTER_NAMES:
        aliases = [alias for alias, to in ADAPTER_ALIASES.items() if to == adapter]
        named.append(f"{adapter} (or {', '.join(aliases)})" if aliases else adapter)
    return ", ".join(named)


def get_adapter(name: str) -> Adapter:
    """The adapter module called ``name`` (``anthropic``, ``openai-chat``, ...), imported on first use."""
    module_name = _MODULES[adapter_name(name)]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise UnknownAdapterError(name, "it is not implemented in this version") from exc
    if not isinstance(module, Adapter):
        missing = [m for m in ("NAME", "CAPABILITIES", "Options", "to_wire", "from_wire", "from_wire_request",
                               "stream", "astream", "estimate_input_tokens") if not hasattr(module, m)]
        raise UnknownAdapterError(name, f"module {module_name} lacks {', '.join(missing)}")
    return cast(Adapter, module)
