"""Replay: derived interrupts and response metadata, and the context for the next model call."""

from __future__ import annotations

from contextlib import AbstractContextManager
from decimal import Decimal

from partwire import (
    AssistantMessage,
    CompactionEvent,
    ErrorEvent,
    HistoryEvent,
    RetryEvent,
    SystemMessage,
    ToolCallPart,
    ToolMessage,
    Usage,
    UserMessage,
)
from partwire.codec import InterruptEvent, ResponseMetadataEvent, context_messages, replay
from partwire.ids import deterministic_sources, use_sources


def _sources() -> AbstractContextManager[None]:
    ids, clock = deterministic_sources()
    return use_sources(ids=ids, clock=clock)


def test_replay_yields_history_events_in_order_with_metadata_after_each_assistant_message() -> None:
    """Every stored event comes out in order; each assistant message is followed by its response metadata."""
    with _sources():
        usage = Usage(input_tokens=10, output_tokens=5, cost=Decimal("0.01"))
        answer = AssistantMessage("hello", model="anthropic:claude-sonnet-4-6", provider="anthropic",
                                  api="anthropic", response_id="msg_1", usage=usage, stop_reason="stop",
                                  stop_reason_raw="end_turn")
        history: list[HistoryEvent] = [UserMessage("hi"), answer, ErrorEvent(message="x")]
    out = list(replay(history))
    assert out[:2] == history[:2]
    assert out[2] == ResponseMetadataEvent(
        message_id=answer.id, model="anthropic:claude-sonnet-4-6", provider="anthropic", api="anthropic",
        response_id="msg_1", usage=usage, stop_reason="stop", stop_reason_raw="end_turn", status="complete",
    )
    assert out[3] == history[2]
    assert len(out) == 4


def test_aborted_assistant_message_yields_an_interrupt() -> None:
    """An assistant message aborted by stop reason or by status is followed by metadata, then an interrupt."""
    with _sources():
        by_reason = AssistantMessage("par", stop_reason="aborted")
        by_status = AssistantMessage("tial", status="aborted")
        fine = AssistantMessage("whole", stop_reason="stop")
    out = list(replay([by_reason, by_status, fine]))
    kinds = [type(e).__name__ for e in out]
    assert kinds == [
        "AssistantMessage", "ResponseMetadataEvent", "InterruptEvent",
        "AssistantMessage", "ResponseMetadataEvent", "InterruptEvent",
        "AssistantMessage", "ResponseMetadataEvent",
    ]
    assert out[2] == InterruptEvent(message_id=by_reason.id, source="assistant")
    assert out[5] == InterruptEvent(message_id=by_status.id, source="assistant")


def test_aborted_tool_message_yields_an_interrupt_naming_the_call() -> None:
    """A tool message with status aborted is followed by an interrupt carrying its call id; others are not."""
    with _sources():
        call = ToolCallPart.create("sleep")
        aborted = ToolMessage(call_id=call.id, tool_name="sleep", status="aborted")
        denied = ToolMessage(call_id=call.id, tool_name="sleep", status="denied")
        failed = ToolMessage(call_id=call.id, tool_name="sleep", status="error")
    out = list(replay([aborted, denied, failed]))
    assert out == [aborted, InterruptEvent(message_id=aborted.id, source="tool", call_id=call.id), denied, failed]


def test_context_without_compaction_is_the_messages_only() -> None:
    """Without compaction the context is every message in order, events dropped."""
    with _sources():
        history: list[HistoryEvent] = [SystemMessage("s"), UserMessage("u"), RetryEvent(attempt=2, reason="x"),
                                       AssistantMessage("a")]
    assert context_messages(history) == [history[0], history[1], history[3]]


def _conversation() -> list[HistoryEvent]:
    with _sources():
        return [
            SystemMessage("rules"),
            UserMessage("one"),
            AssistantMessage("two"),
            SystemMessage("more rules"),
            UserMessage("three"),
            AssistantMessage("four"),
        ]


def test_compaction_by_ids_puts_the_summary_where_the_first_replaced_message_was() -> None:
    """Messages named by replaced_ids are removed and the summary takes the first one's place."""
    history = _conversation()
    with _sources():
        compaction = CompactionEvent(summary="one, two, three", replaced_ids=(history[1].id, history[2].id,
                                                                              history[4].id))
        after = UserMessage("five")
    context = context_messages([*history, compaction, after])
    assert [m.text for m in context] == ["rules", "one, two, three", "more rules", "four", "five"]
    summary = context[1]
    assert isinstance(summary, UserMessage)
    assert summary.metadata == {"compaction_id": compaction.id}


def test_compaction_by_count_replaces_the_non_system_messages_right_before_it() -> None:
    """replaced_count counts non-system messages back from the compaction; system messages stay."""
    history = _conversation()
    with _sources():
        compaction = CompactionEvent(summary="two to four", replaced_count=3)
    context = context_messages([*history, compaction])
    assert [m.text for m in context] == ["rules", "one", "two to four", "more rules"]


def test_compaction_with_neither_ids_nor_count_replaces_everything_before_it() -> None:
    """A compaction that names nothing replaces every non-system message before it."""
    history = _conversation()
    with _sources():
        compaction = CompactionEvent(summary="all")
    context = context_messages([*history, compaction])
    assert [m.text for m in context] == ["rules", "all", "more rules"]


def test_system_messages_are_kept_even_when_named() -> None:
    """A system message listed in replaced_ids is kept all the same."""
    history = _conversation()
    with _sources():
        compaction = CompactionEvent(summary="s", replaced_ids=(history[0].id, history[1].id))
    assert [m.text for m in context_messages([*history, compaction])] == [
        "rules", "s", "two", "more rules", "three", "four",
    ]


def test_summary_role_system() -> None:
    """summary_role='system' makes the summary a system message."""
    history = _conversation()
    with _sources():
        compaction = CompactionEvent(summary="s", replaced_count=1)
    context = context_messages([*history, compaction], summary_role="system")
    assert isinstance(context[-1], SystemMessage)
    assert context[-1].text == "s"


def test_only_the_latest_compaction_counts() -> None:
    """The latest compaction is honoured and earlier ones are superseded (their summaries never appear)."""
    history = _conversation()
    with _sources():
        first = CompactionEvent(summary="old summary", replaced_count=1)
        middle = UserMessage("five")
        latest = CompactionEvent(summary="new summary", replaced_ids=(*(m.id for m in history), middle.id))
    context = context_messages([*history, first, middle, latest])
    assert [m.text for m in context] == ["rules", "new summary", "more rules"]


def test_summary_ids_are_deterministic() -> None:
    """The summary message's id is derived from the compaction: the same history gives the same id."""
    history = _conversation()
    with _sources():
        compaction = CompactionEvent(summary="s", replaced_count=2)
    first = context_messages([*history, compaction])
    second = context_messages([*history, compaction])
    assert first == second
    assert first[-1].id == second[-1].id
    assert first[-1].id not in {e.id for e in history} | {compaction.id}


def test_compaction_that_replaces_nothing_puts_the_summary_at_its_own_place() -> None:
    """A compaction whose ids match nothing still contributes its summary, where it stands."""
    history = _conversation()
    with _sources():
        compaction = CompactionEvent(summary="s", replaced_ids=("nope",))
        after = UserMessage("after")
    context = context_messages([*history, compaction, after])
    assert [m.text for m in context] == ["rules", "one", "two", "more rules", "three", "four", "s", "after"]
