"""Resuming goes on with the model the history last switched to, as docs/session.md promises."""

from __future__ import annotations

from pathlib import Path

from partwire import AssistantMessage, Session, TextPart, UserMessage
from partwire.codec import dump
from partwire.history import ModelSwitchEvent


def test_open_resumes_with_the_switched_model_not_the_replys_dated_id(tmp_path: Path) -> None:
    """After a switch to gpt-4.1 and a reply from gpt-4.1-2025-04-14, the target is gpt-4.1."""
    path = tmp_path / "s.jsonl"
    dump([UserMessage("hi"),
          AssistantMessage([TextPart(text="hello")], model="anthropic:claude-sonnet-4-6", api="anthropic"),
          ModelSwitchEvent(from_model="anthropic:claude-sonnet-4-6", to_model="openai:gpt-4.1",
                           metadata={"adapter": "openai_chat"}),
          UserMessage("again"),
          AssistantMessage([TextPart(text="hi again")], model="openai:gpt-4.1-2025-04-14", api="openai_chat")],
         path)
    session = Session.open(path)
    assert session.target.model == "gpt-4.1"
    assert session.target.adapter == "openai_chat"


def test_open_without_a_switch_takes_the_last_replys_model(tmp_path: Path) -> None:
    """With no switch in the history, the last assistant message's model is the target."""
    path = tmp_path / "s.jsonl"
    dump([UserMessage("hi"),
          AssistantMessage([TextPart(text="hello")], model="anthropic:claude-sonnet-4-6", api="anthropic")], path)
    assert Session.open(path).target.model == "claude-sonnet-4-6"
