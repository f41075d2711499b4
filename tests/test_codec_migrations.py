"""Migrations: legacy ``{role, content, tool_calls}`` lines load as current messages, deterministically."""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from partwire import (
    AssistantMessage,
    DecodeError,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolMessage,
    UnknownEvent,
    UserMessage,
)
from partwire.codec import (
    MIGRATIONS,
    SCHEMA_VERSION,
    MigrationContext,
    MigrationError,
    decode,
    iter_records,
    load,
    loads,
    migrate,
    read,
    rewrite,
)

LEGACY: list[dict[str, object]] = [
    {"role": "system", "content": "You are helpful."},
    {"role": "user", "content": "List, then read.", "timestamp": "2024-05-01T10:00:00Z"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{\"path\": \".\"}"}},
        {"id": "call_2", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"README\"}"}},
    ]},
    {"role": "tool", "tool_call_id": "call_2", "content": "# Readme"},
    {"role": "tool", "tool_call_id": "call_1", "name": "ls", "content": "README"},
    # The server reuses call_1: the next result answers this call, not the first one.
    {"role": "assistant", "content": "Once more.", "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{\"path\": \"src\"}"}},
    ]},
    {"role": "tool", "tool_call_id": "call_1", "content": "main.py"},
    {"role": "assistant", "content": "Done."},
]


def _legacy_bytes(lines: Sequence[object]) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def test_legacy_lines_load_as_typed_messages() -> None:
    """Each legacy role becomes its message type, with text in parts and tool calls as parts."""
    events = loads(_legacy_bytes(LEGACY), strict=True)
    assert [type(e) for e in events] == [
        SystemMessage, UserMessage, AssistantMessage, ToolMessage, ToolMessage, AssistantMessage, ToolMessage,
        AssistantMessage,
    ]
    system, user, calls = events[0], events[1], events[2]
    assert isinstance(system, SystemMessage)
    assert system.parts == (TextPart(text="You are helpful."),)
    assert isinstance(user, UserMessage)
    assert user.text == "List, then read."
    assert isinstance(calls, AssistantMessage)
    assert all(isinstance(p, ToolCallPart) for p in calls.parts)


def test_null_content_with_tool_calls_gives_no_text_part() -> None:
    """An assistant line with content null and tool calls has only tool-call parts, arguments kept exactly."""
    calls = loads(_legacy_bytes(LEGACY), strict=True)[2]
    assert isinstance(calls, AssistantMessage)
    assert [type(p) for p in calls.parts] == [ToolCallPart, ToolCallPart]
    first = calls.parts[0]
    assert isinstance(first, ToolCallPart)
    assert first.name == "ls"
    assert first.arguments_json == "{\"path\": \".\"}"
    assert first.provider_ids == {"legacy": "call_1"}
    assert first.id.startswith("tu_")


def test_tool_results_point_at_the_right_calls_even_when_ids_are_reused() -> None:
    """Each tool result answers the latest earlier call with its legacy id, by canonical id."""
    events = loads(_legacy_bytes(LEGACY), strict=True)
    first_turn, second_turn = events[2], events[5]
    assert isinstance(first_turn, AssistantMessage)
    assert isinstance(second_turn, AssistantMessage)
    ls_1, read_1 = first_turn.parts
    ls_2 = second_turn.parts[1]
    assert isinstance(ls_1, ToolCallPart)
    assert isinstance(read_1, ToolCallPart)
    assert isinstance(ls_2, ToolCallPart)
    assert ls_1.id != ls_2.id
    results = [e for e in events if isinstance(e, ToolMessage)]
    assert [(r.call_id, r.tool_name, r.output_text) for r in results] == [
        (read_1.id, "read", "# Readme"),
        (ls_1.id, "ls", "README"),
        (ls_2.id, "ls", "main.py"),
    ]


def test_ids_are_deterministic() -> None:
    """Loading the same legacy file twice gives the same ids, times and messages."""
    data = _legacy_bytes(LEGACY)
    first, second = loads(data, strict=True), loads(data, strict=True)
    assert first == second
    assert [e.id for e in first] == [e.id for e in second]
    assert len({e.id for e in first}) == len(first)


def test_ids_depend_on_line_and_content() -> None:
    """Two identical legacy lines at different line numbers get different ids."""
    events = loads(_legacy_bytes([{"role": "user", "content": "hi"}, {"role": "user", "content": "hi"}]))
    assert events[0].id != events[1].id


def test_migrated_messages_are_marked_and_timed() -> None:
    """Migrated messages carry migrated_from v0, the legacy time when there was one, else the epoch."""
    events = loads(_legacy_bytes(LEGACY), strict=True)
    assert all(e.metadata == {"migrated_from": "v0"} for e in events)
    assert events[1].created_at == datetime(2024, 5, 1, 10, tzinfo=UTC)
    assert events[0].created_at == datetime(1970, 1, 1, tzinfo=UTC)


