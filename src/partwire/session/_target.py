"""Where a session's requests go: an adapter, a model, and what else ``to_wire`` takes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from partwire.adapters import get_adapter
from partwire.settings import RequestSettings

if TYPE_CHECKING:
    from partwire.adapters import ToolChoice, ToolSpec

__all__ = ["Target"]

# A provider prefix of a model id -> the adapter a bare ``provider:model`` target uses.
_DEFAULT_ADAPTER = {"anthropic": "anthropic", "openai": "openai_chat", "google": "google",
                    "gemini": "google"}


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
        """``"<adapter>:<model>"`` or ``"<provider>:<model>"`` (``openai:`` means ``openai_chat``)."""
        fields = {k: v for k, v in fields.items() if v is not None}
        if "tools" in fields:
            fields["tools"] = tuple(fields["tools"])
        if isinstance(fields.get("settings"), Mapping):
            fields["settings"] = RequestSettings.model_validate(fields["settings"])
        if isinstance(spec, Target):
            return replace(spec, **fields) if fields else spec
        head, sep, model = spec.partition(":")
        if not sep or not model:
            raise ValueError(f"target {spec!r}: expected '<adapter>:<model>', such as "
                             "'anthropic:claude-sonnet-4-6' or 'openai_responses:gpt-5'")
        name = _DEFAULT_ADAPTER.get(head, head.replace("-", "_"))
        get_adapter(name)  # an unknown adapter fails here, naming the known ones
        return cls(adapter=name, model=model, **fields)

    @property
    def model_id(self) -> str:
        """The model as ``provider:model`` (``anthropic:claude-sonnet-4-6``)."""
        return f"{get_adapter(self.adapter).CAPABILITIES.issuer}:{self.model}"

    def __str__(self) -> str:
        return f"{self.adapter}:{self.model}"
