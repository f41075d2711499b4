"""npm packages under node, for the tests that run them (tests/ui, tests/typescript): node and npm
present (installed from Debian when missing, ``tests.harness.debian``), and ``npm ci`` once per
machine in a folder whose versions its package-lock.json pins."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.harness.debian import apt_ensure

__all__ = ["npm_ci"]


def npm_ci(folder: Path, installed: str, needed_by: str) -> None:
    """``npm ci`` in ``folder`` unless ``node_modules/<installed>`` is there, guarded by a lock so
    parallel workers install only once; node and npm installed first when they are missing."""
    import fcntl

    apt_ensure(("nodejs", "npm"), lambda: shutil.which("node") is not None and shutil.which("npm") is not None,
               needed_by)
    with open(folder / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "node_modules" / installed / "package.json").is_file():
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=folder,
                           check=True, capture_output=True, timeout=600)
