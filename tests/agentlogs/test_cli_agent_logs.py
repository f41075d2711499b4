"""The command line takes agent session files: ``show``, ``convert`` and ``store import`` with
``--from claude-code|codex``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from partwire.cli import main
from tests.harness.validity import assert_valid_request

FILES = Path(__file__).parent / "files"
CLAUDE = FILES / "claude-code-session.built-from-public-descriptions.jsonl"
CODEX = FILES / "codex-rollout.built-from-codex-source.jsonl"


@pytest.mark.parametrize(("source", "path", "says"), [
    ("claude-code", CLAUDE, "-> call Bash"), ("codex", CODEX, "-> call shell")])
def test_show_reads_a_session_file(source: str, path: Path, says: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """`show --from` prints the imported session as a transcript, unknown lines named as kept."""
    assert main(["show", "--from", source, str(path)]) == 0
    out = capsys.readouterr().out
    assert says in out
    assert "kept verbatim" in out


MODELS = {"anthropic": "anthropic:claude-sonnet-4-6", "openai-chat": "openai:gpt-5",
          "openai-responses": "openai:gpt-5", "google": "google:gemini-2.5-pro",
          "bedrock": "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0"}


@pytest.mark.parametrize("target", sorted(MODELS))
@pytest.mark.parametrize(("source", "path"), [("claude-code", CLAUDE), ("codex", CODEX)],
                         ids=["claude-code", "codex"])
def test_convert_a_session_file_to_every_adapter(source: str, path: Path, target: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """`convert --from claude-code|codex --to <api>` writes a request body the target SDK's own
    validator accepts, with no complaint; losses go to stderr."""
    assert main(["convert", "--from", source, "--to", target, "--model", MODELS[target],
                 str(path)]) == 0
    out, err = capsys.readouterr()
    api = target.replace("-", "_")
    assert_valid_request(api, json.loads(out))
    if api != ("anthropic" if source == "claude-code" else "openai_responses"):
        assert f"loss: {api}:" in err  # the other provider's reasoning state is not sent


def test_store_import_takes_session_files_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`store import --from codex` stores the session under Codex's own session id; again adds nothing."""
    db = str(tmp_path / "s.sqlite")
    assert main(["store", "--db", db, "import", "--from", "codex", str(CODEX)]) == 0
    assert main(["store", "--db", db, "import", "--from", "codex", str(CODEX)]) == 0
    first, second = capsys.readouterr().out.splitlines()
    assert "session 0199a7c4-3f1e-7b20-9c41-5e6f7a8b9c0d: 24 event(s) added, 0 already stored" in first
    assert "0 event(s) added, 24 already stored" in second
    assert main(["store", "--db", db, "show", "0199a7c4-3f1e-7b20-9c41-5e6f7a8b9c0d"]) == 0
    assert "No, that was all." in capsys.readouterr().out


def test_a_file_of_the_wrong_kind_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A session file that is not UTF-8 gives one `partwire: error:` line and exit status 2."""
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"\xff\xfe\n")
    assert main(["show", "--from", "claude-code", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("partwire: error:")
    assert "not UTF-8" in err[0]
