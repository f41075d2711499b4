"""npm packages under node, for the tests that run them (tests/ui, tests/typescript): node and npm
present, and ``npm ci`` once per machine in a folder whose versions its package-lock.json pins."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

__all__ = ["npm_ci"]


def npm_ci(folder: Path, installed: str, needed_by: str) -> None:
    """``npm ci`` in ``folder`` unless ``node_modules/<installed>`` is there, guarded by a lock so
    parallel workers install only once; a clear failure when node or npm is missing."""
    import fcntl

    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail(f"{needed_by} need node and npm (.ci/run installs them: apt-get install nodejs npm)")
    with open(folder / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "node_modules" / installed / "package.json").is_file():
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=folder,
                           check=True, capture_output=True, timeout=600)
