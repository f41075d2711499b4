"""What ``convert`` takes and how it explains a refusal, from Python and from ``partwire convert``:
the model (defaulted, refused by keyword), histories that validate after two providers, empty
histories, tool definitions of any known shape, losses as they are printed, and adapter options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from partwire import AssistantMessage, HistoryEvent, ToolCallPart, ToolMessage, UserMessage
from partwire.cli import main
from partwire.cli._example import example_history
from partwire.codec import dumps, loads
from partwire.convert import convert, read_tools
from partwire.errors import ConversionError, LossError
from partwire.history import TaskMetadataEvent
from partwire.tools import ToolDefinition

LS = ToolDefinition(name="ls", description="List files.", side_effects="read",
                    input_schema={"type": "object", "properties": {"path": {"type": "string"}}})
CANONICAL_TOOLS = [LS.model_dump(mode="json")]
ANTHROPIC_TOOLS = [{"name": "ls", "description": "List files.", "input_schema": LS.input_schema}]
OPENAI_TOOLS = [{"type": "function", "function": {"name": "ls", "description": "List files.",
                                                  "parameters": LS.input_schema}}]


def _history(model: str = "anthropic:claude-sonnet-4-6") -> list[HistoryEvent]:
    call = ToolCallPart.create("ls", {"path": "."})
    provider = model.partition(":")[0]
    return [
        UserMessage("list the files"),
        AssistantMessage([call], model=model, provider=provider, stop_reason="tool_use"),
        ToolMessage("a.txt b.txt", call_id=call.id, tool_name="ls"),
        AssistantMessage("Two files.", model=model, provider=provider, stop_reason="stop"),
    ]


@pytest.fixture
def history_file(tmp_path: Path) -> Path:
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(_history()))
    return path


def _convert(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["convert", *argv])
    out, err = capsys.readouterr()
    return status, out, err


# -- the model --------------------------------------------------------------------------------


def test_model_defaults_to_the_last_assistant_model_the_target_serves(
    history_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --model, an Anthropic history converts to Anthropic with its own model."""
    status, out, _ = _convert(capsys, "--from", "canonical", "--to", "anthropic", "--tools",
                              str(_write(history_file.parent / "t.json", CANONICAL_TOOLS)), str(history_file))
    assert status == 0
    assert json.loads(out)["model"] == "claude-sonnet-4-6"


