"""The ``partwire`` command under hostile input and misuse: lone surrogates, damaged stores, closed
standard streams, bodies of another API, bad options, every adapter alias, and bodies that are no
object, too deep, too long or not UTF-8. Each is exit 0 with the right output, or one ``partwire:
error:`` line and exit 2 (problem lines and exit 1 for a damaged history); never "internal error"
or a traceback."""

from __future__ import annotations

import json
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from partwire.adapters import ADAPTER_ALIASES
from partwire.cli import FORMATS, main
from partwire.cli._example import example_history
from partwire.codec import dumps, loads
from tests.hostile.test_misuse import SURROGATE_LINES

MODELS = {"anthropic": "claude-sonnet-4-6", "openai-chat": "gpt-5", "openai-responses": "gpt-5",
          "google": "gemini-2.5-pro"}


def _one_error(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("partwire: error: "), err
    assert "internal error" not in err
    return lines[0]


@pytest.fixture
def surrogates(tmp_path: Path) -> Path:
    """A history file whose lines hold lone surrogates, as the codec writes them."""
    path = tmp_path / "s.jsonl"
    path.write_bytes(dumps(loads(b"\n".join(SURROGATE_LINES))))
    return path


# -- 1. lone surrogates ---------------------------------------------------------------------------


def test_validate_show_and_rewrite_take_lone_surrogates(surrogates: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """validate reads the file (its one problem: the unknown field), show renders it, and rewrite
    writes it back byte for byte."""
    assert main(["validate", str(surrogates)]) == 1
    out, err = capsys.readouterr()
    assert f"{surrogates}:3: " in out
    assert "internal error" not in out + err
    assert main(["show", str(surrogates)]) == 0
    out, err = capsys.readouterr()
    assert "call f" in out
    assert "internal error" not in err
    assert main(["rewrite", str(surrogates), str(tmp_path / "out.jsonl")]) == 0
    assert (tmp_path / "out.jsonl").read_bytes() == surrogates.read_bytes()


@pytest.mark.parametrize("target", sorted(MODELS))
def test_convert_writes_lone_surrogates_as_json_escapes(target: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """convert to every API prints a body holding the escape, which reads back to the same text."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(SURROGATE_LINES[0] + b"\n")
    assert main(["convert", "--from", "canonical", "--to", target, "--model", MODELS[target], str(path)]) == 0
    out = capsys.readouterr().out
    assert "\\ud800" in out
    assert "a\ud800b" in json.dumps(json.loads(out), ensure_ascii=False)


def test_convert_back_to_canonical_keeps_the_escape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An Anthropic request with a lone surrogate converts to canonical JSONL holding the same escape."""
    body = tmp_path / "body.json"
    body.write_text('{"model": "claude-sonnet-4-6", "max_tokens": 10, '
                    '"messages": [{"role": "user", "content": "a\\ud800b"}]}')
    assert main(["convert", "--from", "anthropic", "--to", "canonical", str(body)]) == 0
    out = capsys.readouterr().out
    assert "a\\ud800b" in out
    assert loads(out.encode())[0].text == "a\ud800b"  # type: ignore[union-attr]


def test_store_import_and_export_keep_lone_surrogates(surrogates: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """store import then export gives the file's bytes back."""
    db = str(tmp_path / "s.db")
    assert main(["store", "--db", db, "import", "--session", "s", str(surrogates)]) == 0
    capsys.readouterr()
    assert main(["store", "--db", db, "export", "s"]) == 0
    assert capsys.readouterr().out.encode() == surrogates.read_bytes()


# -- 2. a damaged store ---------------------------------------------------------------------------


def test_a_damaged_store_is_one_error_line_naming_the_file(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Every store verb on a damaged SQLite file prints one line naming it and what to do, exit 2."""
    db = tmp_path / "s.db"
    history = tmp_path / "h.jsonl"
    history.write_bytes(dumps(example_history()))
    assert main(["store", "--db", str(db), "import", str(history)]) == 0
    data = bytearray(db.read_bytes())
    for i in range(100, len(data)):
        data[i] = (i * 131) % 256
    db.write_bytes(bytes(data))
    capsys.readouterr()
    for verb in (["ls"], ["export", "h"], ["import", str(history)], ["search", "bug"]):
        assert main(["store", "--db", str(db), *verb]) == 2
        line = _one_error(capsys.readouterr().err)
        assert str(db) in line
        assert "restore it from a backup" in line


def test_a_store_with_a_schema_version_that_is_no_number(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A schema_version edited to text is one error line naming the value, exit 2."""
    db = tmp_path / "s.db"
    assert main(["store", "--db", str(db), "ls"]) == 0
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE store_meta SET value = 'two' WHERE key = 'schema_version'")
    capsys.readouterr()
    assert main(["store", "--db", str(db), "ls"]) == 2
    assert "schema_version 'two', not a number" in _one_error(capsys.readouterr().err)


# -- 3. closed standard streams -------------------------------------------------------------------


def _program(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    script = f"{shlex.quote(sys.executable)} -m partwire {command}"
    return subprocess.run(["bash", "-c", script], cwd=cwd, capture_output=True, text=True, check=False)


@pytest.mark.parametrize(("command", "stream"), [
    ("validate - <&-", "input"),
    ("show - <&-", "input"),
    ("convert --from canonical --to anthropic - <&-", "input"),
    ("convert --from anthropic --to canonical - <&-", "input"),
    ("example >&-", "output"),
    ("schema >&-", "output"),
    ("show h.jsonl >&-", "output"),
    ("convert --from canonical --to anthropic h.jsonl >&-", "output"),
    ("rewrite h.jsonl - >&-", "output"),
])
def test_a_closed_standard_stream_is_one_error_line(command: str, stream: str, tmp_path: Path) -> None:
    """A command started with its standard input or output closed says so in one line, exit 2."""
    (tmp_path / "h.jsonl").write_bytes(dumps(example_history()))
    result = _program(command, tmp_path)
    assert result.returncode == 2, result.stderr
    assert "internal error" not in result.stderr
    # convert prints its losses first; the error is the last line.
    assert result.stderr.splitlines()[-1] == f"partwire: error: standard {stream} is closed, and this command needs it"


def test_a_closed_stream_the_command_does_not_use_is_no_error(tmp_path: Path) -> None:
    """validate of a clean file needs neither stdin nor (having nothing to say) stdout; with stderr
    closed, errors are not written to stdout instead."""
    (tmp_path / "h.jsonl").write_bytes(dumps(example_history()))
    assert _program("validate h.jsonl <&- >&-", tmp_path).returncode == 0
    missing = _program("validate nope.jsonl 2>&-", tmp_path)
    assert missing.returncode == 2
    assert missing.stdout == ""


# -- 5. a body of another API ---------------------------------------------------------------------

ANTHROPIC_RESPONSE = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
                      "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",
                      "usage": {"input_tokens": 1, "output_tokens": 1}}


@pytest.mark.parametrize("source", ["google", "openai-chat", "openai-responses"])
def test_convert_refuses_a_response_of_another_api(source: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """--from google (or Chat, or Responses) of an Anthropic response is one error, exit 2, not an
    empty message."""
    body = tmp_path / "resp.json"
    body.write_text(json.dumps(ANTHROPIC_RESPONSE))
    assert main(["convert", "--from", source, "--to", "canonical", str(body)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "not a valid response" in _one_error(err)


# -- 6. options and arguments ---------------------------------------------------------------------


@pytest.mark.parametrize(("args", "says"), [
    (["--option", "system_in_messages=maybe"], "system_in_messages='maybe': expected true or false"),
    (["--option", "foreign_thinking=keep"], "expected one of 'drop', 'text'"),
    (["--model", ""], "an empty model"),
    (["--model", "  "], "an empty model"),
])
def test_a_bad_option_or_model_is_one_error_naming_it(args: list[str], says: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A value an option's field cannot hold, or an empty --model, is refused, not taken."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()))
    assert main(["convert", "--from", "canonical", "--to", "anthropic", *args, str(path)]) == 2
    assert says in _one_error(capsys.readouterr().err)


# -- 9. one name per adapter ----------------------------------------------------------------------


@pytest.mark.parametrize(("alias", "name"), sorted(
    {**ADAPTER_ALIASES, "openai_responses": "openai_responses", "openai_chat": "openai_chat"}.items()))
def test_convert_takes_every_alias(alias: str, name: str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """--to ALIAS gives the same body as --to the adapter's own spelling."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()))
    model = MODELS[name.replace("_", "-")]
    assert main(["convert", "--from", "canonical", "--to", alias, "--model", model, str(path)]) == 0
    via_alias = capsys.readouterr().out
    assert main(["convert", "--from", "canonical", "--to", name.replace("_", "-"), "--model", model,
                 str(path)]) == 0
    assert capsys.readouterr().out == via_alias


def test_an_unknown_format_lists_the_aliases(capsys: pytest.CaptureFixture[str]) -> None:
    """A wrong --to lists the formats and their aliases in its one error line."""
    assert main(["convert", "--from", "canonical", "--to", "claude", "x"]) == 2
    line = _one_error(capsys.readouterr().err)
    for alias in ADAPTER_ALIASES:
        assert repr(alias) in line


# -- the command ------------------------------------------------------------------------------

WIRE_FORMATS = ["anthropic", "openai-chat"]
HOSTILE_BODIES = {
    "number": b"42",
    "null": b"null",
    "string": b'"a string"',
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "truncated": b'{"model": "x", "messages": [{"role": "user", "content": "hi"',
    "not_utf8": b'{"model": "\xff\xfe"}',
    "usage_string": json.dumps({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
        "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn", "usage": "lots",
    }).encode(),
}


def _one_error_line(err: str, name: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"partwire: error: {name}"), err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize(
    ("source", "body"),
    [
        pytest.param(source, body)
        for source in WIRE_FORMATS
        for body in sorted(HOSTILE_BODIES)
    ],
)
def test_convert_hostile_body_is_one_error_line_and_exit_2(
    source: str, body: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`convert --from WIRE --to canonical` on a hostile body prints one `partwire: error: FILE: ...` line, exit 2."""
    path = tmp_path / "body.json"
    path.write_bytes(HOSTILE_BODIES[body])
    assert main(["convert", "--from", source, "--to", "canonical", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    line = _one_error_line(err, str(path))
    assert "internal error" not in line


@pytest.mark.parametrize("source", [f for f in FORMATS if f != "canonical"])
@pytest.mark.parametrize(("body", "says"), [("number", "a JSON number"), ("null", "a JSON null"),
                                            ("string", "a JSON string"), ("deep", "--max-depth"),
                                            ("not_utf8", "not UTF-8"), ("truncated", "not a JSON body")])
def test_every_wire_format_refuses_a_body_that_is_no_object_before_its_adapter(
    source: str, body: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """For every wire format, a body that is not a JSON object or array is refused by the command itself."""
    path = tmp_path / "body.json"
    path.write_bytes(HOSTILE_BODIES[body])
    assert main(["convert", "--from", source, "--to", "canonical", str(path)]) == 2
    assert says in _one_error_line(capsys.readouterr().err, str(path))


def test_convert_deep_body_names_the_depth_limit_and_it_can_be_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A body nested 300 deep is refused naming --max-depth; with --max-depth 400 it is read."""
    deep: Any = "x"
    for _ in range(300):
        deep = {"a": deep}
    body = {"model": "claude-sonnet-4-6", "max_tokens": 10, "metadata": {"user_id": "u"},
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "x_deep": deep}]}]}
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(body))
    assert main(["convert", "--from", "anthropic", "--to", "canonical", str(path)]) == 2
    assert "--max-depth" in _one_error_line(capsys.readouterr().err, str(path))
    status = main(["convert", "--max-depth", "400", "--from", "anthropic", "--to", "canonical", str(path)])
    assert status != 2 or "nested deeper" not in capsys.readouterr().err


def test_convert_large_body_names_the_size_limit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A body above --max-line-bytes is refused with its size and the option that raises the limit."""
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"model": "m", "messages": [{"role": "user", "content": "x" * 5000}]}))
    assert main(["convert", "--max-line-bytes", "1000", "--from", "anthropic", "--to", "canonical",
                 str(path)]) == 2
    line = _one_error_line(capsys.readouterr().err, str(path))
    assert "1,000 bytes" in line
    assert "--max-line-bytes" in line


@pytest.mark.parametrize("data", [b"\xff\xfe\x00garbage\n", b"[" * 50_000 + b"\n", b"42\n"])
def test_convert_from_damaged_canonical_names_file_and_line(
    data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A damaged canonical history gives `partwire: error: FILE:LINE: ...` and exit 2."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()[:1]) + data)
    assert main(["convert", "--from", "canonical", "--to", "anthropic", "--model", "anthropic:claude-sonnet-4-6",
                 str(path)]) == 2
    _one_error_line(capsys.readouterr().err, f"{path}:2")


def test_bug_in_partwire_is_one_line_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A non-partwire exception reaching main() is named in one line, exit 2."""
    import partwire.convert

    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("oops")

    monkeypatch.setattr(partwire.convert, "convert", broken)
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()))
    assert main(["convert", "--from", "canonical", "--to", "anthropic", str(path)]) == 2
    line = _one_error_line(capsys.readouterr().err, "internal error")
    assert "KeyError" in line


@pytest.mark.parametrize("data", [bytes(range(256)) * 8, b"[" * 100_000 + b"]" * 100_000 + b"\n"])
def test_show_exits_1_on_unreadable_lines(data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`show` on random bytes or deeply nested JSON renders what it can and exits 1, not 0."""
    path = tmp_path / "junk.jsonl"
    path.write_bytes(dumps(example_history()[:1]) + data)
    assert main(["show", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("* task: ")  # the first line, rendered before the junk
    assert err
    assert "Traceback" not in err


def test_validate_and_show_report_a_too_long_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A line over --max-line-bytes is a problem at its line number for validate and show (exit 1)."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()))
    for command in ("validate", "show"):
        assert main([command, "--max-line-bytes", "200", str(path)]) == 1
        out, err = capsys.readouterr()
        assert f"{path}:1: line of " in out + err
        assert "--max-line-bytes" in out + err


def _piped(command: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = f"set -o pipefail; {shlex.quote(sys.executable)} -m partwire {command} | head -c 10 >/dev/null"
    return subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, check=False)


def _big_history(tmp_path: Path, *, damaged: bool) -> Path:
    path = tmp_path / "big.jsonl"
    lines = dumps(example_history() * 40)
    path.write_bytes(lines + (b"{torn" if damaged else b""))
    return path


@pytest.mark.parametrize(
    ("command", "damaged", "status"),
    [
        ("validate big.jsonl", True, 1),
        ("show big.jsonl", True, 1),
        ("show big.jsonl", False, 0),
        ("rewrite big.jsonl -", False, 0),
        ("example", False, 0),
        ("schema", False, 0),
    ],
)
def test_exit_status_survives_a_closed_pipe(command: str, damaged: bool, status: int, tmp_path: Path) -> None:
    """`partwire CMD | head` keeps CMD's own exit status and prints no traceback when head closes early."""
    _big_history(tmp_path, damaged=damaged)
    if command.startswith("validate"):
        (tmp_path / "big.jsonl").write_bytes(b"{torn\n" * 20_000)
    result = _piped(command, tmp_path)
    assert result.returncode == status, result.stderr[-500:]
    assert "Traceback" not in result.stderr
    assert "Exception ignored" not in result.stderr


def test_program_prints_no_traceback_on_deep_body(tmp_path: Path) -> None:
    """As a program, converting 100,000 nested brackets prints one error line and exits 2."""
    (tmp_path / "deep.json").write_bytes(HOSTILE_BODIES["deep"])
    result = subprocess.run(
        [sys.executable, "-m", "partwire", "convert", "--from", "anthropic", "--to", "canonical", "deep.json"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )
    assert result.returncode == 2
    _one_error_line(result.stderr, "deep.json")


def test_rewrite_command_refuses_a_too_long_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`partwire rewrite --max-line-bytes` on a longer line is one FILE:LINE error, exit 2, OUT untouched."""
    src = tmp_path / "h.jsonl"
    src.write_bytes(dumps(example_history()))
    before = src.read_bytes()
    assert main(["rewrite", "--max-line-bytes", "300", str(src), str(src)]) == 2
    line = _one_error_line(capsys.readouterr().err, f"{src}:2")  # line 1 is short enough
    assert "--max-line-bytes" in line
    assert src.read_bytes() == before
