"""`partwire convert`: canonical JSONL and wire bodies in both directions, losses on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from partwire import HistoryEvent, Opaque, UserMessage
from partwire.cli import main
from partwire.cli._example import example_history
from partwire.codec import dumps, loads
from partwire.messages import AssistantMessage, ToolMessage
from partwire.parts import ThinkingPart, ToolCallPart
from tests.harness.validity import assert_valid_request

# Request bodies of the Responses API's documentation, as the harness keeps them.
RESPONSES_EXAMPLES = (Path(__file__).resolve().parents[1] / "harness" / "responses" / "openai_responses"
                      / "wire_examples")


@pytest.fixture
def example_file(tmp_path: Path) -> Path:
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(example_history()))
    return path


def test_canonical_to_anthropic_gives_a_valid_request_and_names_every_loss(
    example_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The example becomes a request the SDK's types accept; what it cannot carry is on stderr, once."""
    assert main(["convert", "--from", "canonical", "--to", "anthropic", str(example_file)]) == 0
    out, err = capsys.readouterr()
    request = json.loads(out)
    assert_valid_request("anthropic", request)
    assert request["model"] == "claude-sonnet-4-6"
    losses = [line for line in err.splitlines() if line.startswith("loss: ")]
    assert losses, err
    assert len(losses) == len(err.splitlines())
    assert len(set(losses)) == len(losses)
    assert any("(audio) dropped" in line for line in losses)


