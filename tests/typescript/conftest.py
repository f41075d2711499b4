"""The TypeScript package under node, as a fixture: ``npm ci`` on first use (json-schema-to-typescript
and typescript pinned in ``types/typescript/package-lock.json``), then ``tsc`` and the generator."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.harness.node import npm_ci

PACKAGE = Path(__file__).resolve().parents[2] / "types" / "typescript"
"""The committed package: ``index.d.ts``, its generator and its pinned tools."""

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="session")
def node() -> Run:
    """Run ``node ARGS...`` in the package's folder with its pinned modules installed."""
    npm_ci(PACKAGE, "typescript", "the TypeScript tests")

    def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["node", *map(str, args)], cwd=PACKAGE, check=False,
                              capture_output=True, text=True, timeout=600)

    return run
