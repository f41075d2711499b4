"""Cohere v2 content items, one at a time: an item to a part and a part to an item.

The same verbs as every adapter's ``blocks`` module, for code that meets single items rather
than whole requests (the bridges, a UI): :func:`part_from_wire` reads an item as
:meth:`~partwire.adapters.cohere.from_wire` reads it, :func:`part_to_wire` writes a part as
:meth:`~partwire.adapters.cohere.to_wire` writes it in a user message (an assistant's thinking as
an assistant's). Each returns the losses beside the result (never logged, never raised): a
loss's path names the part as ``history[0].parts[0]``.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from partwire.adapters._kernel import boundary_error
from partwire.adapters._losses import LossCollector
from partwire.adapters.cohere._decode import part_from_wire as _read
from partwire.adapters.cohere._parts import PartEncoder
from partwire.adapters.cohere._wire import API, FINISH_REASONS, ISSUER
from partwire.messages import StopReason
from partwire.parts import Part, ThinkingPart
from partwire.projection import Loss

__all__ = ["part_from_wire", "part_to_wire", "stop_reason_from_wire"]


def part_from_wire(item: Any) -> tuple[Part, tuple[Loss, ...]]:
    """One content item (a dict of any role's ``content``) as a part, and its losses (none:
    an item it does not know becomes an :class:`~partwire.parts.UnknownPart`, kept whole)."""
    try:
        return _read(item), ()
    except Exception as exc:
        raise boundary_error(exc, API, "content item") from None


def part_to_wire(part: Part, *,
                 accept_issuers: Collection[str] = (ISSUER,)) -> tuple[dict[str, Any] | None, tuple[Loss, ...]]:
    """The content item for ``part``, or ``None`` when it cannot be sent, and what was lost.

    A document is written as the ``document`` item of a tool result (Cohere takes documents
    nowhere else in a message).
    """
    losses = LossCollector(API)
    encoder = PartEncoder(issuers=accept_issuers, losses=losses)
    role = "assistant" if isinstance(part, ThinkingPart) else "tool" if part.type == "document" else "user"
    item = encoder.item(part, role, 0, 0, "")
    return item, tuple(losses.items)


def stop_reason_from_wire(raw: str | None) -> StopReason | None:
    """The canonical stop reason of a Cohere ``finish_reason`` (``COMPLETE``, ``TOOL_CALL``...),
    as :meth:`~partwire.adapters.cohere.from_wire` reads it; ``None`` for one it does not know."""
    return FINISH_REASONS.get(raw) if isinstance(raw, str) else None
