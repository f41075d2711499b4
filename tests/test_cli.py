"""The ``partwire`` command: example, show, validate, rewrite and schema, in-process and as a program."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from partwire.cli import main
from partwire.cli._example import example_history
from partwire.cli._main import EXAMPLES, _parser
from partwire.codec import dumps, loads
from partwire.codec.schema import json_schema
from partwire.history import EVENT_ADAPTER, HistoryEvent
from partwire.messages import AssistantMessage, ToolMessage, UserMessage
from partwire.parts import ToolCallPart

TORN = b'{"v":1,"type":"message","role":"assistant","parts":[{"type":"te'
FUTURE = b'{"v":2,"type":"message","role":"user","id":"01KFUTURE00000000000000000","hologram":true}'


def _broken(path: Path) -> tuple[Path, dict[str, int]]:
    """The example with an unknown part type, a future-version line and a torn final line.

    Returns the file and the 1-based line number of each damaged line.
    """
    lines = dumps(example_history()).splitlines(keepends=True)
    user = next(i for i, e in enumerate(example_history()) if isinstance(e, UserMessage))
    data = json.loads(lines[user])
    data["parts"][1]["type"] = "hologram"
    lines[user] = json.dumps(data, separators=(",", ":")).encode() + b"\n"
    lines.insert(10, FUTURE + b"\n")
    lines.append(TORN)
    path.write_bytes(b"".join(lines))
    return path, {"unknown_part": user + 1, "future": 11, "torn": len(lines)}


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def _run(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "partwire", *args], cwd=cwd, input=stdin, capture_output=True, check=False
    )


# -- example ------------------------------------------------------------------------------------


def test_example_prints_the_example_history_as_jsonl(capsys: pytest.CaptureFixture[str]) -> None:
    """`partwire example` writes one line per event of the bundled example, which loads back equal."""
    assert main(["example"]) == 0
    out = capsys.readouterr().out
    assert out.encode() == dumps(example_history())
    assert loads(out) == example_history()


def test_example_output_validates_clean(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The example, written to a file, passes `partwire validate` with no output and exit 0."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()))
    assert main(["validate", str(path)]) == 0
    assert capsys.readouterr().out == ""


# -- show ---------------------------------------------------------------------------------------


def test_show_renders_every_role_part_and_event(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The transcript has role headers, thinking marks, calls with arguments, results, usage and events."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()))
    assert main(["show", str(path)]) == 0
    captured = capsys.readouterr()
    out = captured.out
    assert captured.err == ""
    for header in ("=== system", "=== developer", "=== user", "=== assistant", "=== tool"):
        assert header in out
    for fragment in (
        "[thinking, signed by anthropic]",
        "[redacted thinking, ",
        "-> server tool web_search",
        "<- server tool result web_search_tool_result",
        "[refusal] ",
        "[unknown part 'mcp_list_tools' from openai",
        "[image image/png: inline,",
        "[document application/pdf",
        "[audio audio/wav",
        "[2] document 0",
        "* error overloaded_error (anthropic, HTTP 529, retryable): Overloaded",
        "* retry: attempt 2",
        "* compaction: 11 messages summarised",
        "* model switch: anthropic:claude-sonnet-4-6 -> openai:gpt-5",
        "* subtask sess_tidydates_43 (reviewer): success",
        "* task: Fix the UTC offset bug",
        "* unknown event 'checkpoint', kept verbatim",
    ):
        assert fragment in out, fragment
    for event in example_history():
        if isinstance(event, AssistantMessage):
            assert event.usage is not None
            assert f"cost ${event.usage.cost}" in out
            for call in (p for p in event.parts if isinstance(p, ToolCallPart)):
                assert f"-> call {call.name} [{call.id}]" in out
                assert call.arguments_json in out
        elif isinstance(event, ToolMessage):
            assert f"=== tool {event.tool_name}  {event.status}" in out


def test_show_prints_interrupts_derived_by_replay(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An aborted tool message and an aborted assistant message each yield an interrupt line."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()))
    main(["show", str(path)])
    out = capsys.readouterr().out
    aborted_tool = next(e for e in example_history() if isinstance(e, ToolMessage) and e.status == "aborted")
    aborted_answer = next(
        e for e in example_history() if isinstance(e, AssistantMessage) and e.status == "aborted"
    )
    assert f"* interrupt: the user stopped tool call {aborted_tool.call_id}" in out
    assert f"* interrupt: the user stopped the answer of message {aborted_answer.id}" in out


def test_show_reads_stdin_tolerantly_and_reports_problems_on_stderr(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`show -` renders what it understood, prints each problem as <stdin>:LINE: on stderr, exits 1."""
    good = EVENT_ADAPTER.dump_json(UserMessage("hello there")) + b"\n"
    _stdin(monkeypatch, good + FUTURE + b"\n" + TORN)
    assert main(["show", "-"]) == 1
    captured = capsys.readouterr()
    assert "hello there" in captured.out
    assert "<stdin>:2: schema version 2 is newer than 1" in captured.err
    assert "<stdin>:3: torn final line" in captured.err


