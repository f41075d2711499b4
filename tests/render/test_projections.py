"""The projection data of the HTML page: per turn and adapter, exactly what ``to_wire`` gives."""

from __future__ import annotations

import json
from typing import Any

import pytest

from partwire import AssistantMessage, CompactionEvent, HistoryEvent, ToolMessage, UserMessage
from partwire.adapters import ADAPTER_NAMES, get_adapter
from partwire.adapters._kernel import dry_run
from partwire.cli._example import example_history
from partwire.codec import context_messages
from partwire.render._projections import projection_data
from tests.benchmarks.agent_history import agent_history
from tests.render.decode import decode


def _compacted_twice() -> list[HistoryEvent]:
    """An agent history with two compactions, so the context restarts twice."""
    history = agent_history(120)
    first = CompactionEvent(summary="first summary " * 10, replaced_count=20)
    second = CompactionEvent(summary="second summary " * 10)
    return [*history[:50], first, *history[50:90], second, *history[90:]]


HISTORIES = {
    "example": example_history(),
    "agent": agent_history(160),
    "compacted": _compacted_twice(),
}


def _expected(history: list[HistoryEvent], event: int | None, name: str, model: str) -> Any:
    head, _, dialect = name.partition(":")
    context = context_messages(history if event is None else history[:event])
    with dry_run():
        projection = get_adapter(head).to_wire(context, model=model,
                                               options={"dialect": dialect} if dialect else None)
    return context, projection


@pytest.mark.parametrize("which", sorted(HISTORIES))
def test_every_turn_decodes_to_the_adapters_own_to_wire(which: str) -> None:
    """For every assistant turn and the next call, each adapter's decoded body equals its
    ``to_wire`` of the messages that call sends, and the losses are its losses, each pointing at
    the stored event it concerns."""
    history = HISTORIES[which]
    data = projection_data(history)
    assert data["adapters"] == list(ADAPTER_NAMES)
    turns = data["turns"]
    assert [t["event"] for t in turns[:-1]] == [i for i, e in enumerate(history) if isinstance(e, AssistantMessage)]
    assert turns[-1]["event"] is None
    for name in ADAPTER_NAMES:
        decoded = decode(data["bodies"][name], data["strings"])
        assert len(decoded) == len(turns)
        for turn, record, (body, losses) in zip(turns, data["bodies"][name], decoded, strict=True):
            context, projection = _expected(history, turn["event"], name, record["model"])
            assert json.dumps(body, sort_keys=True) == json.dumps(projection.request, sort_keys=True), (name, turn)
            assert [loss[1:4] for loss in losses] == [[x.part_type, x.action, x.reason] for x in projection.losses]
            for loss, original in zip(losses, projection.losses, strict=True):
                if loss[4] is None:
                    continue
                index = int(original.path.split("]")[0].removeprefix("history["))
                stored = history[loss[4]]
                compaction = context[index].metadata.get("compaction_id")
                assert stored.id == (compaction or context[index].id)
                assert loss[0].startswith(f"history[{loss[4]}]")


def test_long_strings_are_stored_once_for_every_adapter() -> None:
    """A long tool output that every adapter sends is written once in the data, not once per
    adapter and turn."""
    history = agent_history(80)
    output = next(e.output_text for e in history if isinstance(e, ToolMessage) and len(e.output_text) > 500)
    payload = json.dumps(projection_data(history), ensure_ascii=False)
    assert payload.count(json.dumps(output, ensure_ascii=False)[1:-1]) == 1


def test_a_string_that_looks_pooled_is_pooled_itself() -> None:
    """A short text that starts with NUL (the pool's mark) comes back as itself."""
    history: list[HistoryEvent] = [UserMessage("\x007"), AssistantMessage("ok", model="anthropic:claude-sonnet-4-6")]
    data = projection_data(history, ("anthropic",))
    body, _ = decode(data["bodies"]["anthropic"], data["strings"])[-1]
    assert body is not None
    assert body["messages"][0]["content"] == "\x007"


def test_a_turn_with_nothing_to_send_says_so_and_the_rest_go_on() -> None:
    """An assistant message with no message before it gets an error record, not an exception."""
    history: list[HistoryEvent] = [AssistantMessage("hello", model="openai:gpt-5"), UserMessage("hi")]
    data = projection_data(history, ("openai_chat",))
    first, last = data["bodies"]["openai_chat"]
    assert "nothing to send" in first["error"]
    body, _ = decode([first, last], data["strings"])[-1]
    assert body is not None
    assert [m["role"] for m in body["messages"]] == ["assistant", "user"]


def test_a_dialect_is_projected_with_its_own_options() -> None:
    """``openai_chat:deepseek`` projects with the DeepSeek dialect, under its own name."""
    data = projection_data(example_history(), ("openai_chat:deepseek",))
    records = data["bodies"]["openai_chat:deepseek"]
    _context, projection = _expected(example_history(), None, "openai_chat:deepseek", records[-1]["model"])
    body, _ = decode(records, data["strings"])[-1]
    assert json.dumps(body, sort_keys=True) == json.dumps(projection.request, sort_keys=True)
    assert records[-1]["model"].startswith("deepseek:")
