"""Test-wide configuration: only the golden-file switch of the shared harness."""

from __future__ import annotations

import pytest

from tests.harness.golden import UPDATE_ENV, Golden, update_requested


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--update-golden``: rewrite golden files and cassettes instead of checking them."""
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help=f"rewrite golden files and generated cassettes instead of comparing (or {UPDATE_ENV}=1)",
    )


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Golden:
    """Checks values against golden files, or rewrites them under ``--update-golden``."""
    return Golden(update=update_requested(bool(request.config.getoption("--update-golden"))))
