"""Claude Code session files and Codex rollout files import into histories that every adapter sends.

The files under ``files/`` are built from public descriptions of the formats (see
``files/README.md``), not recorded from the tools.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from partwire import (
    AssistantMessage,
    CompactionEvent,
    HistoryEvent,
    ModelSwitchEvent,
    SystemMessage,
    TaskMetadataEvent,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UnknownEvent,
    UserMessage,
    WireFormatError,
    validate_history,
)
from partwire.adapters import get_adapter
from partwire.bridges import claude_code, codex
from partwire.codec import dumps, loads
from partwire.convert import convert
from tests.harness.validity import assert_valid_request

FILES = Path(__file__).parent / "files"
CLAUDE = FILES / "claude-code-session.built-from-public-descriptions.jsonl"
CODEX = FILES / "codex-rollout.built-from-codex-source.jsonl"
MODELS = {"anthropic": "anthropic:claude-sonnet-4-6", "openai_chat": "openai:gpt-5",
          "openai_responses": "openai:gpt-5", "google": "google:gemini-2.5-pro",
          "bedrock": "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0"}


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _calls(history: list[HistoryEvent]) -> dict[str, ToolCallPart]:
    return {p.id: p for e in history if isinstance(e, AssistantMessage) for p in e.parts
            if isinstance(p, ToolCallPart)}


def test_a_claude_code_session_imports() -> None:
    """User and assistant lines become messages (a response streamed over three lines one
    message), tool results point at their calls, other lines are kept as they were."""
    history = claude_code.read_file(CLAUDE)
    assert validate_history(history) == []
    kinds = [type(e).__name__ for e in history]
    assert kinds == ["TaskMetadataEvent", "TaskMetadataEvent", "UserMessage", "AssistantMessage", "ToolMessage",
                     "UnknownEvent", "AssistantMessage", "ToolMessage", "UnknownEvent", "UserMessage",
                     "AssistantMessage", "UnknownEvent"]
    session, summary = history[0], history[1]
    assert isinstance(session, TaskMetadataEvent)
    assert session.task_id == "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"
    assert isinstance(summary, TaskMetadataEvent)
    assert summary.title == "Fix the failing parser test"
    first = history[3]
    assert isinstance(first, AssistantMessage)
    assert [p.type for p in first.parts] == ["thinking", "text", "tool_call"]
    thinking = first.parts[0]
    assert isinstance(thinking, ThinkingPart)
    assert thinking.signature is not None
    assert (thinking.signature.issuer, thinking.signature.value) == ("anthropic", "EqQBCkYIBxgCKkBmZXRjaA")
    assert (first.model, first.stop_reason, first.response_id) == (
        "anthropic:claude-sonnet-4-5-20250929", "tool_use", "msg_01Parser")
    assert first.usage is not None
    assert (first.usage.input_tokens, first.usage.cache_read_tokens, first.usage.output_tokens) == (12292, 11800, 96)
    assert first.parent_id == history[2].id
    calls = _calls(history)
    for event in history:
        if isinstance(event, ToolMessage):
            assert calls[event.call_id].name == event.tool_name
    tool = history[4]
    assert isinstance(tool, ToolMessage)
    assert tool.output_text == "F\n1 failed: test_parse_empty - IndexError"
    assert tool.metadata["claude_code"]["toolUseResult"]["stdout"] == tool.output_text  # type: ignore[index,call-overload]
    raw = _lines(CLAUDE)
    unknown = [e for e in history if isinstance(e, UnknownEvent)]
    assert [e.raw for e in unknown] == [raw[6], raw[9], raw[12]]  # snapshot, system line, sidechain


def test_a_codex_rollout_imports() -> None:
    """Response items become messages with the turn's model and the token count's usage;
    session_meta, compacted and a model change become their events; event lines are kept."""
    history = codex.read_file(CODEX)
    assert validate_history(history) == []
    meta, system = history[0], history[1]
    assert isinstance(meta, TaskMetadataEvent)
    assert meta.task_id == "0199a7c4-3f1e-7b20-9c41-5e6f7a8b9c0d"
    assert isinstance(system, SystemMessage)
    assert system.text.startswith("You are Codex")
    assistants = [e for e in history if isinstance(e, AssistantMessage)]
    assert [(a.model, a.usage.input_tokens if a.usage else None) for a in assistants] == [
        ("openai:gpt-5-codex", 5200), ("openai:gpt-5-codex", 5500), ("openai:gpt-5-codex", 5700),
        ("openai:gpt-5.1-codex", 600)]
    reasoning = assistants[0].parts[0]
    assert isinstance(reasoning, ThinkingPart)
    assert reasoning.signature is not None
    assert reasoning.signature.value == "gAAAAABo_reasoning_state_1"
    assert assistants[0].usage is not None
    assert (assistants[0].usage.cache_read_tokens, assistants[0].usage.reasoning_tokens) == (3072, 128)
    assert [p.type for p in assistants[2].parts] == ["text"]
    calls = _calls(history)
    tools = [e for e in history if isinstance(e, ToolMessage)]
    assert [(calls[t.call_id].name, t.tool_name) for t in tools] == [("shell", "shell"), ("apply_patch", "apply_patch")]
    compaction = next(e for e in history if isinstance(e, CompactionEvent))
    assert compaction.summary.startswith("The user asked")
    switch = next(e for e in history if isinstance(e, ModelSwitchEvent))
    assert (switch.from_model, switch.to_model) == ("openai:gpt-5-codex", "openai:gpt-5.1-codex")
    # Event lines, turn contexts and the undo snapshot (no Responses item) are kept whole, each once.
    raw = _lines(CODEX)
    kept = [e.raw for e in history if isinstance(e, UnknownEvent)]
    expected = [r for r in raw if r["type"] in ("event_msg", "turn_context")
                or r["payload"].get("type") == "ghost_snapshot"]
    assert sorted(map(json.dumps, kept)) == sorted(map(json.dumps, expected))


@pytest.mark.parametrize(("reader", "path"), [(claude_code.read_dump, CLAUDE), (codex.read_dump, CODEX)],
                         ids=["claude-code", "codex"])
def test_importing_twice_gives_the_same_history(reader: Any, path: Path) -> None:
    """Ids and times come from the file: two imports dump to the same bytes, which load back."""
    once, twice = reader(path.read_bytes()), reader(path.read_text())
    assert dumps(once) == dumps(twice)
    assert loads(dumps(once), strict=True) == once


@pytest.mark.parametrize("api", sorted(MODELS))
@pytest.mark.parametrize("path", [CLAUDE, CODEX], ids=["claude-code", "codex"])
def test_each_session_converts_to_every_adapter(api: str, path: Path) -> None:
    """Each imported session becomes a request body that the target SDK's own types accept."""
    source = "claude-code" if path == CLAUDE else "codex"
    body, losses = convert(path.read_bytes(), source=source, target=api.replace("_", "-"), model=MODELS[api],
                           tools=[{"name": name, "description": name, "input_schema": {"type": "object"}}
                                  for name in ("Bash", "Edit", "shell", "apply_patch")])
    assert_valid_request(api, body)
    assert body.get("messages") or body.get("input") or body.get("contents")
    if api != ("anthropic" if path == CLAUDE else "openai_responses"):
        assert losses  # the other provider's reasoning state is named, not sent
    again = get_adapter(api).from_wire_request(body)
    assert any(isinstance(e, UserMessage) for e in again.history)


