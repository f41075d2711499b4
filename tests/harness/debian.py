"""Debian packages some tests need beside Python: Chromium for the HTML page (tests/browser), node
and npm for the official JavaScript packages (tests/ui, tests/typescript).

When one is missing and the tests run as root where apt-get exists (CI, or a fresh Debian
machine running the README's test command), it is installed with apt-get, once, under a file
lock (the xdist workers would otherwise race for apt's own lock). Otherwise the test fails and
says how to install it. These tests never skip: what nobody ran is not tested.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable

import pytest

__all__ = ["apt_ensure"]


def apt_ensure(packages: tuple[str, ...], present: Callable[[], bool], needed_by: str) -> None:
    """Make ``present()`` true by installing ``packages`` with apt-get when it is false and this
    process may; else fail the test, naming ``needed_by`` and the command that installs them."""
    if present():
        return
    how = f"apt-get install -y {' '.join(packages)} (as root; run apt-get update first)"
    if hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        import fcntl

        with open(os.path.join(tempfile.gettempdir(), "partwire-apt-install.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one worker installs; the others wait, then find it
            try:
                if not present():
                    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
                    for command in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", *packages]):
                        subprocess.run(command, check=True, env=env, capture_output=True, timeout=1200)
            except (subprocess.SubprocessError, OSError) as exc:
                pytest.fail(f"{needed_by} need {', '.join(packages)}, and installing them failed ({exc}): {how}")
    if not present():
        pytest.fail(f"{needed_by} need {', '.join(packages)}, which this machine does not have: {how}")
