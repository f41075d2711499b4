"""One loss of a projection: what could not be sent as it is (``partwire.projection.Loss``).

Below :mod:`partwire.errors` (whose ``LossError`` carries losses) and :mod:`partwire.projection`
(which exports it), so neither imports the other's module to name it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Loss", "LossAction"]

LossAction = Literal["dropped", "downgraded", "rewritten", "id_mapped", "attached"]
"""What happened to something that could not be sent as it is."""


@dataclass(frozen=True, slots=True)
class Loss:
    """One thing a projection did not send as it is."""

    path: str
    """Where it is in the history: ``history[3]``, ``history[3].parts[1]``."""
    part_type: str
    """The part type (``thinking``, ``image``) or, for a whole message, ``<role>_message``."""
    action: LossAction
    """Dropped, downgraded (sent as something poorer), rewritten, id_mapped or attached."""
    reason: str
    """Why, in words a user can act on."""
    adapter: str
    """The adapter that made the projection (``anthropic``)."""
    message_id: str | None = None
    """Id of the message it belongs to, when it belongs to one."""

    def __str__(self) -> str:
        return f"{self.adapter}: {self.path} ({self.part_type}) {self.action}: {self.reason}"
