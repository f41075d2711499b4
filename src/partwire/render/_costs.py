"""The costs a transcript shows: each assistant turn's, as stored or priced now, and the total."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from partwire.history import HistoryEvent
from partwire.messages import AssistantMessage
from partwire.pricing import PriceTable, message_cost, reprice

__all__ = ["show_costs"]


def show_costs(events: Sequence[HistoryEvent],
               table: PriceTable | None = None) -> tuple[list[HistoryEvent], list[str]]:
    """``events`` with a cost on every assistant message that had none, and the total line(s).

    A cost already stored is shown as stored; a missing one is computed now, with its version.
    """
    priced: list[HistoryEvent] = []
    total = Decimal(0)
    missing: list[str] = []
    used = False
    for event in events:
        if isinstance(event, AssistantMessage) and event.usage is not None:
            used = True
            if event.usage.cost is None:
                event = reprice([event], table=table)[0]
                assert isinstance(event, AssistantMessage)
            usage = event.usage
            if usage is not None and usage.cost is not None:
                total += usage.cost
            else:
                missing.append(message_cost(event, table=table).reason or "no price")
        priced.append(event)
    if not used:
        return priced, []
    lines = [f"total cost: ${total.normalize():f}"]
    if missing:
        lines.append(f"  ({len(missing)} message(s) without a cost: {'; '.join(sorted(set(missing)))})")
    return priced, lines
