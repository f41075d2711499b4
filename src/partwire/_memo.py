"""The one registry of everything partwire remembers, so that :func:`forget` can empty it all.

An agent or a gateway sends the same things again and again: a conversation's tools, settings and
signatures with every request, its whole history every turn. Several conversions remember what
they made of such a value (a tool definition read from its JSON, a signature checked, a loss
reported, a text's token count) and hand back the same result the next time; each such memo is
bounded and emptied when it grows past its limit. Others remember what partwire works out once
about its own classes and data (a model class's fields, an ``Options`` type's field types, a
price lookup, a vendored schema's text). What any of them remembers never changes a result, only
its cost.

Every one registers itself here, when its module is imported: a container with :func:`memo`, a
``functools.cache`` function with :func:`cached`, anything else with :func:`on_forget`.
:func:`forget` empties them all; the public way to call it is :func:`partwire.caches.clear`.
A test asserts that no module keeps a cache outside this registry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

__all__ = ["cached", "forget", "memo", "on_forget"]


class _Clearable(Protocol):
    def clear(self) -> None: ...


class _Cached(Protocol):
    def cache_clear(self) -> None: ...


C = TypeVar("C", bound=_Clearable)
F = TypeVar("F", bound=_Cached)
G = TypeVar("G", bound=Callable[[], None])

_FORGETS: list[Callable[[], None]] = []


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


def forget() -> None:
    """Empty every memo and cache partwire keeps."""
    for forget_one in _FORGETS:
        forget_one()
