"""A plain pydantic model of the history format, built from partwire's own models, for benchmarks.

The load target compares partwire against "a plain pydantic discriminated-union model". To measure
one on exactly our lines, this module mirrors every partwire class as a bare ``BaseModel``: the
same field names, defaults and tagged unions at every level, but no ``frozen``, no
``extra="allow"``, no timestamps, tuples or ``Decimal``; every leaf is ``Any``. Whatever it costs
to load is what pydantic charges for the shape of the data alone (one class instance per JSON
object), before any choice partwire makes.

``plain_event_adapter(dicts=True)`` builds the same mirror from ``TypedDict`` instead, so each JSON
object becomes a ``dict``: the cost of validation with no class instance at all.
"""

from __future__ import annotations

import types
from typing import Annotated, Any, Literal, NotRequired, Union, get_args, get_origin

from pydantic import BaseModel, Field, TypeAdapter
from pydantic_core import PydanticUndefined
from typing_extensions import TypedDict  # pydantic wants this one on Python < 3.12

from partwire._base import CanonicalModel
from partwire.history import HistoryEvent

__all__ = ["plain_event_adapter"]

_mirrors: dict[tuple[type[CanonicalModel], bool], type] = {}


def _mirror_type(tp: Any, dicts: bool) -> Any:
    origin = get_origin(tp)
    if origin is Annotated:
        base, *meta = get_args(tp)
        return Annotated[(_mirror_type(base, dicts), *meta)]  # keeps Field(discriminator=...)
    if origin in (Union, types.UnionType):
        return Union[tuple(_mirror_type(a, dicts) for a in get_args(tp))]  # noqa: UP007 - built at run time
    if origin is tuple and get_args(tp)[-1:] == (Ellipsis,):
        return list[_mirror_type(get_args(tp)[0], dicts)]  # type: ignore[misc]
    if origin is Literal or tp is type(None):
        return tp
    if isinstance(tp, type) and issubclass(tp, CanonicalModel):
        return _mirror_class(tp, dicts)
    return Any


def _mirror_class(cls: type[CanonicalModel], dicts: bool) -> type:
    if (cls, dicts) in _mirrors:
        return _mirrors[cls, dicts]
    if dicts:
        # Keys with a default may be absent, as for the models; a dict gets no default filled in.
        fields = {
            name: _mirror_type(info.annotation, dicts) if info.is_required()
            else NotRequired[_mirror_type(info.annotation, dicts)]
            for name, info in cls.model_fields.items()
        }
        typed: type = TypedDict(f"Plain{cls.__name__}Dict", fields)  # type: ignore[misc]
        _mirrors[cls, dicts] = typed
        return typed
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {"__annotations__": annotations, "__module__": __name__}
    for name, info in cls.model_fields.items():
        annotations[name] = _mirror_type(info.annotation, dicts)
        if info.default is not PydanticUndefined:
            namespace[name] = Field(default=info.default)
        elif info.default_factory is not None:
            namespace[name] = Field(default_factory=info.default_factory)
    mirror = type(f"Plain{cls.__name__}", (BaseModel,), namespace)
    _mirrors[cls, dicts] = mirror
    return mirror


def plain_event_adapter(*, dicts: bool = False) -> TypeAdapter[Any]:
    """A ``TypeAdapter`` for one history line over the plain mirror (of ``TypedDict`` if ``dicts``)."""
    return TypeAdapter(_mirror_type(HistoryEvent, dicts))
