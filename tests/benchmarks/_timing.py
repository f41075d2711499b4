"""Timing helpers shared by the benchmark modules: best-of-N, interleaved, in one process."""

from __future__ import annotations

import gc
import subprocess
import sys
import time
from collections.abc import Callable


def best_time(fn: Callable[[], object], *, repeat: int = 7) -> float:
    """The fastest of ``repeat`` runs of ``fn``, in seconds, with the garbage collector off."""
    best = float("inf")
    enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(repeat):
            start = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - start)
            gc.collect()
    finally:
        if enabled:
            gc.enable()
    return best


def ratio(ours: Callable[[], object], peer: Callable[[], object], *, repeat: int = 7) -> tuple[float, float, float]:
    """(ours / peer, ours seconds, peer seconds), alternating the two so drift hits both alike."""
    t_ours = t_peer = float("inf")
    for _ in range(repeat):
        t_ours = min(t_ours, best_time(ours, repeat=1))
        t_peer = min(t_peer, best_time(peer, repeat=1))
    return t_ours / t_peer, t_ours, t_peer


def import_seconds(module: str, *, repeat: int = 15) -> float:
    """Fastest wall time of a fresh interpreter importing ``module``, less a bare interpreter's."""

    def run(code: str) -> float:
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-I", "-c", code], check=True)
            best = min(best, time.perf_counter() - start)
        return best

    bare = run("pass")
    return max(run(f"import {module}") - bare, 1e-9)
