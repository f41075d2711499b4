"""Print the measured estimate error table at the end of the run (no ``-s`` needed)."""

from __future__ import annotations

import pytest

# Filled by tests/accounting/test_estimates.py: wire format -> its held-back error figures.
ERROR_REPORT: dict[str, str] = {}


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """After the run, one line per wire format: held-back count, median, p90 and max error."""
    if ERROR_REPORT:
        terminalreporter.section("token estimate error on held-back real requests")
        for line in ERROR_REPORT.values():
            terminalreporter.write_line(line)
