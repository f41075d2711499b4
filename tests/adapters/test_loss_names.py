"""Losses name what happened to which element (issue: Bedrock's strict flag, undefined tools)."""

from __future__ import annotations

from pathlib import Path

import pytest

from partwire import UserMessage
from partwire.adapters import bedrock
from partwire.cli import main
from partwire.cli._example import example_history
from partwire.codec import dumps
from partwire.settings import JsonSchemaOutput, RequestSettings


def test_bedrock_names_only_the_strict_flag_when_the_schema_is_sent() -> None:
    """A strict JSON schema output goes out in outputConfig; only its strict flag is a loss."""
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    settings = RequestSettings(output_format=JsonSchemaOutput(json_schema=schema, name="out", strict=True))
    projection = bedrock.to_wire([UserMessage("hi")], model="anthropic.claude-sonnet-4-5", settings=settings)
    assert projection.request["outputConfig"]["textFormat"]["type"] == "json_schema"
    assert [(x.path, x.action) for x in projection.losses] == [("request.settings.output_format.strict", "dropped")]


def test_the_readme_example_names_no_sent_call_as_a_dropped_definition(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The README's first command reports its undefined tools on the calls, as sent but lacking
    their definitions, never as a ``tool_definition`` dropped at a tool call's path."""
    path = tmp_path / "example.jsonl"
    path.write_bytes(dumps(example_history()))
    assert main(["convert", "--from", "canonical", "--to", "anthropic", str(path)]) == 0
    err = capsys.readouterr().err
    assert "(tool_definition) dropped" not in err
    assert "history[6].parts[3] (tool_call) downgraded" in err
