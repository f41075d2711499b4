"""The one registry of everything partwire remembers, so that :func:`forget` can empty it all.

An agent or a gateway sends the same things again and again: a conversation's tools, settings and
signatures with every request, its whole history every turn. Several conversions remember what
they made of such a value (a tool definition read from its JSON, a signature checked, a loss
reported, a text's token count) and hand back the same result the next time; each such memo is
bounded and emptied when it grows past its limit. Others remember what partwire works out once
about its own classes and data (a model class's fields, an ``Options`` type's field types, a
price lookup, a vendored schema's text). What any of them remembers never changes a result, only
its cost.

Every one registers itself here, when its module is imported: a memo of values met as a
container with :func:`memo`, a ``functools.cache`` function with :func:`cached`, anything else
with :func:`on_forget`; what is worked out about partwire's own classes and data (never about a
value a caller passed) with :func:`derived`. :func:`forget` empties them all, or with
``values_only`` the memos of values met alone; the public way to call it is
:func:`partwire.caches.clear`. A test asserts that no module keeps a cache outside this registry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar, runtime_checkable

__all__ = ["cached", "derived", "forget", "memo", "on_forget"]


class _Clearable(Protocol):
    def clear(self) -> None: ...


@runtime_checkable
class _Cached(Protocol):
    def cache_clear(self) -> None: ...


C = TypeVar("C", bound=_Clearable)
F = TypeVar("F", bound=_Cached)
G = TypeVar("G", bound=Callable[[], None])
D = TypeVar("D", bound=_Clearable | _Cached)

# The memos of values met; the caches of what is derived from partwire's own classes and data.
_FORGETS: list[Callable[[], None]] = []
_DERIVED: list[Callable[[], None]] = []


def memo(container: C) -> C:
    """Register ``container`` (a dict or set of what was met or worked out) and return it."""
    _FORGETS.append(container.clear)
    return container


def cached(function: F) -> F:
    """Register a ``functools.cache`` (or ``lru_cache``) function and return it."""
    _FORGETS.append(function.cache_clear)
    return function


def on_forget(forget_one: G) -> G:
    """Register a function that empties a memo kept otherwise (one with a running size beside
    its container), and return it."""
    _FORGETS.append(forget_one)
    return forget_one


def derived(target: D) -> D:
    """Register a container or a ``functools`` cache of what partwire works out about its own
    classes and data (a model class's fields, an options type's defaults, a tokenizer loaded, a
    vendored schema's text), and return it. Its entries do not depend on any value a caller
    passed: ``forget(values_only=True)`` keeps them."""
    _DERIVED.append(target.cache_clear if isinstance(target, _Cached) else target.clear)
    return target


def forget(*, values_only: bool = False) -> None:
    """Empty every memo and cache partwire keeps; with ``values_only``, the memos of values met
    alone."""
    for forget_one in _FORGETS if values_only else (*_FORGETS, *_DERIVED):
        forget_one()
