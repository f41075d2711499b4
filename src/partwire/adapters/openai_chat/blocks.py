"""OpenAI Chat Completions content parts, one at a time: a content part to a part and back.

The same verbs as every adapter's ``blocks`` module, for code that meets single blocks rather
than whole requests (the bridges, a UI): :func:`part_from_wire` reads a message's content part
as :meth:`~partwire.adapters.openai_chat.from_wire_request` reads it, :func:`part_to_wire`
writes a part as :meth:`~partwire.adapters.openai_chat.to_wire` writes a user message's content.
Each returns the losses beside the result (never logged, never raised): a loss's path names the
part as ``history[0].parts[0]``. Tool calls and reasoning are not content parts in Chat
Completions: they travel beside the content of an assistant message.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from partwire.adapters._kernel import boundary_error
from partwire.adapters._losses import LossCollector
from partwire.adapters.openai_chat._decode import content_part_from_wire as _read
from partwire.adapters.openai_chat._dialects import DIALECTS
from partwire.adapters.openai_chat._parts import PartEncoder
from partwire.adapters.openai_chat._wire import API
from partwire.parts import Part
from partwire.projection import Loss

__all__ = ["part_from_wire", "part_to_wire"]


def part_from_wire(block: Any, *, dialect: str = "openai") -> tuple[Part, tuple[Loss, ...]]:
    """One content part (``{"type": "text", ...}``, ``image_url``, ``input_audio``, ``file``) as
    a part, and its losses (none: a part it does not know becomes an
    :class:`~partwire.parts.UnknownPart`, kept whole). ``dialect`` names the server that wrote it
    (``openai``, ``openrouter``...): its issuer is the part's provenance."""
    issuer = DIALECTS[dialect].issuer
    try:
        return _read(block, issuer), ()
    except Exception as exc:
        raise boundary_error(exc, API, "content part") from None


def part_to_wire(part: Part, *, dialect: str = "openai",
                 accept_issuers: Collection[str] | None = None) -> tuple[dict[str, Any] | None, tuple[Loss, ...]]:
    """The content part for ``part`` in a user message, or ``None`` when it cannot be sent, and
    what was lost. ``dialect`` names the target server; ``accept_issuers`` (default: the
    dialect's issuer) are the issuers whose provider data is sent."""
    chosen = DIALECTS[dialect]
    issuers = frozenset((chosen.issuer,) if accept_issuers is None else accept_issuers)
    losses = LossCollector(API)
    wire = PartEncoder(dialect=chosen, issuers=issuers, losses=losses,
                       resolve_file=None)._part(part, "history[0].parts[0]", "")
    return (None if wire is None else dict(wire)), tuple(losses.items)
