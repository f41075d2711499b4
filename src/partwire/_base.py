"""The model base shared by every canonical type, and the JSON alias."""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar

from pydantic import BaseModel, ConfigDict, JsonValue

from partwire._memo import derived

if TYPE_CHECKING:  # pydantic.json_schema is slow to import and needed only to make a schema
    from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
    from pydantic.json_schema import JsonSchemaValue
    from pydantic_core import CoreSchema

__all__ = ["NOT_JSON", "CanonicalModel", "JsonValue", "NamedUnion", "ProviderData", "build", "fields_maker",
           "fuse_factories", "json_copy", "json_kind", "one_field", "provider_data", "replace", "whole_maker",
           "with_field"]


_B = TypeVar("_B", bound=BaseModel)

# An instance's four slots, each set by its own descriptor (what ``object.__setattr__`` finds by
# name on every call, looked up once here): a third cheaper per instance, on every part and
# message a reader makes. BaseModel declares them, so they are the same for every model class.
_set_dict, _set_fields_set, _set_extra, _set_private = (
    BaseModel.__dict__[name].__set__ for name in (
        "__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"))
_get_fields_set, _get_extra = (
    BaseModel.__dict__[name].__get__ for name in ("__pydantic_fields_set__", "__pydantic_extra__"))
# The extra fields of every instance with none: one empty dict, shared. Pydantic writes an
# instance's extras (and its set of given fields) only on a fresh copy (model_copy, which
# CanonicalModel gives its own) or after the frozen check has refused the write, so nothing ever
# changes this one.
_NO_EXTRA: dict[str, Any] = {}
# Per class, the set of all its fields: the set of given fields of every instance given them all.
_ALL_GIVEN: dict[type, set[str]] = derived({})


def _all_given(cls: type) -> set[str]:
    given = _ALL_GIVEN[cls] = set(cls.model_fields)  # type: ignore[attr-defined]
    return given


def _fields_set(model: BaseModel) -> set[str]:
    """The set of fields ``model`` was given: its own, or, when its slot was left empty because
    it was given every field, its class's set of them all."""
    try:
        given: set[str] = _get_fields_set(model)
    except AttributeError:
        cls = type(model)
        return _ALL_GIVEN.get(cls) or _all_given(cls)
    return given


def _keep_fields_set(model: BaseModel, given: set[str]) -> None:
    # pydantic-core writes an instance's extras, then its fields set: an empty dict of extras
    # is swapped for the shared one here, in the same call (a second descriptor for the extras
    # cost a Python call per instance, 5-10% of a load). With the extras written and empty, the
    # set pydantic-core made names fields only, so it holds them all when it is as long as the
    # instance's dict of fields; then nothing is stored and the slot, empty in a new instance,
    # reads as the class's set (_fields_set): a write saved per instance, 2% of a load's instructions.
    # A set written before the extras (model_construct, unpickling) or beside extras is
    # compared in full. Only a second __init__ on a live instance would find the slot full.
    try:
        extra = model.__pydantic_extra__  # the slot itself: a read, where _get_extra is a call
    except AttributeError:
        pass
    else:
        if not extra and extra is not None:
            _set_extra(model, _NO_EXTRA)
            if len(given) != len(model.__dict__):
                _set_fields_set(model, given)
            return
    cls = type(model)
    every = _ALL_GIVEN.get(cls) or _all_given(cls)
    _set_fields_set(model, every if given == every else given)


def _own(copied: _B, source: BaseModel) -> _B:
    """``copied`` (a copy of ``source``) with a set of given fields and a dict of extras of its
    own, as pydantic made them: its ``model_copy`` writes into both after copying."""
    if _get_extra(copied) is _NO_EXTRA:
        _set_extra(copied, {})
    _set_fields_set(copied, set(_fields_set(source)))
    return copied


