"""The chat-UI formats in ``convert`` and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from partwire import AssistantMessage, TextPart, UserMessage
from partwire.cli import main
from partwire.codec import dumps
from partwire.convert import convert
from partwire.history import HistoryEvent


def test_convert_writes_and_reads_ui_messages() -> None:
    """A canonical history goes to UI messages and comes back to an Anthropic request."""
    history = [UserMessage("hi"), AssistantMessage(parts=[TextPart(text="hello")],
                                                   model="anthropic:claude-sonnet-4-6")]
    ui, losses = convert(history, source="canonical", target="ai-sdk-ui")
    assert [m["role"] for m in ui] == ["user", "assistant"]
    assert losses == ()
    request, _ = convert(ui, source="ai-sdk-ui", target="anthropic")
    assert [m["role"] for m in request["messages"]] == ["user", "assistant"]
    assert request["model"] == "claude-sonnet-4-6"


def test_cli_converts_a_request_body_to_ui_messages(tmp_path: Path, capsys: object) -> None:
    """``partwire convert --to ai-sdk-ui`` prints the UI messages of a request body."""
    body = tmp_path / "request.json"
    body.write_text(json.dumps({"model": "claude-sonnet-4-6", "max_tokens": 10,
                                "messages": [{"role": "user", "content": "hi"}]}))
    assert main(["convert", "--from", "anthropic", "--to", "ai-sdk-ui", str(body)]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    [message] = json.loads(out)
    assert message["parts"] == [{"type": "text", "text": "hi", "state": "done"}]


def test_cli_reads_ui_messages_to_canonical(tmp_path: Path, capsys: object) -> None:
    """``partwire convert --from ai-sdk-ui --to canonical`` writes the history as JSONL."""
    ui = [{"id": "m1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}]
    path = tmp_path / "ui.json"
    path.write_text(json.dumps(ui))
    assert main(["convert", "--from", "ai-sdk-ui", "--to", "canonical", str(path)]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert out.encode() == dumps([UserMessage(id="m1", parts=[TextPart(text="hi")],
                                              created_at=json.loads(out)["created_at"])])


def test_convert_takes_ag_ui_both_ways() -> None:
    """``convert`` writes AG-UI messages and reads them back to the same history."""
    history: list[HistoryEvent] = [UserMessage("hi"), AssistantMessage(parts=[TextPart(text="hello")])]
    messages, losses = convert(history, source="canonical", target="ag-ui")
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert losses == ()
    again, _ = convert(messages, source="ag-ui", target="canonical")
    assert again == dumps(history)
