"""Hugging Face ``datasets`` loads the TRL rows partwire writes to Parquet as the same rows."""

from __future__ import annotations

from pathlib import Path

import datasets
from partwire import arrow
from partwire import datasets as formats
from tests.datasets.corpus_histories import corpus_histories
from tests.datasets.test_formats import WEATHER, _history


def test_datasets_loads_the_trl_rows_of_every_corpus_history(tmp_path: Path) -> None:
    """Every corpus history's TRL row, written to Parquet in several row groups, loads with
    ``datasets.load_dataset("parquet")`` as exactly the row written."""
    rows = [formats.trl_row(_history(), tools=[WEATHER]).value]
    rows += [formats.trl_row(history).value for _, history in corpus_histories()]
    path = tmp_path / "trl.parquet"
    assert arrow.write_rows(rows, path, arrow.TRL_SCHEMA, row_group_rows=300) == len(rows)
    loaded = datasets.load_dataset("parquet", data_files=str(path), split="train")
    assert loaded.num_rows == len(rows)
    assert loaded.to_list() == rows
