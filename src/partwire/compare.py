"""Comparing and merging histories: content equality, common prefixes, coalescing.

``==`` on any canonical model already ignores ``provider_data``. :func:`same_content` goes
further and ignores what identifies an event rather than what it says (id, creation time,
parent), which is what prefix matching across stored and incoming conversations needs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from partwire._base import replace
from partwire.history import History, HistoryEvent
from partwire.messages import DeveloperMessage, SystemMessage, UserMessage
from partwire.parts import TextPart

__all__ = ["coalesce", "common_prefix", "same_content"]

_IDENTITY = ("id", "created_at", "parent_id")


def same_content(a: HistoryEvent, b: HistoryEvent) -> bool:
    """Whether two events say the same thing, whatever their ids, times and provider data."""
    if type(a) is not type(b):
        return False
    return bool(replace(b, **{k: getattr(a, k) for k in _IDENTITY if hasattr(a, k)}) == a)


def common_prefix(
    a: History, b: History, *, key: Callable[[HistoryEvent, HistoryEvent], bool] = same_content
) -> int:
    """How many leading events ``a`` and ``b`` share (compared by ``key``)."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if not key(x, y):
            break
        n += 1
    return n


_Coalescible = SystemMessage | DeveloperMessage | UserMessage


def coalesce(
    history: Iterable[HistoryEvent],
    *,
    roles: frozenset[str] = frozenset({"system", "developer", "user"}),
) -> list[HistoryEvent]:
    """Merge runs of adjacent text-only messages of one role into the first of each run.

    The merged message keeps the first message's id, time and metadata and the text parts of all
    of them in order (nothing is concatenated, so nothing is lost). Assistant messages are not
    merged by default: each is one model call with its own usage and provenance.
    """
    out: list[HistoryEvent] = []
    for event in history:
        prev = out[-1] if out else None
        if (
            isinstance(event, _Coalescible)
            and isinstance(prev, _Coalescible)
            and event.role in roles
            and prev.role == event.role
            and _text_only(prev)
            and _text_only(event)
        ):
            merged: Any = replace(prev, parts=(*prev.parts, *event.parts))
            out[-1] = merged
        else:
            out.append(event)
    return out


def _text_only(message: _Coalescible) -> bool:
    return all(isinstance(p, TextPart) and not p.citations for p in message.parts)
