"""Incremental projection: the request for turn n+1 reuses turn n's wire messages.

A history is cut where every adapter starts a new wire message whatever came before (an assistant
message after a user or tool message, a user message after an assistant message), with no tool
call open across the cut and no system message after the leading ones. The wire messages before
the cut are kept; only the leading system messages and the events from the cut on are projected
again, so a turn costs what its new events cost. Each new cut is checked before it is used: the
events after it must project to the same wire messages with and without what precedes them. When
a condition does not hold, the whole history is projected (``to_wire`` itself), so the result is
always ``to_wire(history)``.

The request returned for a turn holds the kept wire messages in a list of its own: a later turn
never changes a list that anyone else still holds. On CPython, when nothing but the projector
refers to the last request's list any more (the caller sent the request and let it go), the next
turn extends that list in place instead of copying it: the copy is the one cost of a turn that
grows with the history.
"""

from __future__ import annotations

import re
import sys
import sysconfig
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from partwire.adapters._kernel import dry_run
from partwire.messages import AssistantMessage, Message, SystemMessage, ToolMessage, UserMessage
from partwire.parts import ToolCallPart
from partwire.projection import Loss, Losses, Projection

if TYPE_CHECKING:
    from partwire.adapters import Adapter

__all__ = ["Projector", "count_marks", "wire_key"]

_LIST_KEYS = ("messages", "input", "contents")
_PATH = re.compile(r"^history\[(\d+)\]")
# (previous, next) message classes between which every adapter opens a new wire message.
_CUTS = frozenset({(AssistantMessage, UserMessage), (ToolMessage, AssistantMessage),
                   (UserMessage, AssistantMessage)})
# Reference counts, where they say who else holds a list: CPython with its GIL (a free-threaded
# build's counts are split between threads; other interpreters have none).
_REFCOUNT = (sys.getrefcount if sys.implementation.name == "cpython"
             and not sysconfig.get_config_var("Py_GIL_DISABLED") else None)


def wire_key(request: dict[str, Any]) -> str | None:
    """The body field holding the wire messages (``messages``, ``input`` or ``contents``)."""
    for key in _LIST_KEYS:
        if isinstance(request.get(key), list):
            return key
    return None


def count_marks(node: Any) -> int:
    """How many prompt-cache markers a wire value holds (a request import can keep some):
    Anthropic's ``cache_control`` marks and Converse's ``cachePoint`` blocks."""
    if isinstance(node, dict):
        return ("cache_control" in node) + ("cachePoint" in node) + sum(
            count_marks(v) for v in node.values() if isinstance(v, dict | list))
    if isinstance(node, list):
        return sum(count_marks(v) for v in node)
    return 0


def _index(loss: Loss) -> int | None:
    found = _PATH.match(loss.path)
    return int(found.group(1)) if found else None


def _moved(loss: Loss, index: int, by: int) -> Loss:
    return replace(loss, path=f"history[{index + by}]{loss.path[_PATH.match(loss.path).end():]}")  # type: ignore[union-attr]


