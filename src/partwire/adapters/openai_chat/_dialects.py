"""OpenAI-compatible servers as data: what each one adds to, or leaves out of, Chat Completions.

A dialect is chosen by name (``dialect="openrouter"``) or given as a :class:`Dialect` for a server
this table does not know. OpenAI's own API is the ``openai`` dialect. Facts about third-party
servers come from memory, not from a source partwire can read (``docs/adapters/openai_chat.md``
says which); each one sits behind a field here, so a caller can correct it without a release.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from typing import Literal

from partwire.adapters import Capabilities
from partwire.adapters.openai_chat._wire import (
    AUDIO_FORMATS,
    DOCUMENT_MEDIA_TYPES,
    IMAGE_MEDIA_TYPES,
    ISSUER,
    admits_call_id,
)

__all__ = [
    "BASE_CAPABILITIES",
    "DIALECTS",
    "DeveloperRole",
    "Dialect",
    "DialectName",
    "EchoReasoning",
    "get_dialect",
]

DialectName = Literal["openai", "openrouter", "deepseek", "vllm", "ollama", "mistral"]
"""The dialects partwire knows."""
DeveloperRole = Literal["developer", "system", "user"]
"""How a developer message is sent: natively, as a system message, or as a user message."""
EchoReasoning = Literal["none", "current_turn", "all"]
"""Which assistant turns' reasoning text goes back: none, only the turn in progress (after the
last user message, i.e. a tool-call loop), or every turn."""

BASE_CAPABILITIES = Capabilities(
    name="openai_chat",
    issuer=ISSUER,
    thinking=False,  # OpenAI's Chat API hides reasoning: nothing can be sent back
    images=True,
    documents=True,
    audio=True,
    tools=True,
    server_tools=False,
    system_prompt=True,
    system_messages_in_list=True,
    developer_role=True,
    structured_output=True,
    streaming=True,
    streaming_tool_calls=True,
    parallel_tool_calls=True,
    # prompt_cache_breakpoint exists on the wire but has no canonical form; it passes through
    # provider_data only, so the adapter does not claim explicit caching.
    prompt_caching=False,
    # Responses carry url citations (decoded), but a request cannot send them back.
    citations=False,
    refusals=True,
    image_media_types=IMAGE_MEDIA_TYPES,
    document_media_types=DOCUMENT_MEDIA_TYPES,
    audio_media_types=frozenset(AUDIO_FORMATS),
    media_sources=frozenset({"url", "base64", "provider_file", "text"}),
    max_tool_name_length=64,
)
"""What OpenAI's own Chat Completions API takes."""


@dataclass(frozen=True, slots=True)
class Dialect:
    """One OpenAI-compatible server: its issuer, its reasoning fields and its defaults."""

    name: str
    """The dialect's name (``openrouter``)."""
    issuer: str
    """Issuer of the ids, reasoning and echo state this server hands out."""
    base_url: str
    """The usual ``base_url`` of the official client pointed at this server."""
    developer_role: DeveloperRole
    """How developer messages are sent unless ``to_wire(developer_role=...)`` says otherwise."""
    reasoning_fields: tuple[str, ...] = ()
    """Assistant-message (and delta) fields holding reasoning text; the first one present wins."""
    reasoning_details: bool = False
    """Whether the server sends OpenRouter's typed ``reasoning_details`` (signed, encrypted)."""
    echo_reasoning: EchoReasoning = "none"
    """Which turns' reasoning text is sent back unless ``to_wire(echo_reasoning=...)`` says otherwise."""
    max_tokens_field: str = "max_completion_tokens"
    """The body field ``to_wire(max_tokens=...)`` sets."""
    thinking_chunks: bool = False
    """Whether reasoning comes, and goes back, as ``{"type": "thinking"}`` chunks of ``content``
    (Mistral) rather than in a field of its own."""
    call_id_length: int | None = None
    """Call ids the server takes: exactly this many ASCII letters and digits (Mistral: 9). Any
    other id is sent as a digest of the canonical id of that length (``id_mapped``). ``None``:
    OpenAI's rule, any id of 1 to 64 characters."""
    tool_choices: frozenset[str] = frozenset()
    """``tool_choice`` strings the server takes beyond ``auto``, ``required`` and ``none``; they
    are sent as they are (Mistral's ``any``) instead of as their OpenAI equivalent."""
    padding_keys: frozenset[str] = frozenset()
    """Stream chunk keys that are random padding, different in every chunk (Mistral's ``p``):
    never kept."""
    capabilities: Capabilities = BASE_CAPABILITIES
    """What the server takes (for ``check_switch``)."""

    @property
    def extension_keys(self) -> frozenset[str]:
        """Message keys this dialect sends that the OpenAI SDK's request types do not declare."""
        keys = set(self.reasoning_fields)
        if self.reasoning_details:
            keys.add("reasoning_details")
        return frozenset(keys)

    def admits_call_id(self, call_id: str) -> bool:
        """Whether the server takes ``call_id`` as a tool-call id."""
        size = self.call_id_length
        if size is None:
            return admits_call_id(call_id)
        return len(call_id) == size and call_id.isascii() and call_id.isalnum()

    def short_call_id(self, canonical_id: str, attempt: int = 0) -> str:
        """The wire id for a call whose own id the server refuses: ``call_id_length`` base-62
        digits of the SHA-256 of the canonical id, so the same call gets the same id in every
        request, and its results agree with it. ``attempt`` > 0 derives another one (for the
        collision the encoder guards against: 62**9 ids make one unlikely beyond any history)."""
        size = self.call_id_length or 9
        seed = canonical_id if not attempt else f"{canonical_id}#{attempt}"
        number = int.from_bytes(hashlib.sha256(seed.encode()).digest(), "big")
        digits = []
        for _ in range(size):
            number, digit = divmod(number, 62)
            digits.append(_BASE62[digit])
        return "".join(digits)


