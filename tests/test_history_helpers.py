"""History helpers: validate_history, same_content/common_prefix/coalesce, tool-call states."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from partwire import (
    AssistantMessage,
    CompactionEvent,
    HistoryEvent,
    ImagePart,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolMessage,
    UrlSource,
    Usage,
    UserMessage,
)
from partwire.compare import coalesce, common_prefix, same_content
from partwire.toolstate import tool_call_states
from partwire.validation import validate_history

MODEL = {"model": "anthropic:claude-sonnet-4-6", "provider": "anthropic"}


def codes(history: list[HistoryEvent]) -> list[tuple[str, str]]:
    return [(i.code, i.path) for i in validate_history(history)]


def test_clean_history_has_no_issues() -> None:
    """A well-formed agent exchange breaks no invariant."""
    call = ToolCallPart.create("ls", {"path": "."})
    history: list[HistoryEvent] = [
        SystemMessage("be brief"),
        UserMessage("list"),
        AssistantMessage([call], **MODEL),
        ToolMessage("a b", call_id=call.id, tool_name="ls"),
        AssistantMessage("a and b", **MODEL),
    ]
    assert validate_history(history) == []


def test_each_broken_invariant_is_reported_with_its_path() -> None:
    """Orphan results, misplaced parts, missing provenance, bad ids and more are all found."""
    call = ToolCallPart(id="tu_1", name="ls", arguments_json='{"a":')
    user = UserMessage("x")
    history: list[HistoryEvent] = [
        SystemMessage([TextPart(text="s"), ImagePart(source=UrlSource(url="https://x"))]),
        user,
        AssistantMessage([call, call], model="claude", usage=Usage(input_tokens=1, cache_read_tokens=5)),
        ToolMessage("r", call_id="tu_1", tool_name="ls", parts=[TextPart(text="dup")]),
        ToolMessage("r", call_id="tu_1", tool_name="ls"),
        ToolMessage("r", call_id="tu_missing", tool_name="ls"),
        UserMessage("y", id=user.id, parent_id="nobody"),
        CompactionEvent(summary="s", replaced_ids=("ghost",)),
    ]
    found = codes(history)
    assert ("non_text_in_system", "events[0].parts[1]") in found
    assert ("missing_provenance", "events[2]") in found
    assert ("bad_model_id", "events[2].model") in found
    assert ("usage_subsets", "events[2].usage") in found
    assert ("duplicate_tool_call_id", "events[2].parts[1]") in found
    assert ("malformed_arguments", "events[2].parts[0]") in found
    assert ("text_in_tool_parts", "events[3].parts[0]") in found
    assert ("duplicate_tool_result", "events[4]") in found
    assert ("orphan_tool_result", "events[5]") in found
    assert ("duplicate_id", "events[6]") in found
    assert ("unknown_parent", "events[6]") in found
    assert ("unknown_compaction_target", "events[7].replaced_ids") in found


def test_partial_messages_are_exempt_from_completeness_rules() -> None:
    """A partial assistant message may lack provenance and hold truncated arguments."""
    call = ToolCallPart(id="tu_1", name="ls", arguments_json='{"a":')
    assert validate_history([AssistantMessage([call], status="partial")]) == []


def test_unknown_fields_are_reported() -> None:
    """Fields outside the schema are kept by the models and named by validation."""
    found = codes([UserMessage([TextPart(text="x", colour="red")])])
    assert found == [("unknown_field", "events[0].parts[0]")]


def test_same_content_ignores_identity_not_content() -> None:
    """Two events with different ids and times but the same content are the same content."""
    a, b = UserMessage("x"), UserMessage("x")
    assert a != b
    assert same_content(a, b)
    assert not same_content(a, UserMessage("y"))
    assert not same_content(a, SystemMessage("x"))


def test_common_prefix_counts_shared_leading_events() -> None:
    """common_prefix stops at the first event that differs."""
    a: list[HistoryEvent] = [SystemMessage("s"), UserMessage("1"), AssistantMessage("2", **MODEL), UserMessage("3")]
    b: list[HistoryEvent] = [SystemMessage("s"), UserMessage("1"), AssistantMessage("2", **MODEL), UserMessage("other")]
    assert common_prefix(a, b) == 3
    assert common_prefix(a, a[:2]) == 2
    assert common_prefix(a, []) == 0


def test_coalesce_merges_adjacent_text_only_messages_of_one_role() -> None:
    """Adjacent text-only user messages merge; assistants, images and role changes do not."""
    img = UserMessage([ImagePart(source=UrlSource(url="https://x"))])
    history: list[HistoryEvent] = [
        UserMessage("a"), UserMessage("b"), img, UserMessage("c"),
        AssistantMessage("d", **MODEL), AssistantMessage("e", **MODEL),
    ]
    merged = coalesce(history)
    assert len(merged) == 5
    first = merged[0]
    assert isinstance(first, UserMessage)
    assert first.id == history[0].id
    assert [p.text for p in first.parts if isinstance(p, TextPart)] == ["a", "b"]
    assert merged[1] is img


def test_tool_call_states_follow_results_and_interrupts() -> None:
    """Each call's state comes from its tool message, or from an interrupted call message."""
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    ok, bad, waiting = (ToolCallPart.create(n) for n in ("a", "b", "c"))
    cut = ToolCallPart.create("d")
    history: list[HistoryEvent] = [
        AssistantMessage([ok, bad, waiting], **MODEL),
        ToolMessage("fine", call_id=ok.id, tool_name="a", started_at=t0, finished_at=t0 + timedelta(seconds=2)),
        ToolMessage("boom", call_id=bad.id, tool_name="b", status="error"),
        AssistantMessage([cut], status="aborted", stop_reason="aborted"),
    ]
    states = tool_call_states(history)
    assert list(states) == [ok.id, bad.id, waiting.id, cut.id]
    assert states[ok.id].state == "success"
    assert states[ok.id].duration == timedelta(seconds=2)
    assert states[ok.id].result_index == 1
    assert states[bad.id].state == "error"
    assert states[waiting.id].state == "pending"
    assert states[waiting.id].duration is None
    assert states[cut.id].state == "aborted"
