"""The canonical classes each kind of row is made of, and their fields' defaults: a value equal
to its field's default is not stored (the reader's model fills it in again)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined, to_jsonable_python

from partwire.history import NON_MESSAGE_CLASSES
from partwire.messages import MESSAGE_CLASSES
from partwire.parts import PART_CLASSES, SOURCE_CLASSES

__all__ = ["EVENT_CLASSES", "EVENT_DEFAULTS", "PART_CLASSES", "PART_DEFAULTS", "SOURCE_CLASSES",
           "SOURCE_DEFAULTS", "field_defaults"]

EVENT_CLASSES: dict[str, type[BaseModel]] = {**MESSAGE_CLASSES, **NON_MESSAGE_CLASSES}
"""The class of each kind of event (a message's kind is its role); part and source classes are
the core's own tables, re-exported here for the writer and reader."""

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