_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _caps(name: str, issuer: str, **changes: object) -> Capabilities:
    return dataclasses.replace(BASE_CAPABILITIES, name=f"openai_chat:{name}", issuer=issuer,
                               developer_role=False, **changes)  # type: ignore[arg-type]


DIALECTS: dict[str, Dialect] = {
    "openai": Dialect(
        name="openai", issuer=ISSUER, base_url="https://api.openai.com/v1",
        developer_role="developer",
    ),
    # OpenRouter returns `reasoning` (text) and `reasoning_details` (typed, signed or encrypted)
    # and wants the details back unchanged to keep reasoning across tool calls.
    "openrouter": Dialect(
        name="openrouter", issuer="openrouter", base_url="https://openrouter.ai/api/v1",
        developer_role="system", reasoning_fields=("reasoning",), reasoning_details=True,
        echo_reasoning="all", max_tokens_field="max_tokens",
        capabilities=_caps("openrouter", "openrouter", thinking=True),
    ),
    # DeepSeek wants reasoning_content back within a tool-call loop and not from earlier turns.
    "deepseek": Dialect(
        name="deepseek", issuer="deepseek", base_url="https://api.deepseek.com",
        developer_role="system", reasoning_fields=("reasoning_content",),
        echo_reasoning="current_turn", max_tokens_field="max_tokens",
        capabilities=_caps("deepseek", "deepseek", thinking=True, images=False, documents=False,
                           audio=False, structured_output=False, refusals=False,
                           image_media_types=frozenset(), document_media_types=frozenset(),
                           audio_media_types=frozenset()),
    ),
    # Newer vLLM returns `reasoning`, older `reasoning_content`; tool calls stream by index.
    "vllm": Dialect(
        name="vllm", issuer="vllm", base_url="http://localhost:8000/v1",
        developer_role="system", reasoning_fields=("reasoning", "reasoning_content"),
        echo_reasoning="current_turn",
        capabilities=_caps("vllm", "vllm", thinking=True, documents=False, refusals=False,
                           document_media_types=frozenset()),
    ),
    # Ollama's /v1/chat/completions: `reasoning`; tool calls arrive whole; no usage details.
    "ollama": Dialect(
        name="ollama", issuer="ollama", base_url="http://localhost:11434/v1",
        developer_role="system", reasoning_fields=("reasoning",),
        echo_reasoning="current_turn", max_tokens_field="max_tokens",
        capabilities=_caps("ollama", "ollama", thinking=True, documents=False, audio=False,
                           refusals=False, document_media_types=frozenset(),
                           audio_media_types=frozenset(), media_sources=frozenset({"base64", "text"})),
    ),
    # Mistral (api.mistral.ai, SDK mistralai 3.7): tool-call ids are exactly 9 letters and digits
    # (a 400 otherwise); reasoning models answer with `content` as a list holding
    # {"type": "thinking", "thinking": [text chunks]} before the text; documents and audio are
    # chunks of Mistral's own shapes (document_url, file, input_audio as a string), not OpenAI's;
    # no refusal field; `tool_choice: "any"`; stream chunks carry random padding in `p`.
    "mistral": Dialect(
        name="mistral", issuer="mistral", base_url="https://api.mistral.ai/v1",
        developer_role="system", echo_reasoning="all", max_tokens_field="max_tokens",
        thinking_chunks=True, call_id_length=9, tool_choices=frozenset({"any"}),
        padding_keys=frozenset({"p"}),
        capabilities=_caps("mistral", "mistral", thinking=True, documents=False, audio=False,
                           refusals=False, document_media_types=frozenset(),
                           audio_media_types=frozenset(),
                           media_sources=frozenset({"url", "base64", "text"})),
    ),
}
"""Every dialect partwire knows, by name."""


def get_dialect(dialect: str | Dialect) -> Dialect:
    """The dialect named ``dialect`` (or ``dialect`` itself); ``ValueError`` for an unknown name."""
    if isinstance(dialect, Dialect):
        return dialect
    found = DIALECTS.get(dialect)
    if found is None:
        raise ValueError(f"unknown dialect {dialect!r}; known: {', '.join(DIALECTS)}")
    return found
