"""Print the measured estimate error tables at the end of the run (no ``-s`` needed)."""

from __future__ import annotations

import pytest

REPORT_KEY = "token_estimate_error"
"""The ``record_property`` name a test files its figures under, as ``(key, text)``: a wire format
and its held-back figures (test_estimates.py), ``"classes"`` and the table of every class
(test_classes.py), or ``"accuracy"`` and the goal table per API (test_estimate_accuracy.py). A report's properties reach the main process under pytest-xdist too, where a
module-level dict filled in a worker would not."""

_REPORTS: dict[str, str] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Collect the figures of each test that recorded some (in the process that reports)."""
    for key, value in report.user_properties:
        if key == REPORT_KEY and isinstance(value, tuple) and len(value) == 2:
            _REPORTS[str(value[0])] = str(value[1])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """After the run, the held-back figures per wire format, then the table per class."""
    held = {k: v for k, v in _REPORTS.items() if k not in ("classes", "accuracy")}
    if held:
        terminalreporter.section("token estimate error on held-back real requests")
        for _, line in sorted(held.items()):
            terminalreporter.write_line(line)
    if "classes" in _REPORTS:
        terminalreporter.section("token estimate error on every real request, per class")
        for line in _REPORTS["classes"].splitlines():
            terminalreporter.write_line(line)
    if "accuracy" in _REPORTS:
        terminalreporter.section("token estimate goal per API: error, bounds, hints")
        for line in _REPORTS["accuracy"].splitlines():
            terminalreporter.write_line(line)