def test_missing_model_names_the_command_line_option(history_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--to openai-chat of an Anthropic history without --model says to pass --model, not the Python keyword."""
    status, out, err = _convert(capsys, "--from", "canonical", "--to", "openai-chat", str(history_file))
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "--model" in err
    assert "model=" not in err
    assert "anthropic:claude-sonnet-4-6" in err  # what the history has


@pytest.mark.parametrize("model", ["gpt-5.5", "openai:gpt-5.5", "gpt-5"])
def test_model_of_another_provider_is_refused(
    model: str, history_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--to anthropic --model <an OpenAI model> is refused naming --model, and no body is written."""
    status, out, err = _convert(capsys, "--from", "canonical", "--to", "anthropic", "--model", model,
                                str(history_file))
    assert status == 2
    assert out == ""
    assert "--model" in err
    assert "openai" in err


def test_model_refusal_in_python_names_the_keyword() -> None:
    """convert() raises ConversionError whose option is 'model' and whose text says model=."""
    with pytest.raises(ConversionError, match=r"pass model=") as info:
        convert(_history(), source="canonical", target="anthropic", model="openai:gpt-5")
    assert info.value.option == "model"


def test_aggregator_dialect_takes_any_model_name() -> None:
    """With the OpenRouter dialect a bare name of any family is not refused."""
    request, _ = convert(_history(), source="canonical", target="openai-chat", model="anthropic/claude-sonnet-4.6",
                         options={"dialect": "openrouter"})
    assert request["model"] == "anthropic/claude-sonnet-4.6"


# -- a converted history validates ------------------------------------------------------------


def test_round_trip_through_two_providers_validates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """canonical -> openai-chat -> anthropic -> canonical gives a history `partwire validate` accepts."""
    start = tmp_path / "h.jsonl"
    start.write_bytes(dumps(example_history()))
    status, out, _ = _convert(capsys, "--from", "canonical", "--to", "openai-chat", "--model", "openai:gpt-5",
                              str(start))
    assert status == 0
    chat = _write_text(tmp_path / "chat.json", out)
    status, out, _ = _convert(capsys, "--from", "openai-chat", "--to", "anthropic", "--model",
                              "anthropic:claude-sonnet-4-6", str(chat))
    assert status == 0
    body = _write_text(tmp_path / "anthropic.json", out)
    status, out, _ = _convert(capsys, "--from", "anthropic", "--to", "canonical", str(body))
    assert status == 0
    back = _write_text(tmp_path / "back.jsonl", out)
    assert main(["validate", str(back)]) == 0, capsys.readouterr().out
    answers = [e for e in loads(back.read_bytes()) if isinstance(e, AssistantMessage)]
    assert answers
    assert {(a.provider, a.model, a.api) for a in answers} == {
        ("anthropic", "anthropic:claude-sonnet-4-6", "anthropic")
    }


def test_imported_request_keeps_provenance_it_already_has() -> None:
    """Filling provider and model leaves messages that name theirs alone; a bare log takes model=."""
    log = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    output, _ = convert(log, source="openai-chat", target="canonical", model="openai:gpt-5")
    (answer,) = [e for e in loads(output) if isinstance(e, AssistantMessage)]
    assert (answer.provider, answer.model, answer.api) == ("openai", "openai:gpt-5", "openai_chat")
    body = {"model": "deepseek-chat", "messages": log}
    output, _ = convert(body, source="openai-chat", target="canonical", options={"dialect": "deepseek"})
    (answer,) = [e for e in loads(output) if isinstance(e, AssistantMessage)]
    assert (answer.provider, answer.model) == ("deepseek", "deepseek:deepseek-chat")


# -- empty histories --------------------------------------------------------------------------


@pytest.mark.parametrize("events", [[], [TaskMetadataEvent(title="nothing yet")]])
def test_empty_history_is_refused(
    events: list[HistoryEvent], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A history with no message is refused with a clear line instead of an empty `messages` list."""
    path = tmp_path / "empty.jsonl"
    path.write_bytes(dumps(events))
    status, out, err = _convert(capsys, "--from", "canonical", "--to", "anthropic", "--model",
                                "anthropic:claude-sonnet-4-6", str(path))
    assert status == 2
    assert out == ""
    assert "no messages" in err


# -- tools ------------------------------------------------------------------------------------


def _write(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value))
    return path


def _write_text(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize("tools", [CANONICAL_TOOLS, ANTHROPIC_TOOLS, OPENAI_TOOLS, {"tools": OPENAI_TOOLS}],
                         ids=["canonical", "anthropic", "openai-chat", "request-body"])
@pytest.mark.parametrize("target", ["anthropic", "openai-chat"])
def test_tools_file_of_any_known_shape_is_offered(
    tools: Any, target: str, history_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--tools takes canonical definitions or a provider's own array, detected, and the body offers them."""
    path = _write(history_file.parent / "tools.json", tools)
    status, out, err = _convert(capsys, "--from", "canonical", "--to", target, "--model",
                                "anthropic:claude-sonnet-4-6" if target == "anthropic" else "openai:gpt-5",
                                "--tools", str(path), str(history_file))
    assert status == 0, err
    offered = json.loads(out)["tools"]
    assert len(offered) == 1
    assert json.dumps(offered).count('"ls"') == 1
    assert "definition of the tool" not in err


def test_tools_keyword_of_convert_takes_definitions() -> None:
    """convert(tools=...) offers canonical definitions and a provider's own dicts alike."""
    for tools in ([LS], ANTHROPIC_TOOLS):
        request, losses = convert(_history(), source="canonical", target="anthropic", tools=tools)
        assert [t["name"] for t in request["tools"]] == ["ls"]
        assert not [loss for loss in losses if "definition of the tool" in loss.reason]


def test_unknown_tool_shape_is_refused(history_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A tools file whose entries have no known shape is one error line naming the entry."""
    path = _write(history_file.parent / "tools.json", [{"functionDeclarations": []}])
    status, _, err = _convert(capsys, "--from", "canonical", "--to", "anthropic", "--tools", str(path),
                              str(history_file))
    assert status == 2
    assert err.startswith(f"partwire: error: {path}: tools[0]")
    with pytest.raises(ConversionError, match="tools must be a list"):
        read_tools(42)


def test_tool_calls_without_definitions_are_a_loss(history_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A history that calls `ls` with no definition of it is reported as a loss for Anthropic, and refused by --strict."""
    status, out, err = _convert(capsys, "--from", "canonical", "--to", "anthropic", str(history_file))
    assert status == 0
    assert "tools" not in json.loads(out)
    (line,) = [line for line in err.splitlines() if "definition of the tool" in line]
    assert "(tool_call) downgraded" in line  # the call was sent: it is the request that lacks
    assert "ls" in line
    assert "--tools" in line
    status, out, _ = _convert(capsys, "--strict", "--from", "canonical", "--to", "anthropic", str(history_file))
    assert status == 1
    assert out == ""
    with pytest.raises(LossError, match="no definition"):
        convert(_history(), source="canonical", target="anthropic", strict=True)


# -- losses, logging --------------------------------------------------------------------------


def test_losses_print_as_str_of_loss_everywhere(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The command's loss lines are exactly `loss: ` + str(Loss) of what convert() returns."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()))
    _, losses = convert(path.read_bytes(), source="canonical", target="anthropic")
    status, _, err = _convert(capsys, "--from", "canonical", "--to", "anthropic", str(path))
    assert status == 0
    assert err.splitlines() == [f"loss: {loss}" for loss in losses]
    error = LossError(losses, "anthropic")
    assert str(losses[0]) in str(error)


def test_verbose_shows_structured_warning_records(history_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`partwire -v convert` prints each loss's WARNING record with its structured fields."""
    assert main(["-v", "convert", "--from", "canonical", "--to", "anthropic", str(history_file)]) == 0
    err = capsys.readouterr().err
    records = [line for line in err.splitlines() if line.startswith("WARNING partwire.")]
    assert records, err
    fields = json.loads(records[0][records[0].index("{"):])
    assert fields["loss_action"] == "downgraded"
    assert fields["part_type"] == "tool_call"
    assert main(["convert", "--from", "canonical", "--to", "anthropic", str(history_file)]) == 0
    assert "WARNING" not in capsys.readouterr().err


# -- options ----------------------------------------------------------------------------------


def test_option_reaches_the_adapter(history_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--option dialect=deepseek changes the body the OpenAI Chat adapter writes."""
    base = ["--from", "canonical", "--to", "openai-chat", "--model", "openai:gpt-5", "--max-depth", "200"]
    status, plain, _ = _convert(capsys, *base, str(history_file))
    assert status == 0
    status, deepseek, err = _convert(capsys, "--from", "canonical", "--to", "openai-chat", "--model",
                                     "deepseek:deepseek-chat", "--option", "dialect=deepseek", str(history_file))
    assert status == 0, err
    assert json.loads(deepseek)["model"] == "deepseek-chat"
    assert json.loads(plain)["model"] == "gpt-5"


def test_unknown_option_is_one_clear_line(history_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An option no adapter of the conversion has is refused, naming it and the options there are."""
    status, _, err = _convert(capsys, "--from", "canonical", "--to", "openai-chat", "--model", "openai:gpt-5",
                              "--option", "colour=blue", str(history_file))
    assert status == 2
    assert "colour" in err
    assert "dialect" in err
    assert main(["convert", "--option", "novalue", "--from", "canonical", "--to", "anthropic", "x"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err


def test_options_keyword_of_convert() -> None:
    """convert(options=...) passes adapter options through, as the command's --option does."""
    request, _ = convert(_history("deepseek:deepseek-chat"), source="canonical", target="openai-chat",
                         options={"dialect": "deepseek"})
    assert request["model"] == "deepseek-chat"