class Projector:
    """Projects a growing list of messages onto one adapter, reusing the wire messages of earlier
    turns. ``project(messages)`` equals ``adapter.to_wire(messages, **kwargs)`` (as JSON)."""

    def __init__(self, adapter: Adapter, kwargs: dict[str, Any], *, incremental: bool = True,
                 relocate: Callable[[Loss], Loss] | None = None) -> None:
        self.adapter = adapter
        self.kwargs = kwargs
        self.incremental = incremental
        self.relocate = relocate
        """Applied to each loss of a projection once, when it is new (the session maps context
        paths to history paths with it): a kept loss is not walked again on later turns."""
        self.full_projections = 0
        """How many times the whole history was projected (for tests and diagnostics)."""
        self.recent: tuple[Loss, ...] = ()
        """The losses of what the last ``project`` projected anew (the rest were reported before)."""
        self._out: Sequence[Loss] = ()  # the last projection's losses, relocated
        self._tail: list[Loss] | None = None
        # A list only this attribute refers to: its reference count, read the same way as that of
        # the kept list, is the count of a list nobody else holds (whatever the interpreter adds
        # for the call itself).
        self._alone: list[Any] = []
        self.reset()

    def reset(self) -> None:
        """Forget every kept wire message (after a compaction, or a history that was rewritten)."""
        self.cut = 0
        # The kept wire messages: the first ``before_len`` items of ``before_src`` (the last
        # request's list, edited only once nothing else refers to it), so keeping them costs no
        # copy.
        self.before_src: list[Any] = []
        self.before_len = 0
        self.before_marks = 0  # cache_control marks already in the kept wire messages
        # Messages of ``before_src`` that the session replaced with marked copies in place, by
        # index: put back before the kept messages are used again.
        self.patches: dict[int, Any] = {}
        self.before_losses: list[Loss] = []
        self.before_relocated: list[Loss] = []  # ``before_losses`` through ``relocate``
        self.head = 0  # leading system messages
        self.head_count = 0  # wire messages they give
        self.head_known = False
        self.mid_system = False  # a system message after the leading ones, or a call id reused
        self.scanned = 0
        self.pending: set[str] = set()
        self.calls: dict[str, int] = {}  # call id -> index of the message making it
        self.candidates: list[int] = []

    # -- the walk over new messages ---------------------------------------------------------

    def _scan(self, messages: Sequence[Message]) -> None:
        start = self.scanned
        if start == 0:
            while start < len(messages) and type(messages[start]) is SystemMessage:
                start += 1
            self.head = start
            self.scanned = start
        prev = messages[start - 1] if start > self.head else None
        for i in range(start, len(messages)):
            m = messages[i]
            kind = type(m)
            if prev is not None and not self.pending and (type(prev), kind) in _CUTS:
                self.candidates.append(i)
            if kind is SystemMessage:
                self.mid_system = True
            elif kind is AssistantMessage:
                for part in m.parts:
                    if type(part) is ToolCallPart:
                        if part.id in self.calls:
                            self.mid_system = True  # an id used twice: project it whole
                        self.calls[part.id] = i
                        self.pending.add(part.id)
            elif kind is ToolMessage:
                self.pending.discard(m.call_id)  # type: ignore[union-attr]
            prev = m
        self.scanned = len(messages)

    def _to_wire(self, messages: Sequence[Message]) -> Projection:
        with dry_run():
            return self.adapter.to_wire(list(messages), **self.kwargs)

    def _relocated(self, losses: Sequence[Loss]) -> tuple[Loss, ...]:
        relocate = self.relocate
        if relocate is None:
            return losses if isinstance(losses, tuple) else tuple(losses)
        return tuple(map(relocate, losses))

    def _full(self, messages: Sequence[Message]) -> Projection:
        self.full_projections += 1
        self._tail = None
        projection = self._to_wire(messages)
        self._out = self._relocated(projection.losses)
        self.recent = self._out
        return projection

    # -- projecting ---------------------------------------------------------------------------

    def project(self, messages: Sequence[Message]) -> Projection:
        """The projection of ``messages`` (which extend the ones given last time)."""
        if len(messages) < self.scanned:
            self.reset()
        self._scan(messages)
        if not self.incremental or self.mid_system:
            return self._relocated_projection(self._full(messages))
        if self.cut:
            result = self._spliced(messages)
            if result is None:
                self.reset()
                self._scan(messages)
                result = self._full(messages)
        else:
            result = self._full(messages)
        self._advance(messages, result)
        return result if self._tail is not None else self._relocated_projection(result)

    def _relocated_projection(self, result: Projection) -> Projection:
        """A whole projection with its losses relocated (``_full`` relocated them)."""
        out, self._out = self._out, ()  # not kept past the call (see ``take_recent``)
        if self.relocate is None:
            return result
        return Projection(request=result.request, losses=out)

    def take_recent(self) -> tuple[Loss, ...]:
        """:attr:`recent`, forgotten here: a whole projection's losses are a large tuple, and one
        kept until the next turn would be freed there, touching every loss again when they are
        no longer in the processor's cache (on 100,000 events, most of that turn's cost)."""
        recent, self.recent = self.recent, ()
        return recent

    def marks(self, wire: list[Any]) -> int:
        """The ``cache_control`` marks in ``wire`` (the last request's list), counting only the
        messages after the kept ones again."""
        kept = self.before_len
        return self.before_marks + count_marks(wire[kept:]) if kept else count_marks(wire)

    def _window(self, messages: Sequence[Message], start: int) -> Projection:
        return self._to_wire([*messages[:self.head], *messages[start:]])

    def _spliced(self, messages: Sequence[Message]) -> Projection | None:
        cut = self.cut
        # A result in the window answering a call before the cut ties the two together.
        for m in messages[cut:]:
            if type(m) is ToolMessage and 0 <= self.calls.get(m.call_id, cut) < cut:
                return None
        window = self._window(messages, cut)
        key = wire_key(window.request)
        if key is None:
            return None
        wire = window.request[key]
        request = dict(window.request)
        reused = self._reusable()
        kept = self.before_src[:self.before_len] if reused is None else reused
        for k, original in self.patches.items():
            if k < len(kept):
                kept[k] = original
        if reused is not None:
            self.patches = {}  # the one list they were in is unmarked again
        kept.extend(wire[self.head_count:])
        request[key] = kept
        by = cut - self.head
        losses: list[Loss] = []
        tail: list[Loss] = []
        for loss in window.losses:
            i = _index(loss)
            if i is None or i < self.head:
                losses.append(loss)
            else:
                tail.append(_moved(loss, i, by))
        self._tail = tail
        new_losses, new_tail = self._relocated(losses), self._relocated(tail)
        self.recent = (*new_losses, *new_tail)
        # The kept turns' losses are shared, not copied: those lists only grow (a reset makes
        # new ones), so their first items stay as this projection saw them.
        if self.relocate is not None:
            return Projection(request=request, losses=Losses(
                new_losses, self.before_relocated, len(self.before_relocated), new_tail))
        return Projection(request=request, losses=Losses(
            tuple(losses), self.before_losses, len(self.before_losses), tuple(tail)))

    def _reusable(self) -> list[Any] | None:
        """``before_src`` cut back to the kept wire messages, when nothing but the projector
        refers to it (the request that held it is gone), else None: a list someone holds is never
        changed."""
        if _REFCOUNT is None or not self.before_len or _REFCOUNT(self.before_src) != _REFCOUNT(
                self._alone):
            return None
        src = self.before_src
        del src[self.before_len:]
        return src

    def _advance(self, messages: Sequence[Message], result: Projection) -> None:
        """Move the cut to the latest candidate, after checking it holds."""
        later = [j for j in self.candidates if j > self.cut and j < len(messages)]
        if not later:
            return
        j = later[-1]
        if any(self.calls.get(c, j) < j for c in self.pending):
            return
        key = wire_key(result.request)
        if key is None:
            return
        if not self.head_known:
            self.head_count = (len(self._to_wire(messages[:self.head]).request.get(key) or ())
                               if self.head else 0)
            self.head_known = True
        window = self._window(messages, j)
        wire = window.request.get(key)
        if not isinstance(wire, list):
            return
        count = len(wire) - self.head_count
        full = result.request[key]
        keep = len(full) - count
        # The check: the events after the cut give the same wire messages without what precedes
        # them, and they give at least one (so everything kept is before the last wire message).
        if count < 1 or keep < self.before_len or full[keep:] != wire[self.head_count:]:
            return
        self.before_marks += count_marks(full[self.before_len:keep])
        if full is not self.before_src:
            self.patches = {}  # they were in the list given up (a copy, or the caller's)
        self.before_src = full
        self.before_len = keep
        if self._tail is None:  # a whole projection: its losses are walked once, as it was
            kept = [loss for loss in result.losses
                    if (i := _index(loss)) is not None and self.head <= i < j]
            self.before_losses = kept
            self.before_relocated = list(self._relocated(kept))
        else:  # only the window's are new
            kept = [loss for loss in self._tail if (i := _index(loss)) is not None and i < j]
            self.before_losses.extend(kept)
            self.before_relocated.extend(self._relocated(kept))
        self.cut = j
        self.candidates = [c for c in self.candidates if c > j]
