"""Print the measured estimate error table at the end of the run (no ``-s`` needed)."""

from __future__ import annotations

import pytest

# Filled by tests/accounting/test_estimates.py (wire format -> its held-back error figures) and
# test_classes.py ("classes" -> the error table of every class).
ERROR_REPORT: dict[str, str] = {}


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """After the run, the held-back figures per wire format, then the table per class."""
    held = {k: v for k, v in ERROR_REPORT.items() if k != "classes"}
    if held:
        terminalreporter.section("token estimate error on held-back real requests")
        for line in held.values():
            terminalreporter.write_line(line)
    if "classes" in ERROR_REPORT:
        terminalreporter.section("token estimate error on every real request, per class")
        for line in ERROR_REPORT["classes"].splitlines():
            terminalreporter.write_line(line)
