"""partwire's pytest plugin, which pytest loads wherever partwire is installed.

Registered as the ``pytest11`` entry point ``partwire``, it adds the ``--partwire-examples``
option; the laws themselves are the test class :class:`partwire.testing.AdapterLaws`, which a
test module subclasses."""

from __future__ import annotations

import pytest

from partwire.testing._suite import _RUN

__all__ = ["pytest_addoption", "pytest_configure"]


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--partwire-examples N``: how many examples each hypothesis strategy of an
    ``AdapterLaws`` suite draws per law (its ``max_examples`` otherwise)."""
    group = parser.getgroup("partwire", "partwire adapter laws")
    group.addoption("--partwire-examples", type=int, default=None, metavar="N",
                    help="examples each hypothesis strategy of an AdapterLaws suite draws per law")


def pytest_configure(config: pytest.Config) -> None:
    """Apply ``--partwire-examples`` to every ``AdapterLaws`` suite of the run."""
    examples = config.getoption("--partwire-examples", default=None)
    if examples is not None:
        _RUN["max_examples"] = int(examples)
