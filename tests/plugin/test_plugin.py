"""partwire's pytest plugin (``partwire.testing``) on an adapter someone else wrote: registered
by its entry point, and each law it breaks fails with a message a stranger can act on."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest

from partwire.adapters import anthropic
from partwire.testing import AdapterLaws, LawViolation, check_losses, example_histories
from tests.plugin.broken_adapter import FINAL, SSE, BrokenAdapter, max_tokens_errors


class BrokenLaws(AdapterLaws):
    """The suite a stranger writes for the broken adapter (not collected: no ``Test`` prefix)."""

    adapter = BrokenAdapter()
    api = "anthropic"  # it speaks Anthropic Messages: the corpus's Anthropic cases judge it
    validator = staticmethod(max_tokens_errors)
    streams: ClassVar[tuple[tuple[str, Any, Any], ...]] = (("a thinking answer", SSE, FINAL),)


def _violation(law: str) -> LawViolation:
    """The violation the law's test method raises on the broken adapter."""
    with pytest.raises(LawViolation) as caught:
        getattr(BrokenLaws(), law)()
    return caught.value


def test_the_plugin_is_registered_by_its_entry_point(pytestconfig: pytest.Config) -> None:
    """pytest loads partwire.testing.plugin as the plugin ``partwire`` wherever partwire is installed."""
    assert pytestconfig.pluginmanager.has_plugin("partwire")
    assert pytestconfig.getoption("--partwire-examples") is None


def test_a_silent_drop_is_named_with_its_path_and_the_fix() -> None:
    """The losses law names the dropped part's path and says to report a Loss for it."""
    message = str(_violation("test_losses_are_reported"))
    assert "adapter 'broken_messages' breaks the losses law on thinking_then_tool_use" in message
    assert "history[1].parts[0] neither reached the request nor is named by a loss" in message
    assert "add a Loss with its path" in message


def test_renumbered_ids_show_where_the_round_trip_differs() -> None:
    """The round-trip law shows the JSON path where the re-written request differs, before and after."""
    message = str(_violation("test_round_trip"))
    assert "breaks the round trip law on parallel_tool_calls" in message
    assert '"call_weather_1"' in message
    assert '"call_1"' in message
    assert "from_wire_request must read every field to_wire writes" in message


def test_invented_ids_are_named() -> None:
    """The ids law names the wire ids the reader made up."""
    message = str(_violation("test_ids"))
    assert "breaks the ids law on parallel_tool_calls" in message
    assert "wire ids ['call_1', 'call_2'], which the body does not hold" in message


def test_an_invalid_request_quotes_the_users_validator() -> None:
    """The request-validity law passes on the validator's own words."""
    message = str(_violation("test_requests_are_valid"))
    assert "the request does not validate: max_tokens: '" in message
    assert "is not an integer" in message
    assert "breaks the request validity law" in message


def test_a_foreign_exception_on_bad_input_names_the_input_and_partwires_error() -> None:
    """The bad-input law names the call and the input, the exception that escaped and the error to raise."""
    message = str(_violation("test_bad_input_gives_partwire_errors"))
    assert "breaks the bad input law on from_wire(None): it raised TypeError" in message
    assert "WireFormatError" in message


def test_a_stream_that_loses_thinking_differs_from_the_whole() -> None:
    """The stream law names the stream and the first difference from from_wire's message."""
    message = str(_violation("test_stream_equals_whole"))
    assert "breaks the stream law on a thinking answer (whole)" in message
    assert "$.parts" in message
    assert "stream must give the same parts" in message


def test_conformance_failures_name_the_cases_and_how_many() -> None:
    """The conformance law counts the failed cases of the API and shows the first ones with their diffs."""
    message = str(_violation("test_conformance_cases"))
    assert re.search(r"breaks the conformance law on \d+ of the \d+ anthropic cases", message)
    assert "  - " in message
    assert "partwire conformance list" in message


def test_a_sound_adapter_keeps_the_laws_the_broken_one_breaks() -> None:
    """partwire's own Anthropic adapter passes the same checks (the failures are the bugs, not the laws)."""
    for label, history in example_histories("anthropic"):
        check_losses(anthropic, history, example=label)


def test_a_pytest_run_fails_the_broken_adapter_and_says_why(tmp_path: Path) -> None:
    """A test module that subclasses AdapterLaws fails in a real pytest run, each failure naming its law."""
    root = Path(__file__).resolve().parents[2]
    (tmp_path / "test_broken.py").write_text(
        "from partwire.testing import AdapterLaws\n"
        "from tests.plugin.broken_adapter import BrokenAdapter, max_tokens_errors\n\n"
        "class TestBroken(AdapterLaws):\n"
        "    adapter = BrokenAdapter()\n"
        "    validator = staticmethod(max_tokens_errors)\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
         "-W", "ignore::pytest.PytestConfigWarning", "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
        env={**__import__("os").environ, "PYTHONPATH": str(root)})
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    for law in ("losses", "round trip", "ids", "request validity", "bad input"):
        assert f"breaks the {law} law" in done.stdout, done.stdout[-3000:]
    assert "5 failed" in done.stdout
