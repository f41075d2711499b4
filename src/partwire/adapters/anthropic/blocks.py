"""Anthropic Messages content blocks, one at a time: a block to a part and a part to a block.

The same verbs as every adapter's ``blocks`` module, for code that meets single blocks rather
than whole requests (the bridges, a UI): :func:`part_from_wire` reads a block as
:meth:`~partwire.adapters.anthropic.from_wire` reads it, :func:`part_to_wire` writes a part as
:meth:`~partwire.adapters.anthropic.to_wire` writes it. Each returns the losses beside the result
(never logged, never raised): a loss's path names the part as ``history[0].parts[0]``.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from partwire.adapters._kernel import boundary_error
from partwire.adapters._losses import LossCollector
from partwire.adapters.anthropic._decode import part_from_wire as _read
from partwire.adapters.anthropic._parts import PartEncoder
from partwire.adapters.anthropic._wire import API, ISSUER
from partwire.parts import Part
from partwire.projection import Loss

__all__ = ["part_from_wire", "part_to_wire"]


def part_from_wire(block: Any) -> tuple[Part, tuple[Loss, ...]]:
    """One content block (a dict of any role's ``content``) as a part, and its losses (none:
    a block it does not know becomes an :class:`~partwire.parts.UnknownPart`, kept whole)."""
    try:
        return _read(block), ()
    except Exception as exc:
        raise boundary_error(exc, API, "content block") from None


def part_to_wire(part: Part, *,
                 accept_issuers: Collection[str] = (ISSUER,)) -> tuple[dict[str, Any] | None, tuple[Loss, ...]]:
    """The content block for ``part``, or ``None`` when it cannot be sent, and what was lost.

    ``accept_issuers`` are the issuers whose opaque values and provider data are sent (as
    ``to_wire``'s ``accept_issuers``). A tool call's id is the one the accepted issuer gave it,
    else the id it arrived with where Anthropic's id rules admit it.
    """
    losses = LossCollector(API)
    block = PartEncoder(issuers=accept_issuers, losses=losses).part(part, 0, 0, "")
    return (None if block is None else dict(block)), tuple(losses.items)
