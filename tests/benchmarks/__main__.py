"""Run every ``bench_*.py`` module, print a table, write ``.bench/results.json``.

Each module exposes ``run() -> {name: {"value": ..., "unit": ..., "target"?: ...}}``; a result
with a target is a ratio against a peer measured in the same run, and passes when at or under it.
Exit status 1 when any target is missed.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from pathlib import Path

import tests.benchmarks as package


def main(argv: list[str]) -> int:
    """Run the benchmarks named in ``argv`` (module names without ``bench_``), or all of them."""
    wanted = set(argv)
    results: dict[str, dict[str, float | str]] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        short = info.name.removeprefix("bench_")
        if not info.name.startswith("bench_") or (wanted and short not in wanted):
            continue
        module = importlib.import_module(f"tests.benchmarks.{info.name}")
        print(f"running {info.name} ...", file=sys.stderr, flush=True)
        results.update(module.run())
    missed = 0
    print(f"{'benchmark':42} {'value':>10}  {'unit':22} {'target':>7}  verdict")
    for name, r in results.items():
        target = r.get("target")
        verdict = ""
        if isinstance(target, int | float):
            ok = float(r["value"]) <= target
            missed += not ok
            verdict = "ok" if ok else "MISSED"
        print(f"{name:42} {r['value']:>10}  {r['unit']!s:22} {target if target is not None else '':>7}  {verdict}")
    out = Path(".bench/results.json")
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {out}", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
