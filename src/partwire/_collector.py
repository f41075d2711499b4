"""The cyclic garbage collector held off while a whole-history operation builds its result.

partwire's models and wire dicts form no reference cycles: what an operation allocates is freed
by reference counting. CPython's collector still visits every container that lives through
700 allocations, and once the oldest generation has grown by a quarter it visits the whole heap;
a 100,000-event ``codec.loads`` or ``to_wire`` meets several such passes inside itself, each
over everything the program holds, where a 1,000-event call meets none. :func:`collector_paused`
holds automatic collection off for the length of the call, so that the call's cost grows with
its own input only (``docs/codec.md``, "The collector").

How it holds the collector off: the first generation's threshold is set to 0, which CPython
reads as "no automatic collection" (``gc.set_threshold``), and put back when the last paused
call in the process returns, however it returns. ``gc.enable()``/``gc.disable()`` are left
alone, so a program that disables the collector while a call runs keeps it disabled, and
``gc.collect()`` works as ever. A program that sets the thresholds while a call runs keeps its
own: the saved threshold is put back only if the threshold still reads 0. Calls in several
threads share one pause; the last to return ends it.
"""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

__all__ = ["collector_paused", "paused"]

P = ParamSpec("P")
R = TypeVar("R")

_lock = threading.Lock()
_depth = 0
_saved = 0  # the first generation's threshold when the outermost pause began


def _pause() -> None:
    global _depth, _saved
    with _lock:
        if _depth == 0:
            first, second, third = gc.get_threshold()
            _saved = first
            if first:
                gc.set_threshold(0, second, third)
        _depth += 1


def _resume() -> None:
    global _depth
    with _lock:
        _depth -= 1
        if _depth == 0:
            first, second, third = gc.get_threshold()
            if first == 0 and _saved:  # still ours: nobody set the thresholds meanwhile
                gc.set_threshold(_saved, second, third)


class paused:
    """A context manager: automatic collection held off inside the ``with`` block."""

    __slots__ = ()

    def __enter__(self) -> None:
        _pause()

    def __exit__(self, *exc: object) -> None:
        _resume()


def collector_paused(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` with automatic collection held off while it runs (see the module docstring)."""

    @functools.wraps(fn)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        _pause()
        try:
            return fn(*args, **kwargs)
        finally:
            _resume()

    return call
