"""Costs in the store: priced on write as ``partwire cost`` prices them, repriced in place, and the
same in ``store ls``, ``store stats`` and ``partwire cost``."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from partwire import AssistantMessage, HistoryEvent
from partwire.cli import main
from partwire.codec import dumps
from partwire.pricing import load_price_table, message_cost, reprice
from partwire.store import Store
from tests.benchmarks.agent_history import agent_history
from tests.store._events import assistant, turn_history


def _table(tmp_path: Path) -> Path:
    path = tmp_path / "prices.toml"
    path.write_text('version = "acme-1"\n[models."anthropic:claude-sonnet-4-6"]\n'
                    "input_mtok = 1\noutput_mtok = 2\n")
    return path


def _total(events: list[HistoryEvent]) -> Decimal:
    return sum((e.usage.cost for e in events
                if isinstance(e, AssistantMessage) and e.usage is not None and e.usage.cost is not None),
               Decimal(0))


def test_messages_without_a_cost_are_priced_on_write(store: Store) -> None:
    """A message stored without a cost gets message_cost's, with its price version; one with a
    cost keeps it; the line is stored as it came."""
    events = agent_history(40)
    store.append("s", events)
    priced = reprice(events)
    assert store.session("s").cost == _total(priced)
    assert store.session("s").uncosted == 0
    assert [u.cost for u in store.usage("s")] == [_total(priced)]
    assert store.export_bytes("s") == dumps(events)
    store.append("t", [assistant("A", "hi", cost="0.5")])
    assert store.session("t").cost == Decimal("0.5")


def test_reprice_updates_stored_rows_in_place(store: Store, tmp_path: Path) -> None:
    """reprice with a price table recomputes every message's cost, the session totals and a fork's
    lineage totals follow, and the lines do not change."""
    events = turn_history()
    store.append("s", events)
    store.fork("s", "E02", "f")
    table = load_price_table(_table(tmp_path))
    assert store.reprice(table=table) == 2
    expected = reprice(events, table=table)
    costs = [e.usage.cost for e in expected if isinstance(e, AssistantMessage) and e.usage is not None]
    assert costs[0] == Decimal("0.00012")  # 100 in at $1/M, 10 out at $2/M
    assert costs[1] is not None  # openai:gpt-5 is not in the table: genai-prices prices it
    summary = store.session("s")
    assert (summary.cost, summary.uncosted) == (_total(expected), sum(c is None for c in costs))
    assert store.session("f").cost == costs[0]
    assert store.export_bytes("s") == dumps(events)
    assert {u.model: u.cost for u in store.usage("s")}["anthropic:claude-sonnet-4-6"] == costs[0]


def test_reprice_one_session_at_a_date(store: Store) -> None:
    """reprice of one session at a date leaves the other sessions' costs as they were."""
    store.append("s", [assistant("A", "hi", cost="9")])
    store.append("t", [assistant("B", "hi", cost="9")])
    when = assistant("A", "hi").created_at.replace(year=2025)
    assert store.reprice("s", at=when) == 1
    expected = message_cost(assistant("A", "hi").model_copy(update={"created_at": when}))
    assert expected.usd is not None
    assert store.session("s").cost == expected.usd
    assert store.session("t").cost == Decimal("9")


def _money(text: str) -> set[str]:
    return set(re.findall(r"\$?(\d+\.\d{4,})", text))


def test_ls_stats_and_cost_agree(store_url: str, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """For a history stored without costs, ``store ls``, ``store stats`` and ``partwire cost``
    print the same total, and ``store show`` prints each message's cost."""
    history = tmp_path / "h.jsonl"
    history.write_bytes(dumps(agent_history(30)))
    assert main(["store", "--db", store_url, "import", str(history)]) == 0
    capsysbinary.readouterr()
    outputs = {}
    for name, args in {"ls": ["store", "--db", store_url, "ls"],
                       "stats": ["store", "--db", store_url, "stats"],
                       "cost": ["cost", str(history)],
                       "show": ["store", "--db", store_url, "show", "h"]}.items():
        assert main(args) == 0
        outputs[name] = capsysbinary.readouterr().out.decode()
    total = f"{_total(reprice(agent_history(30))):f}"
    assert total in _money(outputs["ls"])
    assert total in _money(outputs["stats"])
    assert total in _money(outputs["cost"])
    assert "unpriced" not in outputs["ls"] + outputs["stats"]
    assert outputs["show"].count("cost $") >= 10
