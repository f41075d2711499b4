"""``partwire cost`` and ``partwire reprice`` (the cost lines of ``partwire show`` are :mod:`partwire.render`'s).

``cost FILE...`` prints usage and cost by model and by session (a file's ``task_metadata``
task id, else the file name), priced
now from genai-prices or ``--prices TABLE``. ``reprice IN OUT`` writes the history back with each
assistant message's cost and price version recomputed. Both read files the way every other
command does; errors become :class:`~partwire.errors.PartwireError` for ``partwire.cli`` to print.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from partwire.codec import dump, dumps, load
from partwire.errors import PartwireError
from partwire.history import HistoryEvent, TaskMetadataEvent
from partwire.messages import AssistantMessage
from partwire.pricing import Cost, PriceTable, load_price_table, message_cost, reprice

__all__ = ["add_cost_parsers", "parse_date"]


def add_cost_parsers(commands: Any) -> None:
    """Add ``cost`` and ``reprice`` to ``partwire``'s subcommands."""
    cost = commands.add_parser("cost", help="print usage and cost by model and by session")
    cost.add_argument("files", metavar="FILE", nargs="+", help="history files (JSONL); '-' reads stdin")
    cost.add_argument("--prices", metavar="TABLE", help="a TOML or JSON price table that overrides genai-prices")
    cost.set_defaults(run=_cost)
    again = commands.add_parser(
        "reprice", help="write a history back with every assistant message's cost recomputed")
    again.add_argument("src", metavar="IN", help="the history to read; '-' reads stdin")
    again.add_argument("dst", metavar="OUT", help="where to write it; '-' writes stdout")
    again.add_argument("--prices", metavar="TABLE", help="a TOML or JSON price table that overrides genai-prices")
    again.add_argument("--at", metavar="DATE", type=parse_date,
                       help="use the prices of this date (YYYY-MM-DD) instead of each message's own")
    again.set_defaults(run=_reprice)


def parse_date(text: str) -> datetime:
    """``--at``'s date, as UTC midnight."""
    try:
        return datetime.fromisoformat(text).replace(tzinfo=UTC)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {text!r}") from exc


def _table(args: argparse.Namespace) -> PriceTable | None:
    return load_price_table(args.prices) if args.prices else None


def _events(path: str) -> list[HistoryEvent]:
    if path == "-":
        return load(sys.stdin.buffer)
    if not Path(path).is_file():
        raise PartwireError(f"{path}: no such file")
    return load(path)


@dataclass
class _Row:
    calls: int = 0
    input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    usd: Decimal = Decimal(0)
    versions: set[str] = field(default_factory=set)
    unpriced: dict[str, int] = field(default_factory=dict)

    def add(self, message: AssistantMessage, cost: Cost) -> None:
        usage = message.usage
        self.calls += 1
        if usage is not None:
            self.input += usage.input_tokens
            self.cache_read += usage.cache_read_tokens
            self.cache_write += usage.cache_write_tokens
            self.output += usage.output_tokens
        if cost.usd is not None:
            self.usd += cost.usd
            self.versions.add(str(cost.version))
        else:
            reason = cost.reason or "no price"
            self.unpriced[reason] = self.unpriced.get(reason, 0) + 1


_HEAD = ("calls", "input", "cache read", "cache write", "output", "cost USD")


def _cost(args: argparse.Namespace) -> int:
    table = _table(args)
    by_model: dict[str, _Row] = {}
    by_session: dict[str, _Row] = {}
    total = _Row()
    unmeasured: list[str] = []
    for path in args.files:
        events = _events(path)
        replies = [e for e in events if isinstance(e, AssistantMessage)]
        if not any(reply.usage is not None for reply in replies):
            unmeasured.append(_offer(path, replies))
        ids = [e.task_id for e in events if isinstance(e, TaskMetadataEvent) and e.task_id]
        session = by_session.setdefault(ids[0] if ids else "<stdin>" if path == "-" else path, _Row())
        for event in events:
            if not isinstance(event, AssistantMessage):
                continue
            cost = message_cost(event, table=table)
            for row in (by_model.setdefault(event.model or "(no model)", _Row()), session, total):
                row.add(event, cost)
    _print_table("model", by_model, total, with_version=True)
    print()
    _print_table("session", by_session, total, with_version=False)
    reasons = [(name, reason, n) for name, row in by_model.items() for reason, n in row.unpriced.items()]
    if reasons:
        print()
        for name, reason, n in reasons:
            print(f"no cost for {name} ({n} call{'s' if n != 1 else ''}): {reason}")
    if unmeasured:
        print()
        for line in unmeasured:
            print(line)
    args.exit_status = 0
    return 0


def _offer(path: str, replies: list[AssistantMessage]) -> str:
    """The line for a file with no recorded usage: it says so and offers the estimate."""
    from partwire.cli._estimate import estimate_command

    last = replies[-1] if replies else None
    target = (last.api or "").replace("_", "-") if last is not None and last.api else "API"
    model = last.model.split(":", 1)[-1] if last is not None and last.model else None
    name = "<stdin>" if path == "-" else path
    what = "no assistant message" if not replies else "no assistant message with usage"
    return (f"{name}: no recorded usage ({what}: the provider's counts were not kept), so no "
            f"cost; estimate its next request with: {estimate_command(path, target, model)}")


def _print_table(label: str, rows: dict[str, _Row], total: _Row, *, with_version: bool) -> None:
    head = (label, *_HEAD, *(("price version",) if with_version else ()))
    body = [_cells(name, row, with_version) for name, row in sorted(rows.items())]
    body.append(_cells("total", total, False) + (("",) if with_version else ()))
    widths = [max(len(r[i]) for r in (head, *body)) for i in range(len(head))]
    for line in (head, *body):
        cells = [c.ljust(w) if i in (0, len(head) - 1) and (i == 0 or with_version) else c.rjust(w)
                 for i, (c, w) in enumerate(zip(line, widths, strict=True))]
        print("  ".join(cells).rstrip())


def _cells(name: str, row: _Row, with_version: bool) -> tuple[str, ...]:
    usd = f"{row.usd:.6f}" if row.calls > sum(row.unpriced.values()) else "-"
    cells: tuple[str, ...] = (name, f"{row.calls:,}", f"{row.input:,}", f"{row.cache_read:,}",
             f"{row.cache_write:,}", f"{row.output:,}", usd)
    if with_version:
        cells += (", ".join(sorted(row.versions)) or "-",)
    return cells


def _reprice(args: argparse.Namespace) -> int:
    events = reprice(_events(args.src), table=_table(args), at=args.at)
    if args.dst == "-":
        sys.stdout.buffer.write(dumps(events))
    else:
        dump(events, args.dst)
    return 0
