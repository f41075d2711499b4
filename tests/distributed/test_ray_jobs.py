"""The dataset jobs on a local Ray runtime (2 CPUs) give, row for row, what the single-process
path gives over a generated dataset of more than 100,000 events."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import ray

from partwire import arrow
from partwire.arrow import jobs
from partwire.pricing import PriceTable, load_price_table
from tests.datasets.fleet import fleet

EVENTS = int(os.environ.get("PARTWIRE_JOBS_EVENTS", "100000"))
"""Events in the generated dataset (at least 100,000 in CI; fewer only to try a change)."""


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generated dataset, written to Parquet once."""
    path = tmp_path_factory.mktemp("fleet") / "fleet.parquet"
    assert arrow.write_parquet(fleet(EVENTS), path) >= EVENTS
    return path


@pytest.fixture(scope="module")
def prices(tmp_path_factory: pytest.TempPathFactory) -> PriceTable:
    """A user price table, so the re-pricing needs no price data of the day."""
    path = tmp_path_factory.mktemp("prices") / "prices.toml"
    path.write_text('version = "jobs-test"\n'
                    '[models."anthropic:claude-sonnet-4-6"]\ninput_mtok = 3\noutput_mtok = 15\ncache_read_mtok = 0.3\n'
                    '[models."openai:gpt-5"]\ninput_mtok = 1.25\noutput_mtok = 10\n'
                    '[models."google:gemini-2.5-flash"]\ninput_mtok = 0.3\noutput_mtok = 2.5\n')
    return load_price_table(path)


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """A local Ray runtime of 2 CPUs for the module."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def _sorted(table: pa.Table, keys: list[str]) -> pa.Table:
    return table.sort_by([(k, "ascending") for k in keys])


def _compare(name: str, local: pa.Table, distributed: pa.Table, keys: list[str], took: dict[str, float],
             events: int) -> None:
    assert distributed.num_rows == local.num_rows
    assert _sorted(distributed, keys).to_pylist() == _sorted(local, keys).to_pylist(), name
    print(f"{name}: {local.num_rows} rows from {events} events; single process {took['local']:.1f} s "
          f"({events / took['local']:,.0f} events/s), local Ray of 2 CPUs {took['ray']:.1f} s "
          f"({events / took['ray']:,.0f} events/s)")


def _timed(took: dict[str, float], key: str, run: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    result = run()
    took[key] = time.perf_counter() - start
    return result


def test_reprice_on_ray_equals_the_single_process_path(dataset: Path, prices: PriceTable, local_ray: None) -> None:
    """``map_batches(jobs.reprice)`` gives the rows ``jobs.reprice`` gives the whole table."""
    took: dict[str, float] = {}
    local = _timed(took, "local", lambda: jobs.reprice(pq.read_table(dataset), prices=prices))
    ds = ray.data.read_parquet(str(dataset))
    refs = _timed(took, "ray", lambda: ds.map_batches(
        jobs.reprice, batch_format="pyarrow", batch_size=4096, fn_kwargs={"prices": prices}).to_arrow_refs())
    distributed = pa.concat_tables(ray.get(refs))
    assert local.num_rows >= EVENTS
    costs = {row["cost"] for row in local.column("usage").to_pylist() if row}
    assert None not in costs  # every model of the dataset has a price in the table
    assert Decimal("0.0042") not in costs  # the generated cost was replaced
    _compare("reprice", local, distributed.cast(local.schema), ["session_id", "seq"], took, local.num_rows)


@pytest.mark.parametrize(("name", "job", "kwargs"), [
    ("to_requests", jobs.to_requests, {"target": "anthropic", "model": "anthropic:claude-sonnet-4-6",
                                       "settings": {"max_output_tokens": 1024}}),
    ("estimate_tokens", jobs.estimate_tokens, {"target": "openai_chat", "model": "openai:gpt-5"}),
    ("to_training", jobs.to_training, {"format": "trl"}),
])
def test_session_jobs_on_ray_equal_the_single_process_path(
    dataset: Path, local_ray: None, name: str, job: Callable[..., pa.Table], kwargs: dict[str, Any],
) -> None:
    """``groupby("session_id").map_groups(job)`` gives the rows ``job`` gives the whole table."""
    took: dict[str, float] = {}
    local = _timed(took, "local", lambda: job(pq.read_table(dataset), **kwargs))
    ds = ray.data.read_parquet(str(dataset))
    refs = _timed(took, "ray", lambda: ds.groupby("session_id").map_groups(
        job, batch_format="pyarrow", fn_kwargs=kwargs).to_arrow_refs())
    table = pa.concat_tables(ray.get(refs)).cast(local.schema)
    assert local.num_rows == len(set(pq.read_table(dataset, columns=["session_id"]).column(0).to_pylist()))
    _compare(name, local, table, ["session_id"], took, pq.ParquetFile(dataset).metadata.num_rows)
