"""`partwire convert --to otel-genai` and `--from otel-genai`."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from partwire import otel
from partwire.cli import main
from partwire.cli._example import example_history
from partwire.codec import dumps, loads


def test_the_example_converts_to_attributes_that_validate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The bundled example becomes GenAI attributes valid by the vendored schemas; losses on stderr."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()))
    assert main(["convert", "--from", "canonical", "--to", "otel-genai", str(path)]) == 0
    out, err = capsys.readouterr()
    attributes = json.loads(out)
    for name in ("gen_ai.system_instructions", "gen_ai.input.messages"):
        jsonschema.validate(attributes[name], otel.schema(name))
    assert "loss: otel_genai: history[6].parts[0] (thinking) dropped: the reasoning signature" in err


def test_attributes_convert_back_to_a_history(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A span's attributes (as JSON text, as spans hold them) become canonical JSONL."""
    attributes = {"gen_ai.provider.name": "openai", "gen_ai.response.model": "gpt-5",
                  "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [{"type": "text", "content": "hi"}]}]),
                  "gen_ai.output.messages": json.dumps([{"role": "assistant", "finish_reason": "stop",
                                                         "parts": [{"type": "text", "content": "hello"}]}])}
    path = tmp_path / "span.json"
    path.write_text(json.dumps({"name": "chat gpt-5", "attributes": attributes}))
    assert main(["convert", "--from", "otel-genai", "--to", "canonical", str(path)]) == 0
    user, answer = loads(capsys.readouterr().out.encode(), strict=True)
    assert (user.text, answer.text, answer.model, answer.stop_reason) == (  # type: ignore[union-attr]
        "hi", "hello", "openai:gpt-5", "stop")
