"""The ``partwire`` command under issue #24's hostile input: lone surrogates, damaged stores, closed
standard streams, bodies of another API, bad options and every adapter alias. Each is exit 0 with
the right output, or one ``partwire: error:`` line and exit 2; never "internal error"."""

from __future__ import annotations

import json
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from partwire.adapters import ADAPTER_ALIASES
from partwire.cli import main
from partwire.cli._example import example_history
from partwire.codec import dumps, loads
from tests.test_hardening import SURROGATE_LINES

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