def test_epoch_seconds_timestamps_and_flat_tool_calls() -> None:
    """A numeric created_at is epoch seconds; flat calls with parameters objects are serialised compactly."""
    lines = [
        {"role": "assistant", "content": "Searching.", "created_at": 1714557601,
         "tool_calls": [{"id": "t1", "name": "search", "parameters": {"q": "ü"}}]},
        {"role": "tool", "tool_call_id": "t1", "content": "3 results"},
    ]
    message, result = loads(_legacy_bytes(lines), strict=True)
    assert isinstance(message, AssistantMessage)
    assert message.created_at == datetime(2024, 5, 1, 10, 0, 1, tzinfo=UTC)
    call = message.parts[1]
    assert isinstance(call, ToolCallPart)
    assert call.arguments_json == '{"q":"ü"}'
    assert isinstance(result, ToolMessage)
    assert (result.call_id, result.tool_name) == (call.id, "search")


def test_unknown_legacy_fields_are_kept_in_metadata() -> None:
    """Fields the legacy shape does not define survive the migration under metadata['legacy']."""
    [message] = loads(_legacy_bytes([{"role": "assistant", "content": "x", "model": "gpt-4o", "name": "bot"}]))
    assert message.metadata == {"migrated_from": "v0", "legacy": {"model": "gpt-4o", "name": "bot"}}


def test_orphan_tool_result_gets_a_stable_id() -> None:
    """A tool result whose call is not in the file still loads, with a stable id and its legacy id kept."""
    line = _legacy_bytes([{"role": "tool", "tool_call_id": "gone", "content": "?"}])
    first, second = loads(line, strict=True)[0], loads(line, strict=True)[0]
    assert isinstance(first, ToolMessage)
    assert isinstance(second, ToolMessage)
    assert first.call_id == second.call_id
    assert first.call_id.startswith("tu_")
    assert first.metadata["legacy_call_id"] == "gone"


def test_migrated_records_are_understood_and_report_nothing() -> None:
    """Records of migrated lines are marked migrated and understood, with no problem reported."""
    records = list(iter_records(io.BytesIO(_legacy_bytes(LEGACY))))
    assert all(r.migrated and r.understood and not r.problems for r in records)


def test_explicit_version_zero_is_migrated() -> None:
    """A legacy line that states v: 0 is migrated like one that states nothing."""
    event = decode(b'{"v": 0, "role": "user", "content": "hi"}')
    assert isinstance(event, UserMessage)
    assert event.text == "hi"


def test_bad_legacy_line_is_reported_or_raised() -> None:
    """A legacy line that cannot be migrated is kept as unknown (tolerant) or raises with its path (strict)."""
    data = _legacy_bytes([{"role": "tool", "content": "no call id"}, {"role": "user", "content": "ok"}])
    result = read(io.BytesIO(data))
    assert isinstance(result.events[0], UnknownEvent)
    assert result.events[0].raw == {"role": "tool", "content": "no call id"}
    assert result.events[0].original_type == "tool"
    assert [(p.kind, p.path, p.line) for p in result.problems] == [("invalid_field", "tool_call_id", 1)]
    assert isinstance(result.events[1], UserMessage)
    with pytest.raises(DecodeError) as info:
        loads(data, strict=True)
    assert (info.value.line, info.value.path) == (1, "tool_call_id")
    assert isinstance(info.value.__cause__, MigrationError)


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ({"role": "wizard", "content": "x"}, "role"),
        ({"role": "user", "content": ["not", "a", "string"]}, "content"),
        ({"role": "assistant", "content": None, "tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]},
         "tool_calls[0].function.name"),
        ({"role": "user", "content": "x", "timestamp": "yesterday"}, "timestamp"),
    ],
)
def test_migration_errors_name_the_path(line: dict[str, object], path: str) -> None:
    """Each malformed legacy shape is refused with the path of the offending field."""
    with pytest.raises(DecodeError) as info:
        loads(_legacy_bytes([line]), strict=True)
    assert info.value.path == path


def test_rewrite_writes_legacy_files_in_the_current_version(tmp_path: Path) -> None:
    """rewrite turns a legacy file into current-version lines that load to the same history."""
    src = tmp_path / "legacy.jsonl"
    src.write_bytes(_legacy_bytes(LEGACY))
    dst = tmp_path / "v1.jsonl"
    assert rewrite(src, dst) == []
    lines = [json.loads(line) for line in dst.read_bytes().splitlines()]
    assert all(line["v"] == SCHEMA_VERSION and line["type"] == "message" for line in lines)
    assert load(dst, strict=True) == load(src, strict=True)
    assert not any(r.migrated for r in iter_records(dst))


def test_registry_covers_every_older_version() -> None:
    """There is a migration from every version below the current one."""
    assert set(MIGRATIONS) == set(range(SCHEMA_VERSION))


def test_migrate_refuses_a_version_it_has_no_step_for() -> None:
    """migrate names the version it cannot lift."""
    with pytest.raises(MigrationError, match="no migration from schema version -1"):
        migrate({"role": "user"}, -1, MigrationContext())


def test_fields_out_of_place_for_the_role_are_kept() -> None:
    """Tool calls on a user line or a call id on an assistant line are kept under metadata['legacy']."""
    [user, assistant] = loads(_legacy_bytes([
        {"role": "user", "content": "x", "tool_calls": [{"id": "c"}]},
        {"role": "assistant", "content": "y", "tool_call_id": "c"},
    ]), strict=True)
    assert user.metadata["legacy"] == {"tool_calls": [{"id": "c"}]}
    assert assistant.metadata["legacy"] == {"tool_call_id": "c"}
