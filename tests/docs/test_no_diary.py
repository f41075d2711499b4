"""The user documentation holds no development diary, and the benchmarks page is current.

A diary marker is what a page written for users has no reason to hold: a commit hash of this
project, a numbered work period or session, an instruction count from a profiler, a table of
runs, a figure dated by the day it was measured. Measured figures belong on the generated
``docs/benchmarks.md`` (left out of the scan: its numbers are its content), the history of the
formats in ``CHANGELOG.md``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.benchmarks import report

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
GENERATED = {DOCS / "benchmarks.md"}
PAGES = sorted(p for p in DOCS.rglob("*.md") if p not in GENERATED)

# Hex strings that are not this project's commits: the pinned commits of upstream sources a
# page names as provenance (the OpenTelemetry conventions, Claude Code's and Codex's sources).
UPSTREAM = frozenset({"ead83b9b0fa36540c1642fce46e874f002ac23f1", "c9e48b1", "781e74cda2",
                      "86be5320b068ef67b56348b02aa8c33706955da6"})

_ORDINAL = r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th))"
MARKERS = {
    # A git hash: 7-12 hex characters (a short hash) or 40 (a full one), with a digit and a letter,
    # standing alone (ids inside a word, a UUID or a longer token are not hashes).
    "commit hash": re.compile(r"(?<![\w-])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])"
                              r"(?:[0-9a-f]{7,12}|[0-9a-f]{40})(?![\w-])"
                              r"|(?<=revision )[0-9a-f]{7,40}\b|(?<=commit )[0-9a-f]{7,40}\b"),
    "numbered work period": re.compile(rf"\b{_ORDINAL}\s+(?:work\s+)?(?:session|work period|period)\b"
                                       r"|\bwork period\b|\bsession\s+\d+\b", re.IGNORECASE),
    "instruction count": re.compile(r"\b(?:cachegrind|callgrind)\b|\d\s?M instructions\b"
                                    r"|\binstruction counts?\b|\|\s*instructions\s*\|", re.IGNORECASE),
    "table of runs": re.compile(r"\|\s*run\s+\d+\s*\|", re.IGNORECASE),
    "dated measurement": re.compile(r"\b(?:measured|timed|run)\b[^.\n]{0,40}\b20\d\d-\d\d-\d\d\b"
                                    r"|\(20\d\d-\d\d-\d\d,", re.IGNORECASE),
}


def diary_markers(text: str) -> list[tuple[int, str, str]]:
    """Each diary marker in ``text``: its line number, the kind of marker and what matched."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for kind, pattern in MARKERS.items():
            for match in pattern.finditer(line):
                if kind == "commit hash" and match.group() in UPSTREAM:
                    continue
                found.append((number, kind, match.group()))
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_user_page_holds_no_diary(page: Path) -> None:
    """No page of docs/ but the generated benchmarks page holds a diary marker."""
    found = diary_markers(page.read_text(encoding="utf-8"))
    assert not found, "\n".join(f"{page.relative_to(ROOT)}:{n}: {kind}: {text!r}" for n, kind, text in found)


@pytest.mark.parametrize(("text", "kind"), [
    ("the merged revision 9504649 measured", "commit hash"),
    ("A whole run on 5cdeca4 read", "commit hash"),
    ("| the setter's body | instructions | note |", "instruction count"),
    ("**Ninth session (2026-11-29): three whole runs.**", "numbered work period"),
    ("| as it is | 66.5 M instructions |", "instruction count"),
    ("Counted with cachegrind, a load executes", "instruction count"),
    ("| measure | run 1 | run 2 |", "table of runs"),
    ("history (measured 2026-11-29, Gemini, the bench's turns)", "dated measurement"),
])
def test_each_kind_of_diary_marker_is_found(text: str, kind: str) -> None:
    """The scan finds each kind of marker the diary held."""
    assert kind in {k for _, k, _ in diary_markers(text)}


@pytest.mark.parametrize("text", [
    "a session of 10,000 events",                           # the Session concept
    '"id": "chatcmpl-01", "created": 1767225600',             # an example response
    "RequestId: 3b2ac7f0-4d8e-4c1b-9f7a-5e6d2c1b0a98",        # a UUID
    "commit `ead83b9b0fa36540c1642fce46e874f002ac23f1` of the conventions",  # upstream provenance
    "reprice with at=2026-06-01",                             # a date that is no measurement
    "| Nova | about 390 of tool instructions | measured |",      # the model's tool prompt
])
def test_user_text_is_not_taken_for_a_diary(text: str) -> None:
    """Words users read (sessions, ids, upstream commits, dates) are not diary markers."""
    assert diary_markers(text) == []


def test_the_benchmarks_page_is_generated_from_the_committed_results() -> None:
    """docs/benchmarks.md is what ``python -m tests.benchmarks.report`` makes of
    docs/benchmarks.json: regenerate it (``nox -s bench_docs``) after a bench run."""
    results = json.loads(report.RESULTS.read_text(encoding="utf-8"))
    assert report.PAGE.read_text(encoding="utf-8") == report.render(results)


def test_the_benchmarks_page_shows_every_figure_with_its_median_and_verdict() -> None:
    """Each figure of the results is a row: its median, target, peer, spread and held."""
    results = {"meta": {"runs": 3, "python": "3.11.2", "machine": "x86_64", "date": "2026-11-29",
                        "modules": ["anthropic"]},
               "figures": {"anthropic.to_wire.1000": {
                   "unit": "x", "value": 1.2, "runs": [1.1, 1.2, 1.6], "spread": 0.417,
                   "peer": "a plain dict loop", "target": 1.5, "held": True}}}
    page = report.render(results)
    assert ("| `anthropic.to_wire.1000` | 1.2 | x | 1.5 | a plain dict loop | 41.7% | yes |"
            in page)
    assert "**Not measured**" in page
    assert "`bench_codec`" in page
