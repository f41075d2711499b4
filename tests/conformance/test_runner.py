"""The runner judges implementations run as subprocesses: partwire's own passes every case, a
deliberately wrong one fails exactly the cases that cover what it breaks, and the JavaScript
example of docs/contract.md passes the cases it claims."""

from __future__ import annotations

import functools
import json
import shutil
import sys
import time
from pathlib import Path

import pytest

from partwire.conformance import Report, load_cases, run
from partwire.conformance._runner import _line

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
BROKEN = {"signature", "tool_id"}
EXAMPLE = ROOT / "docs" / "examples" / "conformance" / "chat_text.js"


@functools.cache
def _javascript_report() -> Report:
    """The corpus run on the JavaScript example under node (once per test process)."""
    if shutil.which("node") is None:
        pytest.fail("these tests need node (.ci/run installs it: apt-get install nodejs)")
    return run(f"node {EXAMPLE}", load_cases())


def test_partwire_serve_passes_every_case() -> None:
    """`partwire conformance serve`, as a real subprocess, passes 100% of the cases."""
    cases = load_cases()
    report = run(f"{PYTHON} -m partwire conformance serve", cases)
    assert [(r.case.id, r.diff) for r in report.results if not r.passed] == []
    assert report.count("passed") == len(cases)


def test_a_wrong_implementation_fails_exactly_the_cases_covering_what_it_breaks() -> None:
    """Dropping signatures and renumbering tool ids fails every case whose answer carries a
    signature or a tool id, on every API, and no other case."""
    cases = load_cases()
    report = run(f"{PYTHON} -m tests.conformance.wrong_impl", cases)
    failed = {r.case.id for r in report.results if r.status == "failed"}
    covering = {c.id for c in cases if BROKEN & set(c.covers)}
    assert failed == covering
    assert {c.api for c in cases if c.id in failed} == {None, *(c.api for c in cases if c.api)}
    assert report.count("passed") == len(cases) - len(covering) > 0
    signed = next(r for r in report.results if r.case.id == "thinking_from_anthropic/anthropic")
    assert '-            "signature": "EqQCCkAIBhAB' in signed.diff
    assert '+            "tool_use_id": "call_1"' in signed.diff


def test_the_javascript_example_passes_the_cases_it_claims() -> None:
    """docs/examples/conformance/chat_text.js under node fails no case, passes the plain chats it
    claims and skips the rest as unsupported."""
    assert len(EXAMPLE.read_text().splitlines()) <= 25
    report = _javascript_report()
    assert report.count("failed") == 0, [r.diff for r in report.results if r.status == "failed"]
    assert {r.case.id for r in report.results if r.passed} >= {"plain_chat/openai_chat"}
    assert report.count("skipped") == len(report.results) - report.count("passed")


def test_an_implementation_that_dies_fails_the_remaining_cases() -> None:
    """A command that exits at once fails each case with a message saying it exited."""
    cases = load_cases("google")[:3]
    report = run(f"{PYTHON} -c pass", cases)
    assert [r.status for r in report.results] == ["failed"] * 3
    assert all("exited" in r.diff for r in report.results)


def _running(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie waiting for its parent does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_a_silent_implementation_times_out_and_the_rest_fail_unasked(tmp_path: Path) -> None:
    """A command that never replies fails its first case once the timeout passes; it is then
    taken as hung and stopped, with what its shell started, and the remaining cases fail without
    a wait of their own (a late reply would be read as the next case's)."""
    cases = load_cases("anthropic")[:3]
    script = tmp_path / "hung.py"
    script.write_text("import os, pathlib, sys, time\n"
                      "pathlib.Path(sys.argv[1]).write_text(str(os.getpid()))\ntime.sleep(30)\n")
    pid_file = tmp_path / "pid"
    # Two commands, so that the shell stays and the implementation is its child.
    report = run(f"cd {tmp_path} && {PYTHON} {script} {pid_file}", cases, timeout=0.5)
    assert [r.status for r in report.results] == ["failed"] * 3
    assert "no reply within 0.5 s" in report.results[0].diff
    for result in report.results[1:]:
        assert result.diff == f"not asked: the implementation gave no reply to {cases[0].id!r} within 0.5 s"
    pid = int(pid_file.read_text())
    for _ in range(50):
        if not _running(pid):
            break
        time.sleep(0.05)
    assert not _running(pid)


def test_replies_that_break_the_protocol_fail_with_what_was_wrong(tmp_path: Path) -> None:
    """A reply that is not JSON, or names another case, fails with a message saying so."""
    cases = load_cases("bedrock")[:2]
    script = tmp_path / "impl.py"
    script.write_text("import sys\nfor i, _ in enumerate(sys.stdin):\n"
                      "    print('oops' if i == 0 else '{\"id\": \"x\"}', flush=True)\n")
    report = run(f"{PYTHON} {script}", cases)
    assert "not JSON" in report.results[0].diff
    assert "reply's id is 'x'" in report.results[1].diff


def test_a_reply_that_is_not_utf8_fails_saying_so(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 fail their case with what they are, and the next case is still
    asked."""
    cases = load_cases("google")[:2]
    script = tmp_path / "impl.py"
    script.write_text("import sys\nfor _ in sys.stdin:\n"
                      "    sys.stdout.buffer.write(b'\\xff{}\\n')\n    sys.stdout.flush()\n")
    report = run(f"{PYTHON} {script}", cases)
    assert [r.diff for r in report.results] == ["the reply is not UTF-8 (invalid start byte at byte 0): b'\\xff{}\\n'"] * 2


def test_a_request_with_a_lone_surrogate_goes_out_as_its_json_escape() -> None:
    """A request UTF-8 cannot hold is sent with its escapes: the same JSON value."""
    request = {"id": "x", "input": {"text": "caf\u00e9 \ud800"}}
    line = _line(request)
    assert line.endswith(b"\n")
    assert b"\\ud800" in line
    assert json.loads(line) == request
    assert _line({"id": "x", "text": "caf\u00e9"}) == '{"id": "x", "text": "café"}\n'.encode()


def test_the_docs_show_the_example_as_it_is_run() -> None:
    """docs/contract.md shows chat_text.js exactly as the file the tests run, and its summary."""
    page = (ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
    assert f"```javascript\n{EXAMPLE.read_text(encoding='utf-8')}```" in page
    report = _javascript_report()
    summary = (f"{report.count('passed')} passed, {report.count('failed')} failed, "
               f"{report.count('skipped')} skipped of {len(report.results)} cases")
    assert summary in page
