"""Where a session's requests go: an adapter, a model, and what else ``to_wire`` takes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from partwire.adapters import ADAPTER_NAMES, adapter_name, get_adapter
from partwire.errors import ArgumentError
from partwire.model_ids import model_owner
from partwire.settings import RequestSettings

if TYPE_CHECKING:
    from partwire.adapters import ToolChoice, ToolSpec

__all__ = ["Target"]


def _chat_dialects() -> dict[str, str]:
    """The Chat dialects other than OpenAI's, by name: their issuers."""
    from partwire.adapters.openai_chat import DIALECTS

    return {name: d.issuer for name, d in DIALECTS.items() if name != "openai"}


@dataclass(frozen=True, slots=True)
class Target:
    """Where requests go: an adapter, a model, and what else ``to_wire`` takes."""

    adapter: str
    """The adapter's name (``anthropic``, ``openai_chat``, ``openai_responses``, ``google``)."""
    model: str
    """The model's wire name (``claude-sonnet-4-6``)."""
    options: Any = None
    """The adapter's ``Options`` (an instance, a mapping, or ``None``)."""
    tools: tuple[ToolSpec, ...] = ()
    """Tool definitions sent with every request."""
    tool_choice: ToolChoice | None = None
    """The ``tool_choice`` of every request."""
    max_tokens: int | None = None
    """The output limit of every request."""
    params: Mapping[str, Any] | None = field(default=None)
    """Other body fields, verbatim (those the settings do not cover)."""
    settings: RequestSettings | None = None
    """The generation settings of every request (temperature, reasoning, output format...);
    ``max_tokens`` and ``tool_choice`` win over the same settings when given."""

    @classmethod
    def parse(cls, spec: str | Target, **fields: Any) -> Target:
        """``"<adapter>:<model>"`` or ``"<provider>:<model>"`` (``openai:`` means ``openai_chat``;
        a Chat dialect's name, ``mistral:`` or ``deepseek:``, means ``openai_chat`` under that
        dialect)."""
        fields = {k: v for k, v in fields.items() if v is not None}
        if "tools" in fields:
            fields["tools"] = tuple(fields["tools"])
        if isinstance(fields.get("settings"), Mapping):
            fields["settings"] = RequestSettings.model_validate(fields["settings"])
        if isinstance(spec, Target):
            return replace(spec, **fields) if fields else spec
        if not isinstance(spec, str):
            raise ArgumentError("target", f"expected '<adapter>:<model>' or a Target, not "
                                f"{type(spec).__name__}", function="Session")
        head, sep, model = spec.partition(":")
        if not sep or not model.strip() or not head:
            owner = model_owner(spec.strip()) if spec.strip() and not sep else None
            hint = f"; did you mean '{owner}:{spec}'?" if owner else \
                " such as 'anthropic:claude-sonnet-4-6' or 'openai_responses:gpt-5'"
            raise ArgumentError("target", f"{spec!r} is not '<adapter>:<model>'{hint} (adapters: "
                                f"{', '.join(ADAPTER_NAMES)})", function="Session")
        if head in _chat_dialects() and head not in ADAPTER_NAMES:  # ollama: its native adapter
            options = fields.get("options")
            if options is None or (isinstance(options, Mapping) and "dialect" not in options):
                fields["options"] = {**(options or {}), "dialect": head}
            name = "openai_chat"
        else:
            name = adapter_name(head)  # an unknown adapter fails here, naming the known ones
        issuer = _issuer(name, fields.get("options"))
        owner = model_owner(model, issuer)
        if owner is not None and owner != issuer:
            raise ArgumentError("target", f"{spec!r}: model {model!r} is {owner}'s, and {name} "
                                f"serves {issuer}'s models", function="Session")
        return cls(adapter=name, model=model, **fields)

    @property
    def model_id(self) -> str:
        """The model as ``provider:model`` (``anthropic:claude-sonnet-4-6``, ``mistral:...``)."""
        issuer = get_adapter(self.adapter).CAPABILITIES.issuer
        dialect = self.options.get("dialect") if isinstance(self.options, Mapping) else getattr(
            self.options, "dialect", None)
        if self.adapter == "openai_chat" and dialect is not None:
            issuer = getattr(dialect, "issuer", None) or _chat_dialects().get(dialect, issuer)
        return f"{issuer}:{self.model}"

    def __str__(self) -> str:
        return f"{self.adapter}:{self.model}"


def _issuer(adapter: str, options: Any) -> str:
    # OpenAI Chat's dialects are named after their issuers (openrouter, deepseek, vllm, ollama).
    dialect = options.get("dialect") if isinstance(options, Mapping) else getattr(options, "dialect", None)
    if isinstance(dialect, str):
        return _chat_dialects().get(dialect, dialect)
    if dialect is not None and isinstance(getattr(dialect, "issuer", None), str):
        return str(dialect.issuer)
    return get_adapter(adapter).CAPABILITIES.issuer
