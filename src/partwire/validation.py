"""``validate_history``: every broken invariant of a history, as data with its path.

Nothing here raises: a history that breaks rules still loads, renders and converts; the caller
decides what matters. Partial and aborted messages are exempt from the completeness rules (a
stream cut short may hold anything).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from partwire.errors import ToolArgumentsError
from partwire.history import CompactionEvent, History
from partwire.ids import split_model_id
from partwire.messages import AssistantMessage, SystemMessage, ToolMessage
from partwire.parts import TextPart, ToolCallPart

__all__ = ["HistoryIssue", "IssueCode", "validate_history"]

IssueCode = Literal[
    "duplicate_id",
    "unknown_parent",
    "orphan_tool_result",
    "duplicate_tool_result",
    "duplicate_tool_call_id",
    "text_in_tool_parts",
    "non_text_in_system",
    "missing_provenance",
    "bad_model_id",
    "malformed_arguments",
    "usage_subsets",
    "time_order",
    "unknown_compaction_target",
    "unknown_field",
]
"""What kind of rule an issue breaks."""


@dataclass(frozen=True, slots=True)
class HistoryIssue:
    """One broken invariant."""

    index: int
    """Position of the offending event in the history."""
    path: str
    """Where exactly, e.g. ``events[3].parts[1]``."""
    code: IssueCode
    """Which rule."""
    message: str
    """What is wrong, in words."""

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def validate_history(history: History) -> list[HistoryIssue]:
    """Every broken invariant of ``history``, in history order."""
    issues: list[HistoryIssue] = []
    seen_ids: set[str] = set()
    calls: dict[str, ToolCallPart] = {}
    answered: set[str] = set()

    def add(index: int, path: str, code: IssueCode, message: str) -> None:
        issues.append(HistoryIssue(index, path, code, message))

    for i, event in enumerate(history):
        here = f"events[{i}]"
        if event.id in seen_ids:
            add(i, here, "duplicate_id", f"id {event.id} is used by an earlier event")
        parent = getattr(event, "parent_id", None)
        if parent is not None and parent not in seen_ids:
            add(i, here, "unknown_parent", f"parent_id {parent} names no earlier event")
        seen_ids.add(event.id)
        for path, name in _unknown_fields(event, here):
            add(i, path, "unknown_field", f"field {name!r} is not part of schema v{event.v}")

        if isinstance(event, SystemMessage):
            for j, part in enumerate(event.parts):
                if not isinstance(part, TextPart):
                    add(i, f"{here}.parts[{j}]", "non_text_in_system",
                        f"a system message holds text only, not {part.type}")
        elif isinstance(event, AssistantMessage):
            _check_assistant(event, i, here, calls, add)
        elif isinstance(event, ToolMessage):
            if event.call_id not in calls:
                add(i, here, "orphan_tool_result", f"call_id {event.call_id} answers no earlier tool call")
            elif event.call_id in answered:
                add(i, here, "duplicate_tool_result", f"call {event.call_id} was already answered")
            answered.add(event.call_id)
            for j, part in enumerate(event.parts):
                if isinstance(part, TextPart):
                    add(i, f"{here}.parts[{j}]", "text_in_tool_parts",
                        "tool text belongs in output_text; parts hold attachments only")
            if event.started_at and event.finished_at and event.finished_at < event.started_at:
                add(i, here, "time_order", "finished_at is before started_at")
        elif isinstance(event, CompactionEvent) and event.replaced_ids:
            missing = [x for x in event.replaced_ids if x not in seen_ids]
            if missing:
                add(i, f"{here}.replaced_ids", "unknown_compaction_target",
                    f"replaces ids that name no earlier event: {', '.join(missing)}")
    return issues


def _check_assistant(
    message: AssistantMessage, i: int, here: str, calls: dict[str, ToolCallPart], add: Any
) -> None:
    complete = message.status == "complete"
    if complete and (not message.model or not message.provider):
        missing = " and ".join(n for n in ("model", "provider") if not getattr(message, n))
        add(i, here, "missing_provenance", f"a complete assistant message needs {missing}")
    if message.model:
        try:
            split_model_id(message.model)
        except ValueError as exc:
            add(i, f"{here}.model", "bad_model_id", str(exc))
    if message.usage is not None:
        for error in message.usage.subset_errors():
            add(i, f"{here}.usage", "usage_subsets", error)
    for j, part in enumerate(message.parts):
        if not isinstance(part, ToolCallPart):
            continue
        if part.id in calls:
            add(i, f"{here}.parts[{j}]", "duplicate_tool_call_id", f"tool call id {part.id} is used twice")
        calls[part.id] = part
        if complete:
            try:
                part.arguments  # noqa: B018 - parsing is the check
            except ToolArgumentsError as exc:
                add(i, f"{here}.parts[{j}]", "malformed_arguments", exc.reason)


def _unknown_fields(model: BaseModel, path: str) -> Iterable[tuple[str, str]]:
    """(path, name) of every field a model (or a model nested in it) did not declare."""
    for name in model.__pydantic_extra__ or {}:
        yield path, name
    for name, value in model.__dict__.items():
        yield from _unknown_in_value(value, f"{path}.{name}")


def _unknown_in_value(value: Any, path: str) -> Iterable[tuple[str, str]]:
    if isinstance(value, BaseModel):
        yield from _unknown_fields(value, path)
    elif isinstance(value, tuple | list):
        for k, item in enumerate(value):
            if isinstance(item, BaseModel):
                yield from _unknown_fields(item, f"{path}[{k}]")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(item, BaseModel):
                yield from _unknown_fields(item, f"{path}.{key}")
