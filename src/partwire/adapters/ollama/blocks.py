"""Ollama message fields, one part at a time: a field to a part and a part to a field.

The same verbs as every adapter's ``blocks`` module, for code that meets single pieces rather
than whole requests (the bridges, a UI). An Ollama message has no blocks, so a "block" here is
a message holding one field: ``{"content": ...}``, ``{"thinking": ...}``, ``{"images": [one]}``
or ``{"tool_calls": [one]}``. :func:`part_from_wire` reads it as
:meth:`~partwire.adapters.ollama.from_wire` reads that field, :func:`part_to_wire` writes a part
as :meth:`~partwire.adapters.ollama.to_wire` writes it. Each returns the losses beside the
result (never logged, never raised): a loss's path names the part as ``history[0].parts[0]``.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from partwire.adapters._kernel import boundary_error
from partwire.adapters._losses import LossCollector
from partwire.adapters.ollama._decode import message_parts
from partwire.adapters.ollama._parts import PartEncoder
from partwire.adapters.ollama._wire import API, ISSUER
from partwire.parts import Part, TextPart, ToolCallPart, UnknownPart
from partwire.projection import Loss

__all__ = ["part_from_wire", "part_to_wire"]


def part_from_wire(block: Any) -> tuple[Part, tuple[Loss, ...]]:
    """One field of a message (``{"content": "hi"}``, ``{"tool_calls": [call]}``...) as a part,
    and its losses (none). A call gets the id its content makes, as in a request body; anything
    else (a field Ollama may add later, several parts) is an :class:`~partwire.parts.UnknownPart`
    holding it whole."""
    try:
        parts = message_parts(block, "", "0") if isinstance(block, dict) else None
        if parts is None or len(parts) != 1:
            kind = next(iter(block), None) if isinstance(block, dict) else None
            return UnknownPart(original_type=kind if isinstance(kind, str) else None, raw=block,
                               issuer=ISSUER), ()
        return parts[0], ()
    except Exception as exc:
        raise boundary_error(exc, API, "content block") from None


def part_to_wire(part: Part, *,
                 accept_issuers: Collection[str] = (ISSUER,)) -> tuple[dict[str, Any] | None, tuple[Loss, ...]]:
    """The message field for ``part`` (as a one-field dict), or ``None`` when it cannot be sent,
    and what was lost. ``accept_issuers`` are the issuers whose provider data is read, as
    ``to_wire``'s ``accept_issuers``."""
    losses = LossCollector(API)
    out: dict[str, Any] = {"content": ""}
    PartEncoder(issuers=accept_issuers, losses=losses).fields(
        out, (part,), 0, "", calls=type(part) is ToolCallPart)
    if out.get("content") == "" and len(out) > 1:
        del out["content"]
    if out == {"content": ""} and type(part) is not TextPart:
        return None, tuple(losses.items)
    return out, tuple(losses.items)
