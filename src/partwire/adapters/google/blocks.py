"""Gemini content parts, one at a time: a wire part to a canonical part and back.

The same verbs as every adapter's ``blocks`` module, for code that meets single blocks rather
than whole requests (the bridges, a UI): :func:`part_from_wire` reads a part as
:meth:`~partwire.adapters.google.from_wire` reads it, :func:`part_to_wire` writes a part as
:meth:`~partwire.adapters.google.to_wire` writes it. Each returns the losses beside the result
(never logged, never raised): a loss's path names the part as ``history[0].parts[0]``. Gemini
also states why a candidate stopped (``finishReason``): :func:`stop_reason_from_wire` reads it.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from partwire.adapters._kernel import boundary_error
from partwire.adapters._losses import LossCollector
from partwire.adapters.google._parts import PartEncoder
from partwire.adapters.google._parts import part_from_wire as _read
from partwire.adapters.google._wire import API, ISSUER, stop_reason
from partwire.messages import StopReason
from partwire.parts import Part
from partwire.projection import Loss

__all__ = ["part_from_wire", "part_to_wire", "stop_reason_from_wire"]


def part_from_wire(block: Any, *, model: str | None = None) -> tuple[Part, tuple[Loss, ...]]:
    """One wire part (an object of a ``contents[].parts`` list) as a canonical part, and its
    losses (none: a part it does not know becomes an :class:`~partwire.parts.UnknownPart`).

    ``model`` is the model that wrote it (a response's ``modelVersion``), recorded with a
    thought signature so that it goes back only to that model.
    """
    try:
        return _read(block, model), ()
    except Exception as exc:
        raise boundary_error(exc, API, "content part") from None


def part_to_wire(part: Part, *, model: str = "",
                 accept_issuers: Collection[str] = (ISSUER,)) -> tuple[dict[str, Any] | None, tuple[Loss, ...]]:
    """The wire part for ``part``, or ``None`` when it cannot be sent, and what was lost.

    ``model`` is the target model (a thought signature is sent only to the model that made it);
    ``accept_issuers`` are the issuers whose opaque values and provider data are sent, as
    ``to_wire``'s ``accept_issuers``.
    """
    losses = LossCollector(API)
    wire = PartEncoder(issuers=accept_issuers, model=model, losses=losses).part(
        part, "history[0].parts[0]", None)
    return (None if wire is None else dict(wire)), tuple(losses.items)


def stop_reason_from_wire(finish_reason: Any, *, tool_calls: bool = False) -> StopReason | None:
    """The canonical stop reason of a candidate's ``finishReason`` (``None`` when absent or
    unknown); ``tool_calls`` says whether the candidate holds function calls (Gemini says
    ``STOP`` for those too)."""
    return stop_reason(finish_reason, tool_calls=tool_calls)