def test_show_escapes_terminal_control_characters(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Escape sequences in a history are printed escaped, never sent to the terminal raw."""
    _stdin(monkeypatch, EVENT_ADAPTER.dump_json(UserMessage("red \x1b[31mALERT\x07")) + b"\n")
    assert main(["show", "-"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "\x07" not in out
    assert "red \\x1b[31mALERT\\x07" in out


# -- validate -----------------------------------------------------------------------------------


def test_validate_names_each_damaged_line_and_exits_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A torn line, an unknown part type and a future version are each reported as FILE:LINE: message."""
    path, at = _broken(tmp_path / "h.jsonl")
    assert main(["validate", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"{path}:{at['unknown_part']}: unknown part type 'hologram' at parts[1]",
        f"{path}:{at['future']}: schema version 2 is newer than 1 at v",
        lines[2],
    ]
    assert lines[2].startswith(f"{path}:{at['torn']}: torn final line")


def test_validate_strict_stops_at_the_first_problem(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """With --strict only the first problem is printed, and the exit status is still 1."""
    path, at = _broken(tmp_path / "h.jsonl")
    assert main(["validate", "--strict", str(path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{path}:{at['unknown_part']}: unknown part type 'hologram' at parts[1]"
    ]


def test_validate_maps_history_issues_to_line_numbers(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A readable line that breaks a history rule is reported with its own line number."""
    history: list[HistoryEvent] = [UserMessage("hi"), ToolMessage("out", call_id="tu_nobody", tool_name="ls")]
    _stdin(monkeypatch, b"\n" + dumps(history))  # a blank first line shifts the tool message to line 3
    assert main(["validate", "-"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == ["<stdin>:3: call_id tu_nobody answers no earlier tool call"]


def test_validate_strict_reports_history_issues_too(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --strict a readable file still gets its first history issue reported."""
    call = ToolCallPart.create("ls")
    history: list[HistoryEvent] = [
        AssistantMessage([call], model="anthropic:claude-sonnet-4-6"),
        ToolMessage("out", call_id="tu_nobody", tool_name="ls"),
    ]
    _stdin(monkeypatch, dumps(history))
    assert main(["validate", "--strict", "-"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "<stdin>:1: a complete assistant message needs provider"
    ]


# -- rewrite ------------------------------------------------------------------------------------


def test_rewrite_keeps_lines_it_does_not_understand_byte_identical(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The unknown-part and future-version lines come out byte for byte; problems go to stderr; exit 0."""
    path, at = _broken(tmp_path / "h.jsonl")
    out = tmp_path / "out.jsonl"
    assert main(["rewrite", str(path), str(out)]) == 0
    before = path.read_bytes().splitlines()
    after = out.read_bytes().splitlines()
    for key in ("unknown_part", "future", "torn"):
        assert after[at[key] - 1] == before[at[key] - 1], key
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.splitlines()) == 3
    assert f"{path}:{at['future']}: schema version 2" in captured.err


def test_rewrite_to_stdout_matches_rewrite_to_a_file(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`rewrite - -` reads stdin and writes to stdout exactly what `rewrite IN OUT` writes to OUT."""
    path, _ = _broken(tmp_path / "h.jsonl")
    out = tmp_path / "out.jsonl"
    main(["rewrite", str(path), str(out)])
    capsys.readouterr()
    _stdin(monkeypatch, path.read_bytes())
    assert main(["rewrite", "-", "-"]) == 0
    assert capsys.readouterr().out.encode() == out.read_bytes()


# -- schema and errors --------------------------------------------------------------------------


def test_schema_prints_the_json_schema(capsys: pytest.CaptureFixture[str]) -> None:
    """`partwire schema` prints the generated JSON Schema."""
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == json_schema()


@pytest.mark.parametrize("argv", [["show"], ["validate"], ["rewrite"]])
def test_missing_file_is_one_error_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]
) -> None:
    """A FILE that does not exist gives one `partwire: error:` line naming it, and exit 2."""
    missing = str(tmp_path / "nope.jsonl")
    extra = [str(tmp_path / "out.jsonl")] if argv == ["rewrite"] else []
    assert main([*argv, missing, *extra]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [f"partwire: error: {missing}: No such file or directory"]


def test_directory_and_unwritable_output_are_one_error_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A directory as FILE, or an OUT in a missing directory, fails with one error line and exit 2."""
    assert main(["show", str(tmp_path)]) == 2
    assert capsys.readouterr().err.splitlines() == [f"partwire: error: {tmp_path} is a directory, not a history file"]
    src = tmp_path / "h.jsonl"
    src.write_bytes(dumps(example_history()))
    assert main(["rewrite", str(src), str(tmp_path / "missing" / "out.jsonl")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith("partwire: error: cannot write ")


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["show"], ["validate", "--loud", "x"]])
def test_bad_command_line_is_one_error_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """A command line argparse refuses gives exactly one `partwire: error:` line and exit 2."""
    assert main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith("partwire: error: ")


# -- as a program -------------------------------------------------------------------------------


def test_program_example_then_show(tmp_path: Path) -> None:
    """`python -m partwire example` output piped into `show -` renders the transcript."""
    example = _run("example", cwd=tmp_path)
    assert example.returncode == 0
    assert example.stdout == dumps(example_history())
    shown = _run("show", "-", cwd=tmp_path, stdin=example.stdout)
    assert shown.returncode == 0
    assert shown.stderr == b""
    assert b"=== assistant  anthropic:claude-sonnet-4-6  stop: tool_use" in shown.stdout


def test_program_validate_reports_damage(tmp_path: Path) -> None:
    """`python -m partwire validate` prints the three problems and exits 1."""
    _broken(tmp_path / "h.jsonl")
    result = _run("validate", "h.jsonl", cwd=tmp_path)
    assert result.returncode == 1
    assert len(result.stdout.splitlines()) == 3
    assert all(line.startswith(b"h.jsonl:") for line in result.stdout.splitlines())


def test_program_rewrite_keeps_unknown_lines(tmp_path: Path) -> None:
    """`python -m partwire rewrite` exits 0 and keeps the future-version line byte for byte."""
    _broken(tmp_path / "h.jsonl")
    result = _run("rewrite", "h.jsonl", "out.jsonl", cwd=tmp_path)
    assert result.returncode == 0
    assert FUTURE + b"\n" in (tmp_path / "out.jsonl").read_bytes()
    assert b"h.jsonl:11: schema version 2 is newer than 1 at v" in result.stderr


def test_program_schema_prints_the_committed_schema(tmp_path: Path) -> None:
    """`python -m partwire schema` prints the same bytes as docs/schema/partwire.schema.json."""
    result = _run("schema", cwd=tmp_path)
    assert result.returncode == 0
    committed = Path(__file__).resolve().parent.parent / "docs" / "schema" / "partwire.schema.json"
    assert result.stdout == committed.read_bytes()


def test_program_missing_file_has_no_traceback(tmp_path: Path) -> None:
    """A missing file as a program run gives one error line on stderr, no traceback, exit 2."""
    result = _run("show", "nope.jsonl", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == b"partwire: error: nope.jsonl: No such file or directory\n"


# -- help -------------------------------------------------------------------------------------


def _commands() -> dict[str, Any]:
    parser = _parser()
    action = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return dict(action.choices)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(_commands()))
def test_every_command_help_gives_an_example(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`partwire CMD --help` ends with an example invocation of CMD."""
    assert main([name, "--help"]) == 0
    out = capsys.readouterr().out
    assert "example:" in out
    assert re.search(rf"^\s+partwire (.*\| )?{name}\b", out, re.MULTILINE) or f"partwire {name}" in out
    assert name in EXAMPLES


def test_top_level_help_names_convert(capsys: pytest.CaptureFixture[str]) -> None:
    """`partwire --help` mentions convert in its summary and shows an example."""
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    summary = out.split("positional arguments")[0]
    assert "convert" in summary
    assert "example:" in out


