"""The official JavaScript packages under node, as a fixture: ``npm ci`` on first use (the
versions pinned in ``tests/ui/js/package-lock.json``), then one node process per batch."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.harness.node import npm_ci

JS = Path(__file__).resolve().parent / "js"
"""The folder of the pinned npm packages and the script that runs them."""

Node = Callable[[str, Sequence[Any]], list[dict[str, Any]]]


@pytest.fixture(scope="session")
def node() -> Node:
    """Run ``check.mjs COMMAND`` on many items in one node process; one result per item."""
    npm_ci(JS, "ai", "the chat-UI tests")

    def run(command: str, items: Sequence[Any]) -> list[dict[str, Any]]:
        done = subprocess.run(["node", str(JS / "check.mjs")], cwd=JS, check=False,
                              input=json.dumps({"command": command, "items": list(items)}),
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        results: list[dict[str, Any]] = json.loads(done.stdout)["results"]
        assert len(results) == len(items)
        return results

    return run
