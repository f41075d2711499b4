"""What every adapter shares, written once: options, params, projections, streams, the boundary.

An adapter writes only what its wire format needs (``docs/adapters/index.md``); this module holds
the rest:

- :func:`resolve_options` reads the ``options=`` of every public function, and the keyword
  switches that stand for its fields;
- :func:`merge_params` adds the caller's ``params`` to a body;
- :func:`project` turns a body and its :class:`LossCollector` into the :class:`Projection`;
- :class:`Translator` is the base of every stream translator and owns the stream's identity;
- :func:`run_stream` / :func:`arun_stream` drive a translator over any stream input;
- :func:`boundary_error` (what a public decoder's ``except`` raises) and the stream drivers
  are the boundary of the public decoders: only partwire's own errors leave them.

The public functions themselves are made from these, once for every adapter, by
:mod:`partwire.adapters._surface`.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import inspect
import sys
import types
import typing
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Callable,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from datetime import datetime
from typing import Any, ClassVar, TypeVar, cast

from partwire._memo import derived, memo
from partwire.adapters._losses import LossCollector
from partwire.adapters._sse import ServerSentEvent, aiter_wire_items, iter_wire_items
from partwire.errors import ArgumentError, PartwireError, StreamProtocolError, WireFormatError
from partwire.projection import Loss, Projection, make_projection, new_projection
from partwire.streaming import Accumulator, MessageCompleteEvent, MessageStartEvent, StreamEvent

__all__ = [
    "LossCollector",
    "Translator",
    "arun_stream",
    "boundary_error",
    "dry_run",
    "merge_params",
    "project",
    "resolve_options",
    "run_stream",
]

OptionsT = TypeVar("OptionsT")
T = TypeVar("T")

# -- options --------------------------------------------------------------------------------

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def resolve_options(cls: type[OptionsT], options: Any = None,
                    switches: Mapping[str, Any] | None = None) -> OptionsT:
    """The adapter's ``Options`` from ``options=`` and keyword switches.

    ``options`` is an instance of ``cls``, a mapping of field names to values, or ``None`` (the
    defaults). Switches (``to_wire(..., dialect="deepseek")``) are fields too, and win over
    ``options``. A string is coerced by the field's type (``"true"`` for a ``bool``, ``"3"`` for
    an ``int``), which is how the CLI's ``--option key=value`` arrives. An unknown name, or a
    value outside a ``Literal``, raises ``ValueError`` naming the fields there are.
    """
    if not switches:
        if options is None:
            return _defaults(cls)
        if isinstance(options, cls):
            return options
    if type(options) is dict or isinstance(options, Mapping):
        # The common mapping (an imported request's options, the CLI's) resolves once. True ==
        # 1 == 1.0, so a remembered value counts only for values of the same types.
        named: Mapping[str, Any] = {**options, **switches} if switches else options
        try:
            # The values' types are part of the key, so a hit needs no second comparison.
            key: Any = (cls, tuple(named.items()), tuple(map(type, named.values())))
            found = _RESOLVED.get(key)
        except TypeError:  # an unhashable value: resolved each time
            key = found = None
        if found is not None:
            return cast(OptionsT, found)
        resolved = _resolve(cls, named)
        if key is not None and len(_RESOLVED) < 512:
            _RESOLVED[key] = resolved
        return resolved
    given: dict[str, Any] = {}
    if isinstance(options, cls):
        given = {name: getattr(options, name) for name in _fields(cls)}
    elif options is not None:
        raise ArgumentError("options", f"expected {cls.__qualname__}, a mapping or None, "
                            f"not {type(options).__name__}")
    if switches:
        given.update(switches)
    return _resolve(cls, given)


def _resolve(cls: type[OptionsT], given: Mapping[str, Any]) -> OptionsT:
    fields = _fields(cls)
    unknown = sorted(set(given) - set(fields))
    if unknown:
        raise ArgumentError("options", f"{cls.__module__.rsplit('.', 1)[0]}.Options has no "
                            f"{', '.join(map(repr, unknown))}; its fields are "
                            f"{', '.join(fields) or 'none'}")
    # Only a text value is coerced, so only its field's type is worked out.
    values = {name: _coerce(name, value, _hint(cls, name)) if isinstance(value, str) else value
              for name, value in given.items()}
    return cls(**values)


# Every public call reads its options: the defaults and the field types are worked out once.
_DEFAULTS: dict[type[Any], Any] = derived({})
_FIELDS: dict[type[Any], dict[str, Any]] = derived({})
_HINTS: dict[tuple[type[Any], str], Any] = derived({})
_RESOLVED: dict[Any, Any] = memo({})


def _defaults(cls: type[OptionsT]) -> OptionsT:
    found = _DEFAULTS.get(cls)
    if found is None:
        found = _DEFAULTS[cls] = cls()
    return cast(OptionsT, found)


def _fields(cls: type[Any]) -> dict[str, Any]:
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = {f.name: f for f in dataclasses.fields(cls)}
    return found


def _hint(cls: type[Any], name: str) -> Any:
    key = (cls, name)
    found = _HINTS.get(key, _UNSET)
    if found is _UNSET:
        found = _HINTS[key] = _field_hint(cls, name)
    return found


_UNSET: Any = object()


def _field_hint(cls: type[Any], name: str) -> Any:
    """The type of field ``name``, as ``typing.get_type_hints(cls)`` gives it: the one field's
    annotation evaluated where it was written (a fifth of the cost of every field's, which an
    imported request's options paid once per memo emptied). An annotation that may hold
    ``Annotated`` or a nested forward reference is left to ``get_type_hints``."""
    for owner in cls.__mro__:
        annotation = inspect.get_annotations(owner).get(name, _UNSET)
        if annotation is not _UNSET:
            break
    else:
        return Any
    if not isinstance(annotation, str):
        return typing.get_type_hints(cls).get(name, Any)
    if "Annotated" in annotation or "'" in annotation or '"' in annotation:
        return typing.get_type_hints(cls).get(name, Any)
    module = sys.modules.get(owner.__module__)
    try:
        return eval(annotation, vars(module) if module else {}, vars(owner))
    except Exception:  # a name only get_type_hints resolves: its error, or its answer
        return typing.get_type_hints(cls).get(name, Any)


def _coerce(name: str, value: Any, hint: Any) -> Any:
    if not isinstance(value, str):
        return value
    choices = _literals(hint)
    if choices and value in choices:
        return value
    kinds = _kinds(hint)
    if bool in kinds:
        low = value.lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
    if int in kinds:
        with contextlib.suppress(ValueError):
            return int(value)
    if float in kinds:
        with contextlib.suppress(ValueError):
            return float(value)
    if type(None) in kinds and value.lower() in ("none", "null", ""):
        return None
    if choices and str not in kinds:
        raise ArgumentError("options", f"option {name}={value!r}: expected one of "
                            f"{', '.join(map(repr, choices))}")
    if str not in kinds and hint is not Any:
        # A string the field's type cannot hold ("maybe" for a bool) is refused here, not kept
        # to surprise the adapter later.
        expected = " or ".join(sorted({_expected(a) for a in _args(hint)}))
        raise ArgumentError("options", f"option {name}={value!r}: expected {expected}")
    return value


_EXPECTED = {bool: "true or false", int: "an integer", float: "a number", type(None): "none"}


def _expected(arg: Any) -> str:
    if isinstance(arg, type):
        return _EXPECTED.get(arg, f"a {arg.__name__}")
    return "a function" if typing.get_origin(arg) is Callable else str(arg)


def _args(hint: Any) -> tuple[Any, ...]:
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        return tuple(a for arg in typing.get_args(hint) for a in _args(arg))
    return (hint,)


def _literals(hint: Any) -> tuple[Any, ...]:
    return tuple(v for a in _args(hint) if typing.get_origin(a) is typing.Literal
                 for v in typing.get_args(a))


def _kinds(hint: Any) -> set[Any]:
    return {a for a in _args(hint) if isinstance(a, type)}


# -- requests -------------------------------------------------------------------------------


def merge_params(request: dict[str, Any], params: Mapping[str, Any] | None, *,
                 built: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Add ``params`` to ``request``; a key ``to_wire`` builds itself is refused.

    ``built`` names the fields the adapter builds even when it left them out of this body (a
    ``messages`` list is always the adapter's); any key already in the body is refused too.
    """
    for key, value in (params or {}).items():
        if key in request or key in built:
            raise ArgumentError("params", f"params[{key!r}] conflicts with a field to_wire builds; pass it as "
                             "its own argument (or put it in the history)")
        request[key] = value
    return request


_DRY_RUN: contextvars.ContextVar[bool] = contextvars.ContextVar("partwire_dry_run", default=False)


@contextlib.contextmanager
def dry_run() -> Iterator[None]:
    """Within it, projections log nothing and never raise for losses (``check_switch`` uses it)."""
    token = _DRY_RUN.set(True)
    try:
        yield
    finally:
        _DRY_RUN.reset(token)


def project(request: dict[str, Any], losses: LossCollector | Iterable[Loss], *, adapter: str,
            strict: bool, session: str | None = None) -> Projection:
    """The last step of every ``to_wire``: the :class:`Projection`, its losses logged (or raised)
    once; under :func:`dry_run`, neither. A body without losses (or in a dry run) is wrapped at
    once: every ``to_wire`` ends here."""
    found = tuple(losses.items if isinstance(losses, LossCollector) else losses)
    if not found or _DRY_RUN.get():
        return new_projection(request, found)
    return make_projection(request, found, adapter=adapter, strict=strict, session=session)


# -- the boundary ---------------------------------------------------------------------------

# What a decoder's bug-free reading of a hostile body can raise: a wrong type where a dict was
# due, a missing key, a value out of range, a body nested past the interpreter's limit.
_HOSTILE = (TypeError, KeyError, IndexError, AttributeError, ValueError, RecursionError,
            UnicodeError, OverflowError, MemoryError)



def _reason(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nested deeper than this reader follows (Python's recursion limit)"
    if isinstance(exc, KeyError):
        return f"missing field {exc.args[0]!r}" if exc.args else "a missing field"
    if isinstance(exc, MemoryError):
        return "too large to read into memory"
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def at_path(exc: BaseException, provider: str, what: str, path: str) -> BaseException:
    """``exc``, raised while reading the item at ``path`` of a body, as the error to raise.

    A reader's loop over a body's items catches everything around each item and raises what
    this returns: a hostile-input exception becomes a :class:`WireFormatError` at ``path``; a
    ``WireFormatError`` that does not say where yet gets ``path``; anything else is itself.
    """
    if isinstance(exc, WireFormatError):
        if exc.path is None:
            exc.path = path
        return exc
    if isinstance(exc, PartwireError) or not isinstance(exc, _HOSTILE):
        return exc
    error = WireFormatError(provider, what, _reason(exc), path)
    error.__cause__ = exc  # as ``raise error from exc`` would
    error.__suppress_context__ = True
    return error


def boundary_error(exc: BaseException, provider: str, what: str) -> BaseException:
    """What a public decoder raises for ``exc``, raised while reading a whole ``what``
    (``"request"``, ``"response"``): a hostile-input exception becomes a
    :class:`WireFormatError` (its cause ``exc``); a partwire error, or anything a bug-free
    reading cannot raise, is ``exc`` itself.

    The decoders call it from ``except Exception as exc: raise boundary_error(exc, ...)``, which
    costs nothing when nothing is raised (a context manager's ``with`` block costs three calls)."""
    if isinstance(exc, PartwireError) or not isinstance(exc, _HOSTILE):
        return exc
    error = WireFormatError(provider, what, _reason(exc))
    error.__cause__ = exc  # as ``raise error from exc`` would
    error.__suppress_context__ = True
    return error


async def aguarded_stream(provider: str, events: AsyncIterator[T]) -> AsyncIterator[T]:
    """The boundary of an asynchronous stream: what escapes it becomes a partwire error."""
    try:
        async for event in events:
            yield event
    except StreamProtocolError as exc:  # wire events that do not fit together: the input's fault
        raise WireFormatError(provider, "stream", str(exc)) from exc
    except PartwireError:
        raise
    except _HOSTILE as exc:
        raise WireFormatError(provider, "stream", _reason(exc)) from exc


# -- streams --------------------------------------------------------------------------------


class Translator:
    """The base of every adapter's stream translator: wire items in, stream events out.

    It owns the stream's identity. The accumulator it folds into makes one message id and one
    ``created_at`` when the stream begins; :meth:`start_event` puts them on the
    :class:`MessageStartEvent`, so any other accumulator fed the same events (a UI's) shows the
    message under the id it will be stored with, and the completed message carries them too.

    A subclass implements :meth:`feed` and :meth:`finish`, and the three readers that turn its
    API's SSE events, SDK objects and SDK exceptions into wire items.
    """

    __slots__ = ("acc", "finished", "started")

    provider: ClassVar[str] = ""
    """The adapter's name, for errors."""
    dicts_are_items: ClassVar[bool] = False
    """A parsed JSON chunk is a wire item as it is (so a list of them skips the input reader)."""

    def __init__(self) -> None:
        self.acc = Accumulator()
        self.started = False
        self.finished = False

    # -- what a subclass writes -------------------------------------------------------------

    def feed(self, item: Mapping[str, Any]) -> Sequence[StreamEvent]:
        """The stream events one wire item stands for, already folded into :attr:`acc`."""
        raise NotImplementedError

    def finish(self) -> Sequence[StreamEvent]:
        """End of input: what is still pending, then one :class:`MessageCompleteEvent`."""
        raise NotImplementedError

    @staticmethod
    def from_sse(sse: ServerSentEvent) -> Mapping[str, Any] | None:
        """The wire item of one server-sent event (``None`` for pings and comments)."""
        raise NotImplementedError

    @staticmethod
    def from_object(item: Any) -> Mapping[str, Any] | None:
        """The wire item of one SDK object or parsed chunk (``None`` for helper events)."""
        raise NotImplementedError

    @staticmethod
    def error_body(exc: Exception) -> Mapping[str, Any] | None:
        """The wire item of an exception the SDK raised mid-stream, or ``None`` to re-raise it."""
        return None

    # -- what the kernel gives --------------------------------------------------------------

    @property
    def message_id(self) -> str:
        """The id of the message this stream builds, from its first event to its last."""
        return self.acc.message_id

    @property
    def created_at(self) -> datetime:
        """When the message this stream builds was created."""
        return self.acc.created_at

    def start_event(self, **fields: Any) -> MessageStartEvent:
        """The stream's :class:`MessageStartEvent`, carrying its identity (marks it started)."""
        self.started = True
        return MessageStartEvent(message_id=self.acc.message_id, created_at=self.acc.created_at,
                                 **fields)

    def emit(self, events: list[StreamEvent]) -> tuple[StreamEvent, ...]:
        """Fold ``events`` into :attr:`acc` and return them, opened by a start event if none
        came before (an error as a stream's first item still names its message)."""
        if not self.started and events and type(events[0]) is not MessageStartEvent:
            events.insert(0, self.start_event(provider=self.provider or None))
        feed = self.acc.feed
        for event in events:
            feed(event)
        return tuple(events)

    def complete(self, *, whole: bool = True) -> MessageCompleteEvent:
        """The completion event (the message marked whole, or as it stands), already folded."""
        event = MessageCompleteEvent(self.acc.complete() if whole else self.acc.message)
        self.acc.feed(event)
        return event

    def items(self, chunks: Any) -> Iterator[Mapping[str, Any]]:
        """Wire items from raw SSE (bytes or text), parsed JSON or SDK objects."""
        return iter_wire_items(chunks, from_sse=self.from_sse, from_object=self.from_object,
                               error_body=self.error_body)

    def aitems(self, chunks: AsyncIterable[Any]) -> AsyncIterator[Mapping[str, Any]]:
        """:meth:`items` over an asynchronous source."""
        return aiter_wire_items(chunks, from_sse=self.from_sse, from_object=self.from_object,
                                error_body=self.error_body)


def run_stream(make: Callable[[], Translator], chunks: Any) -> Iterator[StreamEvent]:
    """Drive a new translator (``make()``, called on the first step, under the id and clock
    sources in force then) over any stream input; hostile input raises only partwire errors."""
    return _run(make, chunks)


def _provider_of(make: Callable[[], Translator]) -> str:
    cls = make.func if isinstance(make, functools.partial) else make
    return str(getattr(cls, "provider", ""))


def _run(make: Callable[[], Translator], chunks: Any) -> Iterator[StreamEvent]:
    # The boundary is this generator's own try (not a wrapping generator): one frame per event.
    try:
        translator = make()
        feed = translator.feed
        # Parsed chunks in a list need no input handling: skip that generator (a hot loop).
        plain = translator.dicts_are_items and type(chunks) is list and bool(chunks) \
            and type(chunks[0]) is dict
        for item in chunks if plain else translator.items(chunks):
            yield from feed(item)
        yield from translator.finish()
    except StreamProtocolError as exc:
        # The accumulator refused what the translator made of the wire events: events that do
        # not fit together (a text delta for a tool-call block) are the input's fault.
        raise WireFormatError(_provider_of(make), "stream", str(exc)) from exc
    except PartwireError:
        raise
    except _HOSTILE as exc:
        raise WireFormatError(_provider_of(make), "stream", _reason(exc)) from exc


def arun_stream(make: Callable[[], Translator], chunks: Any) -> AsyncIterator[StreamEvent]:
    """:func:`run_stream` over an asynchronous source (a synchronous one is accepted too)."""
    if not hasattr(chunks, "__aiter__"):
        return _aiter_sync(run_stream(make, chunks))
    return aguarded_stream(_provider_of(make), _arun(make, chunks))


async def _aiter_sync(events: Iterator[StreamEvent]) -> AsyncIterator[StreamEvent]:
    for event in events:
        yield event


async def _arun(make: Callable[[], Translator], chunks: AsyncIterable[Any]) -> AsyncIterator[StreamEvent]:
    translator = make()
    feed = translator.feed
    async for item in translator.aitems(chunks):
        for event in feed(item):
            yield event
    for event in translator.finish():
        yield event
