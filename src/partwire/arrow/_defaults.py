"""The canonical classes each kind of row is made of, and their fields' defaults: a value equal
to its field's default is not stored (the reader's model fills it in again)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined, to_jsonable_python

from partwire import parts as _parts
from partwire.history import (
    CompactionEvent,
    ErrorEvent,
    ModelSwitchEvent,
    RetryEvent,
    SubtaskEvent,
    TaskMetadataEvent,
    UnknownEvent,
)
from partwire.messages import (
    AssistantMessage,
    DeveloperMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)

__all__ = ["EVENT_CLASSES", "EVENT_DEFAULTS", "PART_CLASSES", "PART_DEFAULTS", "SOURCE_CLASSES",
           "SOURCE_DEFAULTS", "field_defaults"]

EVENT_CLASSES: dict[str, type[BaseModel]] = {
    "system": SystemMessage, "developer": DeveloperMessage, "user": UserMessage,
    "assistant": AssistantMessage, "tool": ToolMessage, "error": ErrorEvent,
    "task_metadata": TaskMetadataEvent, "compaction": CompactionEvent, "retry": RetryEvent,
    "model_switch": ModelSwitchEvent, "subtask": SubtaskEvent, "unknown": UnknownEvent,
}
"""The class of each kind of event (a message's kind is its role)."""
PART_CLASSES: dict[str, type[BaseModel]] = {
    "text": _parts.TextPart, "image": _parts.ImagePart, "document": _parts.DocumentPart,
    "audio": _parts.AudioPart, "thinking": _parts.ThinkingPart,
    "redacted_thinking": _parts.RedactedThinkingPart, "tool_call": _parts.ToolCallPart,
    "server_tool_call": _parts.ServerToolCallPart, "server_tool_result": _parts.ServerToolResultPart,
    "refusal": _parts.RefusalPart, "unknown": _parts.UnknownPart,
}
"""The class of each part type."""
SOURCE_CLASSES: dict[str, type[BaseModel]] = {
    "url": _parts.UrlSource, "base64": _parts.Base64Source, "file_ref": _parts.FileRefSource,
    "provider_file": _parts.ProviderFileSource, "text": _parts.TextSource,
}
"""The class of each media source type."""

# The line's own fields, whose default factories make ids and times (and count that they did).
_LINE_FIELDS = frozenset({"v", "id", "created_at"})


def field_defaults(cls: type[BaseModel], names: Iterable[str] | None = None) -> dict[str, Any]:
    """The default of each optional field of ``cls`` (or of those in ``names``), as Python values."""
    found: dict[str, Any] = {}
    for name, field in cls.model_fields.items():
        if field.is_required() or (names is not None and name not in names):
            continue
        if name in _LINE_FIELDS and field.default_factory is not None:
            continue  # made afresh for every instance: no value equals it
        value = field.get_default(call_default_factory=True)
        if value is not PydanticUndefined:
            found[name] = value
    return found


def _json_defaults(cls: type[BaseModel]) -> dict[str, Any]:
    return {name: to_jsonable_python(value) for name, value in field_defaults(cls).items()}


EVENT_DEFAULTS = {kind: _json_defaults(cls) for kind, cls in EVENT_CLASSES.items()}
"""The JSON form of each optional field's default, by kind of event."""
PART_DEFAULTS = {kind: _json_defaults(cls) for kind, cls in PART_CLASSES.items()}
"""The JSON form of each optional field's default, by part type."""
SOURCE_DEFAULTS = {kind: _json_defaults(cls) for kind, cls in SOURCE_CLASSES.items()}
"""The JSON form of each optional field's default, by source type."""
