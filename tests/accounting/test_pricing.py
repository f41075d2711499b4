"""Cost from genai-prices' bundled data and from a user table, with the version that produced it."""

from __future__ import annotations

import json
import sys
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from partwire import AssistantMessage, UserMessage
from partwire.pricing import (
    PriceTableError,
    context_window,
    cost_of,
    load_price_table,
    message_cost,
    reprice,
)
from partwire.usage import Usage

USAGE = Usage(input_tokens=1000, cache_read_tokens=500, output_tokens=100, reasoning_tokens=40)
WHEN = datetime(2026, 6, 1, tzinfo=UTC)


def test_cost_of_a_known_model_is_a_decimal_with_breakdown_and_version() -> None:
    """Sonnet 4.5 at $3/$15/$0.30 per MTok: the parts and the total are exact Decimals."""
    cost = cost_of(USAGE, "anthropic:claude-sonnet-4-5", at=WHEN)
    assert cost.breakdown is not None
    assert cost.breakdown.input == Decimal("0.0015")
    assert cost.breakdown.cache_read == Decimal("0.00015")
    assert cost.breakdown.output == Decimal("0.0009")
    assert cost.breakdown.reasoning == Decimal("0.0006")
    assert cost.usd == Decimal("0.00315")
    assert cost.version is not None
    assert cost.version.source == "genai-prices"
    assert cost.version.valid_at == date(2026, 6, 1)
    assert str(cost.version).startswith("genai-prices 0.")


def test_unknown_model_has_no_cost_and_a_reason() -> None:
    """A model the price data lacks gets usd=None and a reason naming it, never a guess."""
    cost = cost_of(USAGE, "anthropic:this-model-does-not-exist-12345")
    assert cost.usd is None
    assert cost.reason is not None
    assert "this-model-does-not-exist-12345" in cost.reason


def test_missing_usage_or_model_gives_a_reason() -> None:
    """No usage or no model: no cost, and the reason says which."""
    assert cost_of(None, "openai:gpt-4o").reason == "no usage recorded"
    assert cost_of(USAGE, None).reason == "no model recorded"


def _table(tmp_path: Path, suffix: str = ".toml") -> Path:
    path = tmp_path / f"prices{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps({"version": "acme-1", "models": {
            "anthropic:claude-sonnet-4-5": {"input_mtok": 1, "output_mtok": 2}}}))
    else:
        path.write_text('version = "acme-1"\n[models."anthropic:claude-sonnet-4-5"]\n'
                        "input_mtok = 1\noutput_mtok = 2\ncache_read_mtok = 0.5\n"
                        "context_window = 1234\n"
                        '[models."acme-private"]\ninput_mtok = 10\noutput_mtok = 20\n')
    return path


def test_user_table_overrides_and_adds_models(tmp_path: Path) -> None:
    """A TOML table replaces genai-prices for its models and prices models genai-prices lacks."""
    table = load_price_table(_table(tmp_path))
    cost = cost_of(USAGE, "anthropic:claude-sonnet-4-5", at=WHEN, table=table)
    assert cost.usd == Decimal("0.0005") + Decimal("0.00025") + Decimal("0.0002")
    assert str(cost.version) == "prices.toml acme-1 @ 2026-06-01"
    added = cost_of(Usage(input_tokens=1_000_000), "openai:acme-private", table=table)
    assert added.usd == Decimal(10)
    other = cost_of(USAGE, "openai:gpt-4o", at=WHEN, table=table)
    assert other.version is not None
    assert other.version.source == "genai-prices"


def test_json_table_without_cache_prices_bills_cache_as_input(tmp_path: Path) -> None:
    """A JSON table works too; cached tokens fall back to the input price."""
    table = load_price_table(_table(tmp_path, ".json"))
    cost = cost_of(USAGE, "anthropic:claude-sonnet-4-5", table=table)
    assert cost.breakdown is not None
    assert cost.breakdown.cache_read == Decimal("0.0005")


def test_bad_table_names_file_model_and_key(tmp_path: Path) -> None:
    """A price that is not a number is reported with the file, the model and the key."""
    path = tmp_path / "bad.toml"
    path.write_text('[models."m"]\ninput_mtok = "cheap"\noutput_mtok = 1\n')
    with pytest.raises(PriceTableError, match=r"bad.toml.*'m'.*input_mtok"):
        load_price_table(path)
    path.write_text('[models."m"]\ninput_mtok = 1\n')
    with pytest.raises(PriceTableError, match="output_mtok are required"):
        load_price_table(path)


def test_context_window_from_price_data_and_table(tmp_path: Path) -> None:
    """Context windows come from genai-prices, a user table can set them, unknown is None."""
    assert context_window("anthropic:claude-sonnet-4-5") == 200_000
    assert context_window("openai:gpt-4o") == 128_000
    assert context_window("anthropic:no-such-model-xyz") is None
    # Adapter names stand for their provider, as check_switch's targets say them.
    assert context_window("openai_responses:gpt-4o") == context_window("openai:gpt-4o")
    table = load_price_table(_table(tmp_path))
    assert context_window("anthropic:claude-sonnet-4-5", table=table) == 1234


def test_reprice_stores_cost_and_version_on_assistant_messages(tmp_path: Path) -> None:
    """Repricing sets usage.cost and pricing_version from the given table; other events pass."""
    user = UserMessage("hi")
    reply = AssistantMessage("hello", model="anthropic:claude-sonnet-4-5", usage=USAGE,
                             created_at=WHEN)
    table = load_price_table(_table(tmp_path))
    before = message_cost(reply)
    out = reprice([user, reply], table=table)
    assert out[0] == user
    priced = out[1]
    assert isinstance(priced, AssistantMessage)
    assert priced.usage is not None
    assert priced.usage.cost == Decimal("0.00095")
    assert priced.usage.pricing_version == "prices.toml acme-1 @ 2026-06-01"
    assert before.usd != priced.usage.cost
    again = reprice(out)[1]
    assert isinstance(again, AssistantMessage)
    assert again.usage is not None
    assert again.usage.cost == before.usd


def test_a_bare_model_name_is_priced_with_the_message_provider() -> None:
    """An assistant message with model 'gpt-4o' and provider 'openai' is priced as openai:gpt-4o."""
    bare = AssistantMessage("x", model="gpt-4o", provider="openai", usage=USAGE, created_at=WHEN)
    full = AssistantMessage("x", model="openai:gpt-4o", usage=USAGE, created_at=WHEN)
    assert message_cost(bare).usd == message_cost(full).usd
    assert message_cost(bare).model == "openai:gpt-4o"


def test_long_prompts_use_the_tiered_price() -> None:
    """Above 200k input tokens Sonnet 4.5 costs $6 per million input tokens, not $3."""
    short = cost_of(Usage(input_tokens=100_000), "anthropic:claude-sonnet-4-5", at=WHEN)
    long = cost_of(Usage(input_tokens=1_000_000), "anthropic:claude-sonnet-4-5", at=WHEN)
    assert short.usd == Decimal("0.3")
    assert long.usd == Decimal(6)


def test_without_the_pricing_extra_a_cost_says_how_to_get_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """When genai-prices cannot be imported, the cost is None and the reason names the extra."""
    monkeypatch.setitem(sys.modules, "genai_prices", None)
    cost = cost_of(USAGE, "anthropic:claude-sonnet-4-5")
    assert cost.usd is None
    assert cost.reason is not None
    assert "partwire[pricing]" in cost.reason
    assert context_window("anthropic:claude-sonnet-4-5") is None
