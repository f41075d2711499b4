"""The TypeScript package under node, as a fixture: ``npm ci`` on first use (json-schema-to-typescript
and typescript pinned in ``types/typescript/package-lock.json``), then ``tsc`` and the generator."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "types" / "typescript"
"""The committed package: ``index.d.ts``, its generator and its pinned tools."""

Run = Callable[..., subprocess.CompletedProcess[str]]


def _install() -> None:
    """``npm ci`` once per machine, guarded by a lock so parallel workers install only once."""
    import fcntl

    with open(PACKAGE / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (PACKAGE / "node_modules" / "typescript" / "package.json").is_file():
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=PACKAGE,
                           check=True, capture_output=True, timeout=600)


@pytest.fixture(scope="session")
def node() -> Run:
    """Run ``node ARGS...`` in the package's folder with its pinned modules installed."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("the TypeScript tests need node and npm (.ci/run installs them: apt-get install nodejs npm)")
    _install()

    def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["node", *map(str, args)], cwd=PACKAGE, check=False,
                              capture_output=True, text=True, timeout=600)

    return run