class CanonicalModel(BaseModel):
    """Immutable, keeps fields it does not know, and compares without ``provider_data``.

    ``extra="allow"``: a field written by a newer minor version survives a load and a re-save
    instead of vanishing. Equality ignores ``provider_data`` (DESIGN §6 rule 4): two messages that
    say the same thing are equal whichever provider's echo state they carry.
    """

    model_config = ConfigDict(
        frozen=True,
        extra="allow",
        # Field docstrings document the code and, through partwire.codec.schema (which reads
        # them from the source), the published JSON Schema. Letting pydantic read them here
        # would parse every class's source at import: a fifth of the import time.
        use_attribute_docstrings=False,
        ser_json_inf_nan="constants",
    )

    _eq_ignored: ClassVar[frozenset[str]] = frozenset({"provider_data"})

    # pydantic gives every instance a set of the fields it was given and a dict of its extras.
    # A loaded instance was given every field and has no extras, and the set alone weighed 40% of
    # a loaded history. This descriptor comes before BaseModel's slot in the lookup, so every
    # write of the set (pydantic-core's included) stores nothing when all fields were given (the
    # empty slot reads as one set per class), and puts one shared empty dict in place of empty
    # extras. Nothing writes into either:
    # the models are frozen, and the copies pydantic writes into get their own (__copy__,
    # __deepcopy__ below).
    __pydantic_fields_set__ = property(_fields_set, _keep_fields_set)

    def __copy__(self) -> Self:
        return _own(super().__copy__(), self)

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        return _own(super().__deepcopy__(memo), self)

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, CanonicalModel)
        mine, theirs = self.__dict__, other.__dict__
        for name, value in mine.items():
            if name in self._eq_ignored:
                continue
            if value != theirs.get(name):
                return False
        return (self.__pydantic_extra__ or {}) == (other.__pydantic_extra__ or {})

    def __hash__(self) -> int:
        return hash((type(self), self._identity()))

    def _identity(self) -> Any:
        return tuple(
            (name, _hashable(value))
            for name, value in self.__dict__.items()
            if name not in self._eq_ignored
        )


M = TypeVar("M", bound=CanonicalModel)


def replace(model: M, **changes: Any) -> M:
    """A copy of ``model`` with ``changes`` applied and validated (models are immutable)."""
    data = dict(model.__dict__)
    data.update(model.__pydantic_extra__ or {})
    data.update(changes)
    return type(model).model_validate(data)


# Per class: the fields in order with their plain defaults, the fields made by a factory, the
# required fields, and the one function that makes all the factories' fields, when there is one
# (fuse_factories), with their names.
_Fill = Callable[[dict[str, Any]], None]
_Factories = tuple[tuple[str, Callable[[], Any]], ...]
_Template = tuple[dict[str, Any], _Factories, frozenset[str], tuple[_Fill, frozenset[str]] | None]
_templates: dict[type, _Template] = derived({})
_FUSED: dict[_Factories, _Fill] = {}


def fuse_factories(factories: _Factories, fill: _Fill) -> None:
    """Let the makers here call ``fill(data)`` for a class whose default factories are exactly
    ``factories`` (``(field, factory)`` in field order) instead of each factory in turn: ``fill``
    sets every one of those fields, to what its factory makes, in the same order. Every history
    event fills in its ``v``, ``id``, ``created_at`` and ``metadata``: one call for the four, on
    every message a reader makes."""
    _FUSED[factories] = fill


def _template(cls: type[CanonicalModel]) -> _Template:
    defaults: dict[str, Any] = {}
    factories: list[tuple[str, Callable[[], Any]]] = []
    required: set[str] = set()
    for name, info in cls.model_fields.items():
        defaults[name] = None  # the slot, so an instance's fields stay in declaration order
        if info.default_factory is not None:
            factories.append((name, info.default_factory))  # type: ignore[arg-type]
        elif info.is_required():
            required.add(name)
        elif isinstance(info.default, dict | list | set):
            factories.append((name, functools.partial(copy.copy, info.default)))
        else:
            defaults[name] = info.default
    made = tuple(factories)
    fill = _FUSED.get(made)
    template = (defaults, made, frozenset(required),
                None if fill is None else (fill, frozenset(name for name, _ in made)))
    _templates[cls] = template
    return template


def build(cls: type[M], fields: Mapping[str, Any]) -> M:
    """An instance of ``cls`` from ``fields`` that already are what validation would make of them.

    The decoders' fast path for messages they assemble from parts they have just validated:
    no validation runs, defaults and default factories (ids, times) apply as in ``cls(...)``,
    and the instance equals, hashes and dumps like the validated one. Every value must already
    have its field's exact type (a tuple where the field is a tuple, a model where it is a
    model); anything that came from outside unchecked goes through ``cls(...)`` instead.
    """
    defaults, factories, required, fused = _templates.get(cls) or _template(cls)
    data = defaults.copy()
    data.update(fields)
    if len(data) != len(defaults):
        raise TypeError(f"{cls.__name__} has no field(s) {', '.join(sorted(set(fields) - set(defaults)))}")
    if required and not required <= fields.keys():
        raise TypeError(f"{cls.__name__} needs field(s) {', '.join(sorted(required - fields.keys()))}")
    if fused is not None and fields.keys().isdisjoint(fused[1]):
        fused[0](data)
    else:
        for name, factory in factories:
            if name not in fields:
                data[name] = factory()
    return _instance(cls, data, None if len(fields) == len(defaults) else set(fields))


