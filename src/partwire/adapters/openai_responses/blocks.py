"""OpenAI Responses content parts, one at a time: a content part to a part and back.

The same verbs as every adapter's ``blocks`` module, for code that meets single blocks rather
than whole requests (the bridges, a UI): :func:`part_from_wire` reads a message item's content
part as :meth:`~partwire.adapters.openai_responses.from_wire_request` reads it,
:func:`part_to_wire` writes a part as :meth:`~partwire.adapters.openai_responses.to_wire` writes
an input message's content. Each returns the losses beside the result (never logged, never
raised): a loss's path names the part as ``history[0].parts[0]``. Tool calls and reasoning are
items of their own in Responses, not content parts.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from partwire.adapters._kernel import boundary_error
from partwire.adapters._losses import LossCollector
from partwire.adapters.openai_responses._parts import PartEncoder
from partwire.adapters.openai_responses._parts import input_part_from_wire as _read
from partwire.adapters.openai_responses._wire import API, ISSUER
from partwire.parts import Part
from partwire.projection import Loss

__all__ = ["part_from_wire", "part_to_wire"]


def part_from_wire(block: Any) -> tuple[Part, tuple[Loss, ...]]:
    """One content part (``input_text``, ``input_image``, ``input_file``, ``output_text``,
    ``refusal``) as a part, and its losses (none: a part it does not know becomes an
    :class:`~partwire.parts.UnknownPart`, kept whole)."""
    try:
        return _read(block), ()
    except Exception as exc:
        raise boundary_error(exc, API, "content part") from None


def part_to_wire(part: Part, *,
                 accept_issuers: Collection[str] = (ISSUER,)) -> tuple[dict[str, Any] | None, tuple[Loss, ...]]:
    """The content part for ``part`` in an input message, or ``None`` when it cannot be sent,
    and what was lost. ``accept_issuers`` are the issuers whose provider data is sent, as
    ``to_wire``'s ``accept_issuers``."""
    losses = LossCollector(API)
    wire = PartEncoder(issuers=accept_issuers, losses=losses, resolve_file=None).input_part(part, "history[0].parts[0]", "")
    return (None if wire is None else dict(wire)), tuple(losses.items)
