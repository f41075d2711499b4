"""The memos partwire keeps of values it has met, so that :func:`forget` can empty them all.

An agent or a gateway sends the same things again and again: a conversation's tools, settings and
signatures with every request, its whole history every turn. Several conversions remember what
they made of such a value (a tool definition read from its JSON, a signature checked, a loss
reported) and hand back the same result the next time; each memo is bounded and emptied when it
grows past its limit. What one remembers never changes a result, only its cost.

Each memo registers itself here with :func:`memo`. :func:`forget` empties them all: a benchmark
that repeats the same requests calls it before each pass, so that it measures a first meeting with
each request (a memo still serves the requests of one conversation within the pass), and a
program may call it to give the memory back.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

__all__ = ["forget", "memo"]


class _Clearable(Protocol):
    def clear(self) -> None: ...


C = TypeVar("C", bound=_Clearable)

_MEMOS: list[_Clearable] = []


def memo(container: C) -> C:
    """Register ``container`` (a dict or set keyed by values met) and return it."""
    _MEMOS.append(container)
    return container


def forget() -> None:
    """Empty every memo of values met."""
    for container in _MEMOS:
        container.clear()