def _instance(cls: type[M], data: dict[str, Any], given: set[str] | None) -> M:
    """The instance of ``cls`` whose fields are ``data`` (complete), ``given`` of them set
    (``None``: all of them, the slot left empty as :func:`_keep_fields_set` leaves it)."""
    made = object.__new__(cls)
    _set_dict(made, data)
    if given is not None:
        _set_fields_set(made, given)
    _set_extra(made, _NO_EXTRA)
    _set_private(made, None)
    return made


def whole_maker(cls: type[M]) -> Callable[[dict[str, Any]], M]:
    """A maker of ``cls`` instances from a dict of every field of ``cls``, in declaration order,
    each already what validation would make of it: :func:`build` without completing and checking
    the dict, for readers that fill a copy of a complete template. The dict becomes the
    instance's own."""
    new = object.__new__

    def make(data: dict[str, Any]) -> M:
        made = new(cls)
        _set_dict(made, data)
        _set_extra(made, _NO_EXTRA)
        _set_private(made, None)
        return made

    return make


def with_field(model: M, name: str, value: Any) -> M:
    """``model.model_copy(update={name: value})`` for a ``value`` that already is what validation
    would make of it: the same instance pydantic's copy makes (fields, extras, ``name`` added to
    the fields set), without its generic machinery."""
    cls = type(model)
    data = dict(model.__dict__)
    data[name] = value
    given = _fields_set(model)
    every = _ALL_GIVEN.get(cls) or _all_given(cls)
    if name not in given:
        given = given | {name}
        if given == every:
            given = every
    extra = _get_extra(model)
    made = object.__new__(cls)
    _set_dict(made, data)
    if given is not every:
        _set_fields_set(made, given)
    _set_extra(made, extra if not extra else dict(extra))
    _set_private(made, None)
    return made


NOT_JSON: Any = object()
"""What :func:`json_copy` returns for a value that is not plain JSON."""
_SCALARS = frozenset({str, int, float, bool, type(None)})


class _NotJson(Exception):
    pass


def json_copy(value: Any) -> Any:
    """A copy of ``value`` equal to what pydantic's ``JsonValue`` validation makes of it, when
    ``value`` is plain JSON of exact built-in types (dicts with string keys, lists, strings,
    numbers, booleans, ``None``); else :data:`NOT_JSON`, and the caller validates as usual.

    Validation of a ``JsonValue`` field calls a Python function per node to pick the node's
    branch; a tool definition's schema read from a request has dozens. This walk makes the same
    copy (new dicts and lists, the same scalars) at a fraction of that cost.
    """
    try:
        return _json_copy(value)
    except (_NotJson, RecursionError):
        return NOT_JSON


def _json_copy(value: Any) -> Any:
    kind = type(value)
    scalars = _SCALARS
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _NotJson
            out[key] = item if type(item) in scalars else _json_copy(item)
        return out
    if kind is list:
        return [item if type(item) in scalars else _json_copy(item) for item in value]
    if kind in scalars:
        return value
    raise _NotJson


def one_field(cls: type[M], name: str) -> Callable[[Any], M]:
    """A maker of ``cls`` instances with ``name`` set and every other field at its default (the
    default factories called, as ``cls(...)`` would: a message's id and time).

    :func:`build` for the commonest instances readers make (a plain text part, a message of
    parts alone), without its checks and its fields dict. The value must already be what
    validation would make of it. ``cls`` may have no other required field.
    """
    return fields_maker(cls, name)


