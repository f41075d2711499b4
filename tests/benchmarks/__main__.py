"""Run every ``bench_*.py`` module, print a table, write ``.bench/results.json``.

Each module exposes ``run() -> {name: {"value": ..., "unit": ..., "target"?: ...}}``; a result
with a target is a ratio against a peer measured in the same run, and passes when at or under it.
Exit status 1 when any target is missed.

Each module runs in an interpreter of its own (``python -m tests.benchmarks --child <module>
<file>``), so that its figures do not depend on which modules ran before it: a heap left
fragmented by earlier work slowed partwire's allocation-heavy calls more than their peers'
(``codec.load.1000`` 1.04x the plain model after a fresh start, 1.14x after unrelated Python
allocations, the same code: ``docs/codec.md``), and ``python -m tests.benchmarks codec`` measured
something other than the same module inside a whole run.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
import tempfile
from pathlib import Path

import tests.benchmarks as package


def _child(module_name: str, out: str) -> int:
    """Run one module here and write its results to ``out``."""
    module = importlib.import_module(f"tests.benchmarks.{module_name}")
    Path(out).write_text(json.dumps(module.run()))
    return 0


def _fresh(module_name: str) -> dict[str, dict[str, float | str]]:
    """One module's results, measured in a fresh interpreter."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "results.json")
        subprocess.run([sys.executable, "-m", "tests.benchmarks", "--child", module_name, out], check=True)
        results: dict[str, dict[str, float | str]] = json.loads(Path(out).read_text())
    return results


def main(argv: list[str]) -> int:
    """Run the benchmarks named in ``argv`` (module names without ``bench_``), or all of them."""
    wanted = set(argv)
    results: dict[str, dict[str, float | str]] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        short = info.name.removeprefix("bench_")
        if not info.name.startswith("bench_") or (wanted and short not in wanted):
            continue
        print(f"running {info.name} ...", file=sys.stderr, flush=True)
        results.update(_fresh(info.name))
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
    if sys.argv[1:2] == ["--child"]:
        raise SystemExit(_child(sys.argv[2], sys.argv[3]))
    raise SystemExit(main(sys.argv[1:]))
