"""Messages, discriminated by ``role``; every message is also a history event (``type="message"``).

A plain string is accepted where a list of text parts is expected::

    UserMessage("hi")                      # parts=(TextPart(text="hi"),)
    AssistantMessage(["a", ToolCallPart.create("ls")])
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from partwire import ids as _ids
from partwire._base import CanonicalModel, NamedUnion, ProviderData, fuse_factories
from partwire.errors import ArgumentError
from partwire.parts import Part, TextPart
from partwire.usage import Usage

__all__ = [
    "AssistantMessage",
    "AssistantStatus",
    "DeveloperMessage",
    "Message",
    "RoutingDecision",
    "StopReason",
    "SystemMessage",
    "ToolMessage",
    "ToolStatus",
    "UserMessage",
]

SCHEMA_VERSION = 1
"""The version written on every line (``v``); older lines are migrated on read."""

StopReason = Literal["stop", "length", "tool_use", "content_filter", "refusal", "pause", "error", "aborted"]
"""Why generation stopped, normalised. ``aborted`` means the user interrupted, nothing else."""

AssistantStatus = Literal["complete", "partial", "error", "aborted"]
"""Whether an assistant message is whole."""

ToolStatus = Literal["success", "error", "aborted", "denied"]
"""How a tool call ended. Failures and time-outs are ``error``; ``aborted`` is a user interrupt."""

Content = str | Sequence[Part | str]

if TYPE_CHECKING:
    from pydantic._internal._model_construction import ModelMetaclass as _ModelMeta
else:
    _ModelMeta = type(CanonicalModel)


def _coerce_parts(content: Content, owner: str) -> tuple[Any, ...]:
    if isinstance(content, str):
        return (TextPart(text=content),)
    if not isinstance(content, Sequence):
        raise ArgumentError("content", f"expected a string or a list of parts, not {type(content).__name__}",
                            function=owner)
    for k, p in enumerate(content):
        # A dict is a part in its JSON form; pydantic validates it (and names what is wrong).
        if not isinstance(p, str | BaseModel | dict):
            raise ArgumentError(f"content[{k}]", "expected a string or a part (TextPart, ImagePart, ...), "
                                f"not {type(p).__name__}", function=owner)
    return tuple(TextPart(text=p) if isinstance(p, str) else p for p in content)


class _ContentMeta(_ModelMeta):
    """Lets ``UserMessage("hi")`` take its content positionally.

    This lives on the metaclass, not in ``__init__``: a model with its own ``__init__`` makes
    pydantic call back into Python for every message it validates, which made loading a history
    several times slower. Validation never goes through the metaclass.
    """

    def __call__(cls, content: Content | None = None, /, **data: Any) -> Any:
        if content is None and isinstance(data.get("parts"), str):
            content = data.pop("parts")
        if isinstance(content, str) and cls.__name__ == "ToolMessage":
            # A tool message's text lives in output_text, never in its parts.
            data.setdefault("output_text", content)
        elif content is not None:
            if "parts" in data:
                raise TypeError("pass the content positionally or as parts=, not both")
            data["parts"] = _coerce_parts(content, cls.__name__)
        return super().__call__(**data)


# How often an event's v, id or created_at was filled in rather than given. A file's line must
# carry all three; the codec's fast path compares this around each line it validates, so a line
# that lacks one goes to the checked path, which reports it and fills it in the same way on every
# load (a made-up id would differ each time). Racing threads can only send a line there needlessly.
FILLED_IN = [0]


def _filled_v() -> Literal[1]:
    FILLED_IN[0] += 1
    return 1


def _filled_id() -> str:
    FILLED_IN[0] += 1
    # The installed id source called here, not through new_message_id(): a call less for every
    # message made (ids.use_sources may swap it, so it is looked up each time).
    return _ids._ids()


def _filled_time() -> datetime:
    FILLED_IN[0] += 1
    return _ids._clock()  # as now() reads it, a call less per message


def _fill_line_fields(data: dict[str, Any]) -> None:
    # The four factories below in one call, for the readers' makers (fuse_factories): what
    # _filled_v, _filled_id, _filled_time and dict make, in that order.
    FILLED_IN[0] += 3
    data["v"] = 1
    data["id"] = _ids._ids()
    data["created_at"] = _ids._clock()
    data["metadata"] = {}


fuse_factories((("v", _filled_v), ("id", _filled_id), ("created_at", _filled_time), ("metadata", dict)),
               _fill_line_fields)


def _require_line_fields(schema: dict[str, Any]) -> None:
    # A line must carry these although the constructors fill them in (see FILLED_IN): the JSON
    # Schema of every event, partwire's own and that of a user's model holding events, says so.
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    required.update(name for name in ("v", "type", "id", "created_at", "role") if name in properties)
    schema["required"] = sorted(required)


class _EventBase(CanonicalModel):
    """Fields every history line has."""

    model_config = ConfigDict(json_schema_extra=_require_line_fields)

    v: Literal[1] = Field(default_factory=_filled_v)
    """Schema version of this line."""
    type: str
    """The event's tag."""
    id: str = Field(default_factory=_filled_id)
    """ULID, monotonic within the process that made it; never regenerated on load."""
    created_at: datetime = Field(default_factory=_filled_time)
    """When it was made (UTC, microseconds)."""