def test_bad_files_are_kept_or_refused_plainly() -> None:
    """A line that is not JSON is kept as an unknown event; bytes that are not UTF-8 are refused."""
    history = codex.read_dump(b'{"timestamp":"2026-09-17T08:00:00Z","type":"event_msg","payload":{"type":"x"}}\nnot json\n')
    assert isinstance(history[1], UnknownEvent)
    assert history[1].raw == "not json"
    assert history[1].problem is not None
    assert "line 2" in history[1].problem
    with pytest.raises(WireFormatError, match="not UTF-8"):
        claude_code.read_dump(b"\xff\xfe")


def test_a_line_inside_a_streamed_response_follows_it() -> None:
    """A hook's system line between two lines of one response leaves the response one message."""
    def assistant(uuid: str, block: dict[str, Any]) -> dict[str, Any]:
        return {"type": "assistant", "uuid": uuid, "sessionId": "s", "timestamp": "2026-09-17T08:00:00Z",
                "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                            "content": [block], "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 1}}}
    system = {"type": "system", "uuid": "s1", "content": "hook ran", "timestamp": "2026-09-17T08:00:01Z"}
    history = claude_code.read_dump([
        {"type": "user", "uuid": "u1", "sessionId": "s", "timestamp": "2026-09-17T08:00:00Z",
         "message": {"role": "user", "content": "hi"}},
        assistant("a1", {"type": "text", "text": "Looking."}), system,
        assistant("a2", {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}),
    ])
    assert [type(e).__name__ for e in history] == ["TaskMetadataEvent", "UserMessage", "AssistantMessage", "UnknownEvent"]
    answer = history[2]
    assert isinstance(answer, AssistantMessage)
    assert [p.type for p in answer.parts] == ["text", "tool_call"]
    assert history[3].raw == system  # type: ignore[union-attr]
