"""Losses as adapters record them: the collector of one projection, losses made without the
frozen dataclass's ``__init__`` (and remembered by place), and the reasons every adapter gives
in the same words."""

from __future__ import annotations

import dataclasses

from partwire._memo import memo
from partwire.parts import UnknownPart
from partwire.projection import Loss, LossAction

__all__ = [
    "KNOWN_LIMIT",
    "LossCollector",
    "foreign_unknown_reason",
    "known_loss",
    "new_loss",
    "tool_status_loss",
]


def foreign_unknown_reason(part: UnknownPart) -> str:
    """Why an unrecognised part is not sent: it goes back only to the issuer that wrote it."""
    return (f"an unrecognised {part.original_type or 'untyped'} part from "
            f"{part.issuer or 'a stored history'} is sent only to its issuer")


def tool_status_loss(losses: LossCollector, path: str, status: str, message_id: str, *, api: str,
                     as_error: bool) -> None:
    """Report a tool status the API cannot carry as it is, in one form for every adapter.

    ``path`` is the tool message's (``history[4]``); the loss is on its ``.status``. With
    ``as_error`` the API has an error flag, and ``denied`` / ``aborted`` go out as an error
    (``downgraded``); without, no status goes out at all (``dropped``).
    """
    if status == "success" or (as_error and status == "error"):
        return
    if as_error:
        losses.add(f"{path}.status", "tool_message", "downgraded",
                   f"{api} has no '{status}' tool status; sent as an error", message_id)
    else:
        losses.add(f"{path}.status", "tool_message", "dropped",
                   f"{api} tool results carry no status; '{status}' is not sent (the output "
                   "text is)", message_id)


class LossCollector:
    """Collects the losses of one projection, with the path and message they belong to."""

    __slots__ = ("adapter", "items")

    def __init__(self, adapter: str) -> None:
        self.adapter = adapter
        self.items: list[Loss] = []

    def add(self, path: str, part_type: str, action: LossAction, reason: str,
            message_id: str | None = None) -> None:
        """Record one loss."""
        self.items.append(new_loss(path, part_type, action, reason, self.adapter, message_id))


def new_loss(path: str, part_type: str, action: LossAction, reason: str, adapter: str,
             message_id: str | None = None) -> Loss:
    """``Loss(...)`` itself, without the frozen dataclass's ``__init__`` (an ``object.__setattr__``
    per field): a lossy conversion records one per dropped part, and that ``__init__`` cost a
    sixth of such a ``to_wire``. The slots are set by their own descriptors, so the object is a
    ``Loss`` from the start."""
    loss = _new(Loss)
    _set_path(loss, path)
    _set_part_type(loss, part_type)
    _set_action(loss, action)
    _set_reason(loss, reason)
    _set_adapter(loss, adapter)
    _set_message_id(loss, message_id)
    return loss


def known_loss(i: int, j: int, part_type: str, action: LossAction, reason: str, adapter: str,
               message_id: str) -> Loss:
    """The loss of part ``j`` of ``history[i]``, remembered: :func:`new_loss` once per key.

    An agent resends its whole history every turn, and a part another provider cannot take is
    the same frozen ``Loss`` every time (its path, kind, action, reason, adapter and message are
    its key), so a lossy ``to_wire`` makes only the losses it has not made before. Bounded: the
    memo is emptied when it grows past :data:`KNOWN_LIMIT` entries.
    """
    # Keyed by where the part is, its other fields checked on a hit: a part has one loss almost
    # always, and a key of three is a third lighter than one of all seven (a memo entry per
    # reported part of a 100,000-event history).
    key = (message_id, i, j)
    loss = _KNOWN.get(key)
    if loss is None or loss.reason != reason or loss.part_type != part_type \
            or loss.action != action or loss.adapter != adapter:
        if len(_KNOWN) >= KNOWN_LIMIT:
            _KNOWN.clear()
        loss = _KNOWN[key] = new_loss(f"history[{i}].parts[{j}]", part_type, action, reason, adapter,
                                      message_id)
    return loss


KNOWN_LIMIT = 65_536
"""How many losses :func:`known_loss` remembers before it starts again."""
_KNOWN: dict[tuple[str, int, int], Loss] = memo({})


_new = object.__new__
# The slot setters of Loss, by name (a frozen dataclass refuses plain attribute assignment).
_set_path, _set_part_type, _set_action, _set_reason, _set_adapter, _set_message_id = (
    Loss.__dict__[name].__set__ for name in ("path", "part_type", "action", "reason", "adapter", "message_id"))
if {f.name for f in dataclasses.fields(Loss)} != {"path", "part_type", "action", "reason", "adapter", "message_id"}:
    raise ImportError("LossCollector.add sets every field of Loss: update it with Loss")  # pragma: no cover
