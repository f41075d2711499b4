"""Histories as Arrow tables and Parquet (``partwire.arrow``, docs/datasets.md).

- ``arrow.from_history.N``: a history of N events to a table, against ``pyarrow.Table.from_pylist``
  of the same events as plain dicts (their JSON form, made beforehand): target 1.0;
- ``arrow.from_history_all_fields.N``: the same, against ``from_pylist`` given a schema that holds
  every field of every event class. Without one, ``from_pylist`` keeps only the first row's keys (a
  system message's nine), so it leaves out usage, models, tool calls' and tool results' fields,
  which partwire's table holds. Reported for information, without a target;
- ``arrow.to_history.N``: the table back to events, against ``codec.loads`` of the same events'
  JSONL: target 1.0;
- ``arrow.parquet_size_ratio``: the zstd Parquet file's size over the JSONL's: target 0.35;
- ``arrow.export.peak_mib``: peak resident memory of a process exporting 1,000,000 generated events
  to Parquet with ``arrow.write_parquet``: target 1024 (MiB).

``python -m tests.benchmarks arrow`` runs it; ``PARTWIRE_BENCH_EXPORT_EVENTS`` sets the export's
size (to try a change on fewer events).
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pyarrow as pa

from partwire import arrow
from partwire.codec import dumps, loads
from partwire.history import HistoryEvent
from tests.benchmarks._runner import Figure, Timed
from tests.datasets.fleet import fleet

TARGETS = {"from_history": 1.0, "to_history": 1.0, "size": 0.35, "peak_mib": 1024.0}
SIZES = (10_000, 100_000)
EXPORT_EVENTS = int(os.environ.get("PARTWIRE_BENCH_EXPORT_EVENTS", "1000000"))

# The export, in a process of its own so that its peak memory is its own.
# Its peak is VmHWM, the high-water mark of this process image: ru_maxrss would carry over the
# resident size of the benchmark process it was forked from (Linux keeps it across exec).
_EXPORT = """
import re, resource, sys
from pathlib import Path
from partwire import arrow
from tests.datasets.fleet import fleet
count = arrow.write_parquet(fleet(int(sys.argv[1])), sys.argv[2])
status = Path("/proc/self/status")
found = re.search(r"VmHWM:\\s+(\\d+) kB", status.read_text()) if status.exists() else None
peak_kib = int(found.group(1)) if found else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(count, peak_kib)
"""


def _events(n: int) -> list[HistoryEvent]:
    events: list[HistoryEvent] = []
    for _, session in fleet(n):
        events.extend(session)
    return events[:n]


def _from_history(n: int) -> Timed:
    events = _events(n)
    dicts = [event.model_dump(mode="json") for event in events]
    return Timed(lambda: arrow.from_history(events), lambda: pa.Table.from_pylist(dicts),
                 detail={"events": n})


def _from_history_all_fields(n: int) -> Timed:
    events = _events(n)
    dicts = [event.model_dump(mode="json") for event in events]
    # One dict of each event class, each read as its own table: their schemas unified hold every
    # field the history has.
    shapes = {(row["type"], row.get("role")): row for row in dicts}
    schema = pa.unify_schemas([pa.Table.from_pylist([row]).schema for row in shapes.values()],
                              promote_options="permissive")
    return Timed(lambda: arrow.from_history(events), lambda: pa.Table.from_pylist(dicts, schema=schema),
                 detail={"events": n, "fields": len(schema)})


def _to_history(n: int) -> Timed:
    events = _events(n)
    table = arrow.from_history(events)
    jsonl = dumps(events)
    return Timed(lambda: arrow.to_history(table), lambda: loads(jsonl), detail={"events": n})


def _size() -> float:
    events = _events(SIZES[-1])
    with tempfile.TemporaryDirectory(prefix="partwire-bench-arrow-") as name:
        path = Path(name) / "h.parquet"
        arrow.write_parquet([("s", events)], path)
        parquet = path.stat().st_size
    return parquet / len(dumps(events))


def _export_peak() -> tuple[float, dict[str, str]]:
    with tempfile.TemporaryDirectory(prefix="partwire-bench-export-") as name:
        out = subprocess.run([sys.executable, "-c", _EXPORT, str(EXPORT_EVENTS), str(Path(name) / "x.parquet")],
                             capture_output=True, text=True, check=True,
                             cwd=Path(__file__).resolve().parents[2])
    count, peak_kib = (int(v) for v in out.stdout.split())
    return peak_kib / 1024, {"unit": f"MiB, {count:,} events"}


FIGURES = [
    # The export first, while this process is still small; its peak does not move between runs.
    Figure("arrow.export.peak_mib", "MiB", "1 GiB", TARGETS["peak_mib"], read=_export_peak,
           digits=1, runs=1),
    *[figure for n in SIZES for figure in (
        Figure(f"arrow.from_history.{n}", "x", "Table.from_pylist", TARGETS["from_history"],
               timed=functools.partial(_from_history, n)),
        Figure(f"arrow.from_history_all_fields.{n}", "x", "Table.from_pylist, every field",
               timed=functools.partial(_from_history_all_fields, n)),
        Figure(f"arrow.to_history.{n}", "x", "codec.loads", TARGETS["to_history"],
               timed=functools.partial(_to_history, n)))],
    Figure("arrow.parquet_size_ratio", "x JSONL bytes", "JSONL", TARGETS["size"], read=_size,
           runs=1),
]
