"""The estimate against the real usage of every recorded request, per wire format and class.

Each (wire format, class) must keep its median error at most 10% and its 90th percentile at
most 25% (issue 23). The table of every class is printed at the end of the run and is the one
docs/accounting.md holds. The classes that miss the bounds on the real traffic we have are
named in ``KNOWN_MISSES`` with why; they are strict expected failures, so a fix that brings one
within the bounds fails the run until it is taken off the list.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

from tests.accounting._classes import (
    BEGIN,
    CLASSES,
    DOCS,
    END,
    ClassErrors,
    errors_by_class,
    render_table,
)
from tests.accounting._corpus import PROVIDERS
from tests.accounting.conftest import ERROR_REPORT

MEDIAN_BOUND = 0.10
P90_BOUND = 0.25

KNOWN_MISSES: dict[tuple[str, str], str] = {
    ("anthropic", "media by reference"): (
        "images by URL: their size is not in the request, and the 512x512 default is ten times "
        "the 34-token cost of the small Wikipedia icon two of the five requests send"),
    ("openai-chat", "media by reference"): (
        "images by URL: the 512x512 default (one tile) under-counts the 800x400 image (two "
        "tiles) two of the five requests send"),
    ("google", "structured"): (
        "requests with a response schema are exact (promptTokenCount leaves the schema out), but "
        "JSON mode without a schema and Gemini 3 tool loops run 14-34% under, for no cause "
        "found (Gemini's tokenizer is unpublished); the median misses by about a point"),
    ("google", "tools"): (
        "Gemini's tokenizer is unpublished and thought signatures are replayed by a fitted "
        "rate; the errors go both ways (-32% to +49%), so no overhead constant fixes them"),
}

@cache
def _results() -> dict[str, dict[str, ClassErrors]]:
    return {provider: errors_by_class(provider) for provider in PROVIDERS}


def _cases() -> list[object]:
    cases: list[object] = []
    for provider in PROVIDERS:
        for klass in CLASSES:
            reason = KNOWN_MISSES.get((provider, klass))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            cases.append(pytest.param(provider, klass, marks=marks, id=f"{provider}-{klass}"))
    return cases


@pytest.mark.parametrize(("provider", "klass"), _cases())
def test_class_error_within_bounds(provider: str, klass: str) -> None:
    """A class's median error is at most 10% and its 90th percentile at most 25%."""
    results = _results()
    ERROR_REPORT["classes"] = render_table(results)
    row = results[provider][klass]
    if not row.n:
        pytest.skip(f"no recorded {provider} request of class {klass} carries usage")
    report = f"{provider} {klass}: n={row.n} median={row.median:.1%} p90={row.p90:.1%}"
    assert row.median <= MEDIAN_BOUND, report
    assert row.p90 <= P90_BOUND, report


def test_docs_hold_the_measured_table() -> None:
    """docs/accounting.md shows the table this run measures (regenerate it when it moves)."""
    text = DOCS.read_text()
    found = re.search(re.escape(BEGIN) + r"\n(.*?)\n" + re.escape(END), text, re.DOTALL)
    assert found, f"docs/accounting.md lacks the {BEGIN} block"
    assert found.group(1).strip() == render_table(_results()), (
        "the error table in docs/accounting.md is stale: python -m tests.accounting._classes "
        "--write")


def test_known_misses_name_real_classes() -> None:
    """Every listed miss names a wire format and a class that exist."""
    for provider, klass in KNOWN_MISSES:
        assert provider in PROVIDERS
        assert klass in CLASSES
