"""Run the bench modules, print the table, write ``.bench/results.json``.

``python -m tests.benchmarks [--merge] [module ...]``: the modules named (without ``bench_``), or
all of them. Each module declares ``FIGURES`` (see :mod:`tests.benchmarks._runner`); every figure
is measured three times and judged on its median. ``--merge`` adds the figures measured to those
already in the results file instead of replacing it (one module re-run after a change). Exit
status 1 when the median of any figure misses its target.
"""

from __future__ import annotations

import datetime
import importlib
import json
import os
import pkgutil
import platform
import sys
from pathlib import Path
from typing import Any

import tests.benchmarks as package
from tests.benchmarks._runner import RUNS, measure_module
from tests.harness.corpus import sources

RESULTS = Path(".bench/results.json")


def modules() -> list[str]:
    """Every bench module's short name (``anthropic`` for ``bench_anthropic``), sorted."""
    return sorted(info.name.removeprefix("bench_") for info in pkgutil.iter_modules(package.__path__)
                  if info.name.startswith("bench_"))


def table(figures: dict[str, dict[str, Any]]) -> str:
    """The printed table: median, spread of the three runs, target and verdict per figure."""
    lines = [f"{'figure':46} {'median':>10} {'spread':>7}  {'unit':24} {'target':>7}  verdict"]
    for name, row in figures.items():
        spread = f"{row['spread']:.0%}" if "spread" in row else ""
        target = row.get("target", "")
        verdict = "" if "held" not in row else "ok" if row["held"] else "MISSED"
        lines.append(f"{name:46} {row['value']!s:>10} {spread:>7}  {row['unit']!s:24} "
                     f"{target!s:>7}  {verdict}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Run the modules named in ``argv`` (or all), print the table, write the results file."""
    merge = "--merge" in argv
    wanted = [a for a in argv if a != "--merge"]
    unknown = set(wanted) - set(modules())
    if unknown:
        raise SystemExit(f"no bench module {', '.join(sorted(unknown))}; there are {', '.join(modules())}")
    figures: dict[str, dict[str, Any]] = {}
    ran: list[str] = []
    load: dict[str, list[float]] = {}
    for short in modules():
        if wanted and short not in wanted:
            continue
        module = importlib.import_module(f"tests.benchmarks.bench_{short}")
        print(f"running bench_{short} ({RUNS} runs) ...", file=sys.stderr, flush=True)
        before = os.getloadavg()[0]
        rows = measure_module(module.FIGURES, log=lambda line: print(line, file=sys.stderr, flush=True))
        figures.update({name: {**row, "module": short} for name, row in rows.items()})
        # The machine's load average when the module started and ended: what else ran beside it.
        load[short] = [round(before, 1), round(os.getloadavg()[0], 1)]
        ran.append(short)
    # The variables that narrow what a module measures (PARTWIRE_GROWTH_N, ...), for the page.
    settings = {k: v for k, v in os.environ.items() if k.startswith("PARTWIRE_")}
    print(table(figures))
    meta: dict[str, Any] = {"runs": RUNS, "python": platform.python_version(),
                            "machine": platform.machine(),
                            "date": datetime.date.today().isoformat(), "modules": ran,
                            "cores": os.cpu_count(), "load": load,
                            "env": {short: settings for short in ran if settings},
                            "corpus": sources()}
    if merge and RESULTS.exists():
        old = json.loads(RESULTS.read_text())
        figures = {**old["figures"], **figures}
        meta["modules"] = sorted({*old["meta"]["modules"], *ran})
        meta["load"] = {**old["meta"].get("load", {}), **load}
        meta["env"] = {**old["meta"].get("env", {}), **meta["env"]}
        if old["meta"].get("corpus", meta["corpus"]) != meta["corpus"]:
            print("warning: the merged results read another corpus than these", file=sys.stderr)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps({"meta": meta, "figures": figures}, indent=2) + "\n")
    print(f"wrote {RESULTS}", file=sys.stderr)
    return 1 if any(row.get("held") is False for row in figures.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
