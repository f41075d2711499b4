"""Projections onto a provider: the request, and what it lost.

Lossiness is data (DESIGN §8). Every adapter's ``to_wire`` returns a :class:`Projection`: the
request body plus one :class:`Loss` per thing it could not send as it is. Each loss is logged
once at WARNING on the ``partwire.projection`` logger with structured ``extra`` fields;
``strict=True`` raises :class:`~partwire.errors.LossError` instead. What a switch would lose is
:func:`partwire.switch.check_switch`, above the adapters.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, fields
from itertools import islice
from typing import Any, overload

from partwire._loss import Loss, LossAction
from partwire.errors import LossError, SwitchRefusedError

__all__ = [
    "Loss",
    "LossAction",
    "Losses",
    "Projection",
    "SwitchRefusedError",
    "log_losses",
    "make_projection",
]

logger = logging.getLogger("partwire.projection")

class Losses(Sequence[Loss]):
    """An immutable sequence of losses that shares its middle with a list that only grows: the
    first ``kept`` items of ``middle``, between ``head`` and ``tail``. A session's request holds
    its losses this way, so a turn does not copy the losses of every earlier turn (on a long
    history that copy was most of a turn's cost). It compares, hashes and adds like the tuple of
    its items (``losses == tuple(losses)``)."""

    __slots__ = ("_head", "_kept", "_middle", "_tail")

    def __init__(self, head: tuple[Loss, ...] = (), middle: Sequence[Loss] = (),
                 kept: int | None = None, tail: tuple[Loss, ...] = ()) -> None:
        self._head = head
        self._middle = middle  # never changed below ``kept`` by whoever holds it
        self._kept = len(middle) if kept is None else kept
        self._tail = tail

    def __len__(self) -> int:
        return len(self._head) + self._kept + len(self._tail)

    def __iter__(self) -> Iterator[Loss]:
        yield from self._head
        yield from islice(self._middle, self._kept)
        yield from self._tail

    @overload
    def __getitem__(self, index: int) -> Loss: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Loss, ...]: ...
    def __getitem__(self, index: int | slice) -> Loss | tuple[Loss, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        n = len(self)
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError("Losses index out of range")
        if i < len(self._head):
            return self._head[i]
        i -= len(self._head)
        if i < self._kept:
            return self._middle[i]
        return self._tail[i - self._kept]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Losses | tuple):
            return len(self) == len(other) and tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __add__(self, other: object) -> tuple[Loss, ...]:
        if isinstance(other, Losses | tuple):
            return (*self, *other)
        return NotImplemented

    def __radd__(self, other: object) -> tuple[Loss, ...]:
        if isinstance(other, tuple):
            return (*other, *self)
        return NotImplemented

    def __repr__(self) -> str:
        return repr(tuple(self))


@dataclass(frozen=True, slots=True)
class Projection:
    """A request body ready for the provider's official client, and what it lost."""

    request: dict[str, Any]
    """The body: ``client.messages.create(**projection.request)`` for Anthropic."""
    losses: Sequence[Loss] = ()
    """Everything not sent as it is, in history order: a tuple from ``to_wire``; a
    :class:`Losses` (equal to the tuple of its items) from a session's ``request``."""

    @property
    def lossless(self) -> bool:
        """Whether nothing was lost."""
        return not self.losses


def log_losses(losses: Iterable[Loss], *, session: str | None = None) -> None:
    """Log each loss once at WARNING on ``partwire.projection``, with structured fields."""
    if not logger.isEnabledFor(logging.WARNING):
        return
    first: dict[str, Any] | None = None
    for loss in losses:
        extra = {
            "session": session,
            "message_id": loss.message_id,
            "part_type": loss.part_type,
            "adapter": loss.adapter,
            "reason": loss.reason,
            "loss_action": loss.action,
            "loss_path": loss.path,
        }
        if first is None:
            # The first record comes from the logger's record factory, as logger.warning would
            # make it. The others of one call share its time, caller, thread and process: each is
            # a copy with its own message and fields, which costs a tenth of making a record.
            fn, lno, func, sinfo = logger.findCaller()
            record = logger.makeRecord(logger.name, logging.WARNING, fn, lno, "%s", (loss,), None,
                                       func, extra, sinfo)
            first = dict(record.__dict__)  # before any handler writes on it
        else:
            record = logging.LogRecord.__new__(type(record))
            record.__dict__.update(first)
            record.__dict__.update(extra)
            record.args = (loss,)
        logger.handle(record)


def make_projection(
    request: dict[str, Any], losses: Iterable[Loss], *, adapter: str, strict: bool,
    session: str | None = None,
) -> Projection:
    """The adapters' last step: raise in strict mode if anything was lost, else log and wrap."""
    found = tuple(losses)
    if found:
        if strict:
            raise LossError(found, adapter)
        log_losses(found, session=session)
    return new_projection(request, found)


def new_projection(request: dict[str, Any], losses: tuple[Loss, ...]) -> Projection:
    """``Projection(request=request, losses=losses)``, its two slots set by their descriptors
    (as :func:`~partwire.adapters._losses.new_loss` makes a ``Loss``): every ``to_wire`` ends
    with one, and the frozen dataclass's ``__init__`` costs twice as much."""
    made = _new(Projection)
    _set_request(made, request)
    _set_losses(made, losses)
    return made


_new = object.__new__
_set_request, _set_losses = (Projection.__dict__[name].__set__ for name in ("request", "losses"))
if [f.name for f in fields(Projection)] != ["request", "losses"]:
    raise ImportError("new_projection sets every field of Projection: update it with Projection")  # pragma: no cover

