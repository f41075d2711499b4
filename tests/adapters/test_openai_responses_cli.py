"""``partwire convert`` to and from the Responses format, through the CLI's own entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from partwire.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "harness" / "responses" / "openai_responses" / "wire_examples"


def test_convert_from_responses_to_anthropic(capsys: pytest.CaptureFixture[str]) -> None:
    """D(d2) converts to an Anthropic request: instructions as system, reasoning dropped as a loss."""
    path = EXAMPLES / "resp_req_d2.json"
    assert main(["convert", "--from", "openai-responses", "--to", "anthropic",
                 "--model", "anthropic:claude-sonnet-4-6", str(path)]) == 0
    out, err = capsys.readouterr()
    body = json.loads(out)
    assert body["system"] == "You are a weather assistant."
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert "(thinking) dropped" in err


def test_convert_to_responses_from_responses_is_the_same_body(capsys: pytest.CaptureFixture[str]) -> None:
    """A Responses request converted to Responses comes back as it was (the import law, from the CLI)."""
    path = EXAMPLES / "resp_req_d2.json"
    assert main(["convert", "--from", "openai-responses", "--to", "openai-responses", str(path)]) == 0
    out, _ = capsys.readouterr()
    assert json.loads(out) == json.loads(path.read_text(encoding="utf-8"))


def test_convert_canonical_to_responses_with_an_option(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A canonical history converts to a Responses request; --option picks the continuation mode."""
    history = tmp_path / "h.jsonl"
    assert main(["convert", "--from", "openai-responses", "--to", "canonical",
                 str(EXAMPLES / "resp_req_d.json")]) == 0
    history.write_text(capsys.readouterr()[0], encoding="utf-8")
    assert main(["convert", "--from", "canonical", "--to", "openai-responses", "--model", "openai:gpt-5.5",
                 "--option", "continuation=chained", str(history)]) == 0
    body = json.loads(capsys.readouterr()[0])
    assert body["instructions"] == "You are a weather assistant."
    assert "store" not in body
    assert body["include"] == ["reasoning.encrypted_content"]