def fields_maker(cls: type[M], *names: str) -> Callable[..., M]:
    """:func:`one_field` for one or two fields: ``maker(value)`` or ``maker(first, second)``."""
    defaults, factories, required, fused = _templates.get(cls) or _template(cls)
    if not required <= set(names) or not set(names) <= defaults.keys() or any(
            f in names for f, _ in factories):
        raise TypeError(f"one_field: {cls.__name__}.{', '.join(names)} is not its only field to set")
    fill = fused[0] if fused is not None else None
    given: set[str] | None = set(names)  # shared like _NO_EXTRA: pydantic changes it only on a copy
    if given == (_ALL_GIVEN.get(cls) or _all_given(cls)):
        given = None  # every field: the slot left empty
    if len(names) == 1:
        (name,) = names
        new = object.__new__

        def make_one(value: Any) -> M:
            # The readers' hottest path (every plain text part): _instance written out here.
            data = defaults.copy()
            data[name] = value
            if fill is not None:
                fill(data)
            else:
                for field, factory in factories:
                    data[field] = factory()
            made = new(cls)
            _set_dict(made, data)
            if given is not None:
                _set_fields_set(made, given)
            _set_extra(made, _NO_EXTRA)
            _set_private(made, None)
            return made

        return make_one
    if len(names) == 2:
        first, second = names

        def make_two(one: Any, two: Any) -> M:
            data = defaults.copy()
            data[first] = one
            data[second] = two
            if fill is not None:
                fill(data)
            else:
                for field, factory in factories:
                    data[field] = factory()
            return _instance(cls, data, given)

        return make_two
    raise TypeError("fields_maker: one or two fields")


def _hashable(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_hashable(v) for v in value)
    return value


class ProviderData(CanonicalModel):
    """Echo state one provider gave us and only that provider may read back (DESIGN §6)."""

    issuer: str
    """The system that issued ``data`` and can make sense of it: ``anthropic``, ``openai``, ..."""
    data: JsonValue = None
    """The state itself, exactly as received (item ids, status, raw usage, cache details...)."""


_make_pd = fields_maker(ProviderData, "issuer", "data")


@dataclass(frozen=True, slots=True)
class NamedUnion:
    """``Annotated`` metadata that gives a tagged union a name of its own in every schema.

    A union nested in another tagged union (messages by ``role`` inside history events by
    ``type``) is otherwise inlined, and the outer discriminator mapping then holds an object
    where OpenAPI tools expect a ``$ref``. With a core-schema ``ref`` pydantic puts the union in
    ``$defs`` under ``name`` and maps to it; validation is unchanged (a ref used once is inlined
    again before the validator is built).
    """

    name: str
    """The name in ``$defs``."""
    description: str
    """The description of that definition."""

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        schema = handler(source)
        # A module-qualified ref with an id, like pydantic's own model refs: never mistaken for
        # an application's type of the same short name, and still shown as ``name`` in $defs.
        return {**schema, "ref": f"partwire.{self.name}:{id(self)}"}

    def __get_pydantic_json_schema__(self, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        json_schema = handler(schema)
        target = handler.resolve_ref_schema(json_schema)
        target.setdefault("title", self.name)
        target.setdefault("description", self.description)
        return json_schema


def provider_data(issuer: str, data: Any, *, copied: bool = False) -> ProviderData:
    """``ProviderData(issuer=issuer, data=data)``: the same instance, made without validation
    when ``issuer`` is a string and ``data`` plain JSON (:func:`json_copy` makes the copy
    validation would); anything else is validated (and refused) as usual. ``copied``: ``data``
    already is such a copy, partwire's own (it becomes the instance's data as it is)."""
    if copied and type(issuer) is str:
        return _make_pd(issuer, data)
    if type(issuer) is str:
        made = json_copy(data)
        if made is not NOT_JSON:
            return _make_pd(issuer, made)
    return ProviderData(issuer=issuer, data=data)


def json_kind(value: Any) -> str:
    """What kind of JSON value ``value`` is, for error messages: ``null``, ``boolean``, ``number``,
    ``string``, ``array``, ``object``, or the Python type's name for anything that is not JSON."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(text: str) -> str:
    """JSON text with every lone surrogate (``"\\ud800"`` read from a JSON escape, which UTF-8
    cannot encode) written back as that escape, which JSON allows: the one rule partwire keeps
    for them everywhere it writes JSON, so what was read is written back as it was."""
    if not _LONE_SURROGATE.search(text):
        return text
    return _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def is_surrogate_error(exc: BaseException) -> bool:
    """Whether an encoding error is UTF-8 refusing a lone surrogate (pydantic wraps it in text)."""
    return "surrogates not allowed" in str(exc)
