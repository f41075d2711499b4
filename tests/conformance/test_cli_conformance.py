"""``partwire conformance run``, ``serve`` and ``list`` on the command line."""

from __future__ import annotations

import io
import json
import sys

import pytest

from partwire.cli import main

SERVE = f"{sys.executable} -m partwire conformance serve"
WRONG = f"{sys.executable} -m tests.conformance.wrong_impl"


def test_run_prints_a_verdict_per_case_and_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    """``run --cases`` judges only the matching cases, one PASS line each, then the counts."""
    assert main(["conformance", "run", "--cmd", SERVE, "--cases", "plain_chat/*"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:-1] == [f"PASS plain_chat/{api}" for api in
                        ("anthropic", "openai_chat", "openai_responses", "google", "bedrock")]
    assert out[-1] == "5 passed, 0 failed, 0 skipped of 5 cases"


def test_run_shows_the_diff_of_a_failure_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    """A failing case prints FAIL, its diff indented below it, and the run exits with status 1."""
    status = main(["conformance", "run", "--cmd", WRONG, "--cases", "tool_ids/openai_chat,plain_chat/google"])
    out = capsys.readouterr().out
    assert status == 1
    assert "FAIL tool_ids/openai_chat\n     --- expected\n     +++ actual\n" in out
    assert "PASS plain_chat/google" in out
    assert out.rstrip().endswith("1 passed, 1 failed, 0 skipped of 2 cases")


def test_run_json_prints_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    """``--json`` prints one object with the counts and each case's id, status, covers and diff."""
    assert main(["conformance", "run", "--cmd", WRONG, "--cases", "thinking_from_google/google",
                 "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert (report["passed"], report["failed"], report["skipped"]) == (0, 1, 0)
    (result,) = report["results"]
    assert result["id"] == "thinking_from_google/google"
    assert result["status"] == "failed"
    assert "signature" in result["covers"]
    assert result["diff"].startswith("--- expected")


def test_a_filter_matching_nothing_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    """``--cases`` that matches no case ends with one error line naming the pattern, status 2."""
    assert main(["conformance", "run", "--cmd", SERVE, "--cases", "nothing_like_this*"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("partwire: error: no case matches nothing_like_this*")


def test_list_prints_the_case_ids(capsys: pytest.CaptureFixture[str]) -> None:
    """``list --cases`` prints the id of each matching case, one per line."""
    assert main(["conformance", "list", "--cases", "validate_*"]) == 0
    ids = capsys.readouterr().out.split()
    assert "validate_torn_final_line" in ids
    assert all(i.startswith("validate_") for i in ids)


def test_serve_answers_each_request_line(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """``serve`` answers a validate request, and names a bad line and an unknown operation."""
    requests = [
        json.dumps({"id": "a", "operation": "validate", "input": {"jsonl": "{\"v\": 1"}}),
        "not json",
        json.dumps({"id": "c", "operation": "translate", "input": {}}),
    ]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(requests) + "\n"))
    assert main(["conformance", "serve"]) == 0
    replies = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert replies[0] == {"id": "a", "output": {"written": [None],
                                                "problems": [{"line": 1, "kind": "torn_line"}]}}
    assert replies[1]["error"]["kind"] == "invalid_input"
    assert replies[2]["id"] == "c"
    assert replies[2]["error"]["kind"] == "unsupported"
