"""Test-wide configuration: the golden-file switch of the shared harness, and hypothesis's seed."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from tests.harness.golden import UPDATE_ENV, Golden, update_requested

# The default run (``nox -s tests``, CI) draws the same examples every time: a red CI means the
# change, not the dice. ``nox -s deep`` (PARTWIRE_HYPOTHESIS_RANDOM=1) draws new ones, ten times
# as many, to hunt for rarer failures; what it finds becomes a regression test.
settings.register_profile("partwire", derandomize=os.environ.get("PARTWIRE_HYPOTHESIS_RANDOM") != "1")
settings.load_profile("partwire")


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
