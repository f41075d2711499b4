"""Cost of model calls, with the price version that produced it (docs/accounting.md).

Prices come from ``genai-prices`` (the ``partwire[pricing]`` extra): Pydantic's maintained,
versioned table of LLM prices, bundled in the wheel and read offline, with historic prices
selected by the date of the call. A user table (TOML or JSON) overrides or adds models. An unknown
model gets no cost and a reason, never a guess. Cost is computed on demand; :func:`reprice`
stores it, with its version, on every assistant message of a history.

A user table::

    version = "acme-2026-11"            # optional; names the table in the price version
    [models."anthropic:claude-sonnet-4-5"]
    input_mtok = 3                      # USD per million tokens
    output_mtok = 15
    cache_read_mtok = 0.3
    cache_write_mtok = 3.75
    context_window = 200000             # optional
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from partwire._memo import derived
from partwire.errors import PartwireError
from partwire.usage import Usage

if TYPE_CHECKING:
    from partwire.history import HistoryEvent
    from partwire.messages import AssistantMessage

__all__ = [
    "Cost",
    "CostBreakdown",
    "PriceTable",
    "PriceTableError",
    "PriceVersion",
    "context_window",
    "cost_of",
    "load_price_table",
    "message_cost",
    "pricer",
    "reprice",
]

_SOURCE = "genai-prices"
_PRICE_KEYS = ("input_mtok", "output_mtok", "cache_read_mtok", "cache_write_mtok")
_MILLION = Decimal(1_000_000)
# partwire's provider and adapter names -> genai-prices provider ids, where they differ.
_PROVIDERS = {"gemini": "google", "google-vertex": "google", "vertex": "google", "xai": "x-ai",
              "bedrock": "aws", "azure-openai": "azure", "openai_chat": "openai",
              "openai-chat": "openai", "openai_responses": "openai", "openai-responses": "openai"}


class PriceTableError(PartwireError, ValueError):
    """A user price table that cannot be read: names the file and the entry."""


@dataclass(frozen=True, slots=True)
class PriceVersion:
    """Which prices produced a cost: the data source, its version, and the date they applied to."""

    source: str
    """``genai-prices`` or the name of a user table."""
    version: str
    """The source's version (the installed genai-prices release, or the table's ``version``)."""
    valid_at: date
    """The date whose prices were used (the call's date: prices change over time)."""

    def __str__(self) -> str:
        return f"{self.source} {self.version} @ {self.valid_at.isoformat()}"


@dataclass(frozen=True, slots=True)
class CostBreakdown:
    """USD by kind of token; the parts add up to the total."""

    input: Decimal = Decimal(0)
    """Uncached input tokens."""
    cache_read: Decimal = Decimal(0)
    """Input tokens read from the prompt cache."""
    cache_write: Decimal = Decimal(0)
    """Input tokens written to the prompt cache."""
    output: Decimal = Decimal(0)
    """Output tokens other than reasoning."""
    reasoning: Decimal = Decimal(0)
    """Reasoning tokens (billed as output)."""

    @property
    def total(self) -> Decimal:
        """The sum of the parts."""
        return self.input + self.cache_read + self.cache_write + self.output + self.reasoning


@dataclass(frozen=True, slots=True)
class Cost:
    """The cost of one usage record, or why there is none."""

    model: str
    """The model id the price was looked up for."""
    usd: Decimal | None
    """Total in US dollars; None when the model has no known price."""
    breakdown: CostBreakdown | None = None
    """The total by kind of token."""
    version: PriceVersion | None = None
    """The prices that produced it."""
    reason: str | None = None
    """Why there is no cost (unknown model, no usage, pricing extra not installed)."""


@dataclass(frozen=True, slots=True)
class _Prices:
    input_mtok: Decimal
    output_mtok: Decimal
    cache_read_mtok: Decimal | None = None
    cache_write_mtok: Decimal | None = None
    context_window: int | None = None


@dataclass(frozen=True, slots=True)
class PriceTable:
    """A user's own prices, by model id (``provider:model`` or a bare model name)."""

    name: str
    """Where the table came from (its file name)."""
    version: str
    """The table's ``version`` entry, or ``"user"``."""
    models: Mapping[str, _Prices] = field(default_factory=dict)
    """Prices by lower-cased model id."""

    def lookup(self, model: str) -> _Prices | None:
        """The prices for ``model``, tried as given and without its provider prefix."""
        key = model.lower()
        return self.models.get(key) or self.models.get(key.split(":", 1)[-1])


def load_price_table(path: str | os.PathLike[str]) -> PriceTable:
    """Read a TOML or JSON price table; raises :class:`PriceTableError` naming what is wrong."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
        if file.suffix.lower() == ".json":
            raw = json.loads(text)
        else:
            import tomllib

            raw = tomllib.loads(text)
    except (OSError, ValueError) as exc:
        raise PriceTableError(f"price table {file}: {exc}") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("models"), dict):
        raise PriceTableError(f"price table {file}: needs a 'models' table of model -> prices")
    models: dict[str, _Prices] = {}
    for name, entry in raw["models"].items():
        models[str(name).lower()] = _parse_prices(file, str(name), entry)
    return PriceTable(name=file.name, version=str(raw.get("version", "user")), models=models)


def _parse_prices(file: Path, name: str, entry: Any) -> _Prices:
    where = f"price table {file}, model {name!r}"
    if not isinstance(entry, dict):
        raise PriceTableError(f"{where}: expected a table of prices, got {type(entry).__name__}")
    unknown = set(entry) - {*_PRICE_KEYS, "context_window"}
    if unknown:
        raise PriceTableError(f"{where}: unknown keys {sorted(unknown)}; expected {list(_PRICE_KEYS)}")
    values: dict[str, Decimal | None] = {}
    for key in _PRICE_KEYS:
        value = entry.get(key)
        if value is None:
            values[key] = None
            continue
        try:
            values[key] = Decimal(str(value))
        except InvalidOperation as exc:
            raise PriceTableError(f"{where}: {key} = {value!r} is not a number") from exc
    input_mtok, output_mtok = values["input_mtok"], values["output_mtok"]
    if input_mtok is None or output_mtok is None:
        raise PriceTableError(f"{where}: input_mtok and output_mtok are required")
    window = entry.get("context_window")
    if window is not None and not isinstance(window, int):
        raise PriceTableError(f"{where}: context_window must be an integer")
    return _Prices(input_mtok, output_mtok, values["cache_read_mtok"], values["cache_write_mtok"],
                   window)


# --- genai-prices ----------------------------------------------------------------------------------


def _split_model(model: str) -> tuple[str | None, str]:
    provider, sep, name = model.partition(":")
    if not sep:
        return None, model
    return _PROVIDERS.get(provider.lower(), provider.lower()), name


def _find(model: str) -> tuple[Any, Any] | str:
    """genai-prices' (provider, model info) for ``model``, or the reason it has none."""
    try:
        from genai_prices import data_snapshot  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return "no price data: install partwire[pricing] (genai-prices) or pass a price table"
    provider, name = _split_model(model)
    snapshot = data_snapshot.get_snapshot()
    try:
        found: tuple[Any, Any] = snapshot.find_provider_model(name, None, provider, None)
    except LookupError:
        where = f" of provider {provider!r}" if provider else ""
        return f"model {name!r}{where} is not in {_SOURCE} {_genai_version()}"
    return found


@derived
@functools.cache
def _genai_version() -> str:
    # Read once: the installed package's metadata costs 3 ms a read, once per message priced.
    try:
        return metadata.version("genai-prices")
    except metadata.PackageNotFoundError:
        return "unknown"


def context_window(model: str, *, table: PriceTable | None = None) -> int | None:
    """The input-token limit of ``model`` from the user table or genai-prices; None if unknown."""
    if table is not None:
        prices = table.lookup(model)
        if prices is not None and prices.context_window is not None:
            return prices.context_window
    found = _find(model)
    if isinstance(found, str):
        return None
    window = found[1].context_window
    return int(window) if window else None


# --- cost --------------------------------------------------------------------------------------------


def cost_of(usage: Usage | None, model: str | None, *, at: datetime | None = None,
            table: PriceTable | None = None) -> Cost:
    """The cost of ``usage`` on ``model`` with the prices valid at ``at`` (default: now).

    The user ``table`` wins over genai-prices for the models it lists. Never raises for an unknown
    model: the :class:`Cost` then has ``usd=None`` and a ``reason``.
    """
    if usage is None:
        return Cost(model or "", None, reason="no usage recorded")
    return pricer(model, at=at, table=table)(usage)


def pricer(model: str | None, *, at: datetime | None = None,
           table: PriceTable | None = None) -> Callable[[Usage], Cost]:
    """:func:`cost_of` for one model and date, its prices looked up once: for pricing many usage
    records of one model (the session store prices every assistant message it stores)."""
    model_id = model or ""
    when = (at or datetime.now(UTC)).astimezone(UTC)
    if not model:
        return lambda usage: Cost(model_id, None, reason="no model recorded")
    if table is not None:
        prices = table.lookup(model)
        if prices is not None:
            version = PriceVersion(table.name, table.version, when.date())

            def from_table(usage: Usage) -> Cost:
                breakdown = _breakdown(usage, lambda key, count: _flat(prices, key, count))
                return Cost(model_id, breakdown.total, breakdown, version)

            return from_table
    found = _find(model)
    if isinstance(found, str):
        reason = found
        return lambda usage: Cost(model_id, None, reason=reason)
    from genai_prices.types import calc_unit_price  # type: ignore[import-not-found,unused-ignore]

    model_price = found[1].get_prices(when)
    version = PriceVersion(_SOURCE, _genai_version(), when.date())

    def from_genai(usage: Usage) -> Cost:
        def price(key: str, count: int) -> Decimal:
            value = getattr(model_price, key, None)
            if value is None and key in ("cache_read_mtok", "cache_write_mtok"):
                value = getattr(model_price, "input_mtok", None)
            if value is None or not count:
                return Decimal(0)
            result: Decimal = calc_unit_price(value, count, usage.input_tokens, 1_000_000)
            return result

        breakdown = _breakdown(usage, price)
        return Cost(model_id, breakdown.total, breakdown, version)

    return from_genai


def _flat(prices: _Prices, key: str, count: int) -> Decimal:
    value: Decimal | None = getattr(prices, key)
    if value is None:
        value = prices.input_mtok  # a table without cache prices bills cached tokens as input
    return value * count / _MILLION


def _breakdown(usage: Usage, price: Any) -> CostBreakdown:
    uncached = max(0, usage.input_tokens - usage.cache_read_tokens - usage.cache_write_tokens)
    reasoning = min(usage.reasoning_tokens, usage.output_tokens)
    return CostBreakdown(
        input=price("input_mtok", uncached),
        cache_read=price("cache_read_mtok", usage.cache_read_tokens),
        cache_write=price("cache_write_mtok", usage.cache_write_tokens),
        output=price("output_mtok", usage.output_tokens - reasoning),
        reasoning=price("output_mtok", reasoning),
    )


def message_cost(message: AssistantMessage, *, table: PriceTable | None = None) -> Cost:
    """The cost of one assistant message's usage, with the prices of the day it was created."""
    model = message.model
    if model and ":" not in model and message.provider:
        model = f"{message.provider}:{model}"  # a bare model name with the provider beside it
    return cost_of(message.usage, model, at=message.created_at, table=table)


def reprice(history: Iterable[HistoryEvent], *, table: PriceTable | None = None,
            at: datetime | None = None) -> list[HistoryEvent]:
    """The history with each assistant message's ``usage.cost`` and ``pricing_version`` recomputed.

    Prices are those of each message's own date unless ``at`` is given. A message whose model has
    no price gets ``cost=None`` and ``pricing_version=None`` (its old cost is not kept: a stale
    number beside a new version would be a guess).
    """
    from partwire._base import replace
    from partwire.messages import AssistantMessage

    out: list[HistoryEvent] = []
    for event in history:
        if isinstance(event, AssistantMessage) and event.usage is not None:
            dated = event if at is None else replace(event, created_at=at)
            priced = message_cost(dated, table=table)
            usage = replace(event.usage, cost=priced.usd,
                            pricing_version=str(priced.version) if priced.version else None)
            event = replace(event, usage=usage)
        out.append(event)
    return out