class _MessageBase(_EventBase, metaclass=_ContentMeta):
    type: Literal["message"] = "message"
    """Every message is a history event of type ``message``; ``role`` tells them apart."""
    role: str
    """The message's role."""
    parent_id: str | None = None
    """The message this one follows, for threads and forks."""
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    """Application data; never sent to a provider."""
    provider_data: ProviderData | None = None
    """Echo state for the issuing provider only; ignored by equality."""

    @property
    def text(self) -> str:
        """The text of the message's text parts, joined."""
        parts: tuple[Part, ...] = getattr(self, "parts", ())
        return "".join(p.text for p in parts if isinstance(p, TextPart))


class SystemMessage(_MessageBase):
    """Instructions from the application; adapters hoist them where the provider wants them."""

    if TYPE_CHECKING:  # the signature _ContentMeta gives it (see there)
        def __init__(self, content: Content | None = None, /, **data: Any) -> None: ...

    role: Literal["system"] = "system"
    parts: tuple[Part, ...] = ()
    """Text parts only (``validate_history`` reports anything else)."""


class DeveloperMessage(_MessageBase):
    """App-side context: command output, attached files. Sent natively or attached to a user turn."""

    if TYPE_CHECKING:  # the signature _ContentMeta gives it (see there)
        def __init__(self, content: Content | None = None, /, **data: Any) -> None: ...

    role: Literal["developer"] = "developer"
    parts: tuple[Part, ...] = ()
    """The content sent to the model."""


class UserMessage(_MessageBase):
    """What the user said."""

    if TYPE_CHECKING:  # the signature _ContentMeta gives it (see there)
        def __init__(self, content: Content | None = None, /, **data: Any) -> None: ...

    role: Literal["user"] = "user"
    parts: tuple[Part, ...] = ()
    """Text, images, documents, audio."""


class RoutingDecision(CanonicalModel):
    """Why this turn went to this model (the canonical format spec's routing record)."""

    mode: Literal["override", "manual", "rule", "pattern", "delegate", "default"]
    """Coarse class of the decision."""
    chosen_model: str
    """The model chosen, ``provider:model``."""
    reason: str
    """Human-readable reason."""
    rule_name: str | None = None
    """The rule that matched, for ``rule``."""
    confidence: float | None = None
    """Confidence 0..1, for ``pattern``."""
    alternatives_considered: tuple[str, ...] = ()
    """Other models that were candidates."""


class AssistantMessage(_MessageBase):
    """One model call's answer: parts in provider order, with usage and provenance."""

    if TYPE_CHECKING:  # the signature _ContentMeta gives it (see there)
        def __init__(self, content: Content | None = None, /, **data: Any) -> None: ...

    role: Literal["assistant"] = "assistant"
    parts: tuple[Part, ...] = ()
    """Text, thinking, tool calls, server tool blocks, refusals, in the order the model gave them."""
    status: AssistantStatus = "complete"
    """Whether the message is whole."""
    stop_reason: StopReason | None = None
    """Why generation stopped, normalised."""
    stop_reason_raw: str | None = None
    """The provider's own stop/finish reason string."""
    model: str | None = None
    """The model, ``provider:model``."""
    provider: str | None = None
    """Who served the call (``anthropic``, ``openrouter``, ...)."""
    api: str | None = None
    """The wire API used (``anthropic``, ``openai_chat``, ``openai_responses``, ``google``)."""
    response_id: str | None = None
    """The provider's id of the response."""
    usage: Usage | None = None
    """Tokens, cost and latency."""
    routing: RoutingDecision | None = None
    """Why this model answered."""


class ToolMessage(_MessageBase):
    """The result of one tool call."""

    if TYPE_CHECKING:  # the signature _ContentMeta gives it (see there)
        def __init__(self, content: Content | None = None, /, **data: Any) -> None: ...

    role: Literal["tool"] = "tool"
    call_id: str
    """Canonical id of the tool call this answers."""
    tool_name: str
    """Name of the tool that ran."""
    status: ToolStatus = "success"
    """How the call ended."""
    output_text: str = ""
    """The tool's text output: the one source of truth for it."""
    parts: tuple[Part, ...] = ()
    """Non-text attachments (images, documents); text goes in ``output_text``."""
    data: JsonValue = None
    """Structured JSON result, when the tool gave one."""
    started_at: datetime | None = None
    """When the tool started."""
    finished_at: datetime | None = None
    """When the tool finished."""
    truncated: bool = False
    """Whether ``output_text`` was cut short."""
    full_output_ref: str | None = None
    """Where the full output is, when truncated (a workspace-relative path or URI)."""
    ui_extra: JsonValue = None
    """Data for the UI only (diffs, rendering hints); never sent to a provider."""
    side_effects: JsonValue = None
    """What the tool changed (files written, commands run); never sent to a provider."""

    @property
    def text(self) -> str:
        """The tool's text output."""
        return self.output_text


Message = Annotated[
    SystemMessage | DeveloperMessage | UserMessage | AssistantMessage | ToolMessage,
    Field(discriminator="role"),
    NamedUnion("Message", "Any message, told apart by role."),
]
"""Any message."""

MESSAGE_CLASSES: dict[str, type[BaseModel]] = {
    "system": SystemMessage, "developer": DeveloperMessage, "user": UserMessage,
    "assistant": AssistantMessage, "tool": ToolMessage,
}
"""Each message class by its ``role``: the one table for code that picks a class by tag."""