def test_example_round_trips_through_anthropic(
    example_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """canonical -> anthropic -> canonical -> anthropic gives the same request the second time."""
    assert main(["convert", "--from", "canonical", "--to", "anthropic", str(example_file)]) == 0
    first = capsys.readouterr().out
    (tmp_path / "req.json").write_text(first)
    assert main(["convert", "--from", "anthropic", "--to", "canonical", str(tmp_path / "req.json")]) == 0
    back = capsys.readouterr().out
    history = loads(back.encode(), strict=True)
    assert any(isinstance(e, ToolMessage) for e in history)
    (tmp_path / "back.jsonl").write_text(back)
    assert main(["convert", "--from", "canonical", "--to", "anthropic", "--model", "anthropic:claude-sonnet-4-6",
                 str(tmp_path / "back.jsonl")]) == 0
    assert json.loads(capsys.readouterr().out)["messages"] == json.loads(first)["messages"]


def test_strict_refuses_any_loss(example_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """With --strict a lossy conversion exits 1 and lists what would have been lost."""
    assert main(["convert", "--strict", "--from", "canonical", "--to", "anthropic", str(example_file)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "refused by --strict" in err


def test_lossless_history_converts_with_no_loss(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Anthropic-issued thinking and tool calls, with their tool's definition, convert without a single loss."""
    call = ToolCallPart.create("ls", {"path": "."}, provider_ids={"anthropic": "toolu_01A"})
    history: list[HistoryEvent] = [
        UserMessage("list"),
        AssistantMessage(
            [ThinkingPart(text="t", signature=Opaque(value="sig", issuer="anthropic")), call],
            model="anthropic:claude-sonnet-4-6", provider="anthropic", stop_reason="tool_use",
        ),
        ToolMessage("a b", call_id=call.id, tool_name="ls"),
    ]
    path = tmp_path / "h.jsonl"
    path.write_bytes(dumps(history))
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"name": "ls", "description": "list files", "side_effects": "read",
                                  "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]))
    assert main(["convert", "--strict", "--tools", str(tools), "--from", "canonical", "--to", "anthropic",
                 str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    request = json.loads(out)
    assert request["messages"][1]["content"][1]["id"] == "toolu_01A"
    assert request["messages"][2]["content"][0]["tool_use_id"] == "toolu_01A"


def test_bad_input_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A body that is not JSON, or a missing model, is a one-line error with exit 2."""
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["convert", "--from", "anthropic", "--to", "canonical", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("partwire: error: ")
    assert "not a JSON body" in err
    assert len(err.splitlines()) == 1
    plain = tmp_path / "plain.jsonl"
    plain.write_bytes(dumps([UserMessage("hi")]))
    assert main(["convert", "--from", "canonical", "--to", "anthropic", str(plain)]) == 2
    assert "needs a model" in capsys.readouterr().err


CHAT_LOG = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "List the files."},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": '{"path": "."}'}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "a.py b.py"},
    {"role": "assistant", "content": "a.py and b.py"},
]


def test_a_stored_openai_chat_log_is_valid_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A JSON list of chat messages imports as a history whose tool message answers its call."""
    path = tmp_path / "log.json"
    path.write_text(json.dumps(CHAT_LOG))
    assert main(["convert", "--from", "openai-chat", "--to", "canonical", str(path)]) == 0
    history = loads(capsys.readouterr().out.encode(), strict=True)
    call = next(p for e in history if isinstance(e, AssistantMessage) for p in e.parts if isinstance(p, ToolCallPart))
    tool = next(e for e in history if isinstance(e, ToolMessage))
    assert tool.call_id == call.id
    assert call.provider_ids == {"openai": "call_1"}
    assert call.arguments_json == '{"path": "."}'


def test_openai_chat_log_to_anthropic_keeps_the_call_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Moving OpenAI calls to Anthropic keeps their ids, valid there, and pairs the results."""
    path = tmp_path / "log.json"
    path.write_text(json.dumps(CHAT_LOG))
    assert main(["convert", "--from", "openai-chat", "--to", "anthropic",
                 "--model", "anthropic:claude-sonnet-4-6", str(path)]) == 0
    out, err = capsys.readouterr()
    request = json.loads(out)
    assert_valid_request("anthropic", request)
    use = request["messages"][1]["content"][0]
    assert use["id"] == "call_1"
    assert request["messages"][2]["content"][0]["tool_use_id"] == use["id"]
    assert "id_mapped" not in err


def test_the_cli_reads_every_bridge_convert_reads() -> None:
    """``--from`` offers each library dump convert() can read, and only as a source."""
    from partwire import cli
    from partwire.convert import BRIDGES

    assert cli.BRIDGES == BRIDGES
    assert not set(BRIDGES) & set(cli.FORMATS)


def test_the_example_goes_to_bedrock_and_back_through_the_cli(
    example_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--to bedrock writes Converse's arguments as JSON (binary fields as base64) that botocore's
    validator accepts; --from bedrock reads them back, and the second trip gives the same body."""
    model = "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    assert main(["convert", "--from", "canonical", "--to", "bedrock", "--model", model,
                 str(example_file)]) == 0
    first = capsys.readouterr().out
    request = json.loads(first)
    assert request["modelId"] == "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    assert_valid_request("bedrock", request)
    (tmp_path / "req.json").write_text(first)
    assert main(["convert", "--from", "bedrock", "--to", "canonical", str(tmp_path / "req.json")]) == 0
    (tmp_path / "back.jsonl").write_text(capsys.readouterr().out)
    assert main(["convert", "--from", "canonical", "--to", "bedrock", "--model", model,
                 "--option", "blobs=base64", str(tmp_path / "back.jsonl")]) == 0
    assert json.loads(capsys.readouterr().out)["messages"] == request["messages"]


def test_settings_cross_and_the_command_line_sets_more(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A request's temperature and tool choice arrive in Gemini's own fields; --settings and
    --set add and override settings; a setting no API takes is one clear error naming it."""
    body = {"model": "gpt-4.1", "temperature": 0.3, "tool_choice": "required", "stop": "END",
            "tools": [{"type": "function", "function": {
                "name": "f", "description": "F.", "parameters": {"type": "object", "properties": {}}}}],
            "messages": [{"role": "user", "content": "hi"}]}
    (tmp_path / "req.json").write_text(json.dumps(body))
    (tmp_path / "settings.json").write_text(json.dumps({"seed": 7, "temperature": 1.5}))
    assert main(["convert", "--from", "openai-chat", "--to", "google", "--model", "google:gemini-2.5-flash",
                 "--settings", str(tmp_path / "settings.json"), "--set", "temperature=0.2",
                 "--set", "reasoning=low", str(tmp_path / "req.json")]) == 0
    out, err = capsys.readouterr()
    request = json.loads(out)
    assert_valid_request("google", request)
    assert request["generationConfig"] == {"temperature": 0.2, "stopSequences": ["END"], "seed": 7,
                                           "thinkingConfig": {"thinkingBudget": 1024}}
    assert request["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    assert "request.settings.reasoning (setting) rewritten" in err
    assert main(["convert", "--from", "openai-chat", "--to", "google", "--set", "temperature=9",
                 str(tmp_path / "req.json")]) == 2
    assert "settings.temperature" in capsys.readouterr().err


def test_convert_from_responses_to_anthropic(capsys: pytest.CaptureFixture[str]) -> None:
    """D(d2) converts to an Anthropic request: instructions as system, reasoning dropped as a loss."""
    path = RESPONSES_EXAMPLES / "resp_req_d2.json"
    assert main(["convert", "--from", "openai-responses", "--to", "anthropic",
                 "--model", "anthropic:claude-sonnet-4-6", str(path)]) == 0
    out, err = capsys.readouterr()
    body = json.loads(out)
    assert body["system"] == "You are a weather assistant."
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert "(thinking) dropped" in err


def test_convert_to_responses_from_responses_is_the_same_body(capsys: pytest.CaptureFixture[str]) -> None:
    """A Responses request converted to Responses comes back as it was (the import law, from the CLI)."""
    path = RESPONSES_EXAMPLES / "resp_req_d2.json"
    assert main(["convert", "--from", "openai-responses", "--to", "openai-responses", str(path)]) == 0
    out, _ = capsys.readouterr()
    assert json.loads(out) == json.loads(path.read_text(encoding="utf-8"))


def test_convert_canonical_to_responses_with_an_option(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A canonical history converts to a Responses request; --option picks the continuation mode."""
    history = tmp_path / "h.jsonl"
    assert main(["convert", "--from", "openai-responses", "--to", "canonical",
                 str(RESPONSES_EXAMPLES / "resp_req_d.json")]) == 0
    history.write_text(capsys.readouterr()[0], encoding="utf-8")
    assert main(["convert", "--from", "canonical", "--to", "openai-responses", "--model", "openai:gpt-5.5",
                 "--option", "continuation=chained", str(history)]) == 0
    body = json.loads(capsys.readouterr()[0])
    assert body["instructions"] == "You are a weather assistant."
    assert "store" not in body
    assert body["include"] == ["reasoning.encrypted_content"]


def test_the_example_goes_to_ollama_and_back_through_the_cli(
    example_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--to ollama writes the native chat body the ollama package's models accept (the developer
    role option taken from the command line); --from ollama reads it back, and the second trip
    gives the same body."""
    assert main(["convert", "--from", "canonical", "--to", "ollama", "--model", "ollama:qwen3:8b",
                 "--option", "developer_role=user", str(example_file)]) == 0
    first = capsys.readouterr().out
    request = json.loads(first)
    assert request["model"] == "qwen3:8b"
    assert "developer" not in {m["role"] for m in request["messages"]}
    assert_valid_request("ollama", request)
    (tmp_path / "req.json").write_text(first)
    assert main(["convert", "--from", "ollama", "--to", "canonical", str(tmp_path / "req.json")]) == 0
    (tmp_path / "back.jsonl").write_text(capsys.readouterr().out)
    assert main(["convert", "--from", "canonical", "--to", "ollama", "--model", "ollama:qwen3:8b",
                 str(tmp_path / "back.jsonl")]) == 0
    assert json.loads(capsys.readouterr().out)["messages"] == request["messages"]
