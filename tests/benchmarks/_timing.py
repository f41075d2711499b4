"""Timing helpers shared by the benchmark modules: best-of-N, interleaved, in one process."""

from __future__ import annotations

import contextlib
import gc
import logging
import subprocess
import sys
import time
from collections.abc import Callable, Iterator


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


def best_pair(ours: Callable[[], object], baseline: Callable[[], object], *,
               repeat: int = 1, rounds: int = 9, cpu: bool = False) -> tuple[float, float]:
    """Best per-call times of ``ours`` and ``baseline``, run alternately so load hits both alike.

    Each round times ``repeat`` calls of each, so short calls are not lost in timer noise.
    ``cpu``: this process's CPU time rather than wall time, for two pure-Python computations on a
    machine shared with other work (time spent waiting for a server or a disk is not counted).
    """
    clock = time.process_time if cpu else time.perf_counter
    best_ours = best_base = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(rounds):
            start = clock()
            for _ in range(repeat):
                ours()
            middle = clock()
            for _ in range(repeat):
                baseline()
            end = clock()
            best_ours = min(best_ours, (middle - start) / repeat)
            best_base = min(best_base, (end - middle) / repeat)
    finally:
        gc.enable()
    return best_ours, best_base


def ratio(ours: Callable[[], object], peer: Callable[[], object], *, repeat: int = 7,
          cpu: bool = False) -> tuple[float, float, float]:
    """(ours / peer, ours seconds, peer seconds), alternating the two so drift hits both alike;
    ``repeat`` rounds, in CPU time when ``cpu`` (see :func:`best_pair`)."""
    t_ours, t_peer = best_pair(ours, peer, rounds=repeat, cpu=cpu)
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


@contextlib.contextmanager
def quiet_losses() -> Iterator[None]:
    """Losses recorded as usual, their log records not written: a bench times the conversion,
    not the logging handler."""
    logger = logging.getLogger("partwire.projection")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)
