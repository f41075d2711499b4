"""How hard the property tests look: one knob for every hypothesis test of the suite.

The default depth is what ``nox -s tests`` runs (a few minutes on two cores, in parallel);
``nox -s deep`` multiplies every test's example count by ``PARTWIRE_HYPOTHESIS_SCALE`` (10 there)
to hunt for rarer failures. The older per-suite variables (``PARTWIRE_LAW_EXAMPLES``,
``PARTWIRE_SESSION_EXAMPLES``) still set their suites' base count.
"""

from __future__ import annotations

import os

__all__ = ["SCALE", "examples"]

SCALE = float(os.environ.get("PARTWIRE_HYPOTHESIS_SCALE", "1"))
"""The factor applied to every test's example count (``1``: the default depth)."""


def examples(default: int, variable: str | None = None) -> int:
    """A test's ``max_examples``: ``default`` (or the ``variable`` from the environment), scaled."""
    base = int(os.environ.get(variable, default)) if variable else default
    return max(1, round(base * SCALE))
