"""What each provider would receive at each assistant turn: the data behind the page's projection view.

For every assistant message, and once more for the next call after the last event, each adapter's
``to_wire`` is given the messages that call would send (:func:`~partwire.codec.context_messages`
of the history before it: events dropped, the latest compaction applied). The requests are
projected incrementally (the session's projector, equal to ``to_wire`` by law 7) and stored as
differences from the turn before, so a long session's page grows with its history, not with the
square of it. Loss paths are rewritten to the stored history's indices, so the page can mark the
part each one concerns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from partwire.adapters import ADAPTER_NAMES, get_adapter
from partwire.codec import context_messages
from partwire.history import CompactionEvent, HistoryEvent
from partwire.ids import DEFAULT_MODEL_ALIASES
from partwire.messages import AssistantMessage, Message, SystemMessage, ToolMessage, UserMessage
from partwire.messages import DeveloperMessage as _Developer
from partwire.projection import Loss
from partwire.session._projector import Projector

__all__ = ["projection_data"]

_MESSAGES = (SystemMessage, _Developer, UserMessage, AssistantMessage, ToolMessage)
_PATH = re.compile(r"^history\[(\d+)\](?:\.parts\[(\d+)\])?")


def projection_data(history: Sequence[HistoryEvent], adapters: Sequence[str] = ADAPTER_NAMES) -> dict[str, Any]:
    """The page's projection data: the turns, and per adapter one difference record per turn.

    ``adapters`` are adapter names, or ``name:dialect`` for an OpenAI Chat dialect
    (``openai_chat:deepseek``).
    """
    turns: list[dict[str, Any]] = []
    # (event index or -1, the context list, its length at that turn, whether it was rebuilt): a
    # context only grows between compactions, so the turns share it rather than copy it.
    contexts: list[tuple[int, list[Message], int, bool]] = []
    context: list[Message] = []
    restarted = True
    for i, event in enumerate(history):
        if isinstance(event, AssistantMessage):
            turns.append({"event": i, "label": f"#{i} {event.model or 'assistant'}"})
            contexts.append((i, context, len(context), restarted))
            restarted = False
        if isinstance(event, CompactionEvent):
            context = context_messages(history[: i + 1])
            restarted = True
        elif isinstance(event, _MESSAGES):
            context.append(event)
    turns.append({"event": None, "label": "next call (the whole history)"})
    contexts.append((-1, context, len(context), restarted))
    where = _origins(history)
    pool = _Pool()
    bodies = {name: pool.records(_adapter_turns(name, history, contexts, where)) for name in adapters}
    return {"adapters": list(adapters), "turns": turns, "bodies": bodies, "strings": pool.strings}


class _Pool:
    """Long strings stored once: every adapter's body repeats the history's texts, and a page of a
    long session would otherwise hold each of them once per adapter. A pooled string is written
    as NUL and its index in ``strings``; a string that starts with NUL is always pooled, so the
    mark cannot be mistaken for data."""

    MIN = 48

    def __init__(self) -> None:
        self.strings: list[str] = []
        self._index: dict[str, str] = {}

    def records(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for record in records:
            if "set" in record:
                record["set"] = self.value(record["set"])
            for change in record.get("lists", {}).values():
                change["tail"] = self.value(change["tail"])
        return records

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            if len(value) < self.MIN and not value.startswith("\0"):
                return value
            mark = self._index.get(value)
            if mark is None:
                mark = self._index[value] = f"\0{len(self.strings)}"
                self.strings.append(value)
            return mark
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value


def _origins(history: Sequence[HistoryEvent]) -> dict[str, int]:
    """Message id -> its index in the stored history; a compaction's summary -> the compaction."""
    found: dict[str, int] = {}
    for i, event in enumerate(history):
        if isinstance(event, _MESSAGES):
            found[event.id] = i
        elif isinstance(event, CompactionEvent):
            found[f"compaction:{event.id}"] = i
    return found


def _adapter_turns(name: str, history: Sequence[HistoryEvent],
                   contexts: list[tuple[int, list[Message], int, bool]],
                   where: dict[str, int]) -> list[dict[str, Any]]:
    head, _, dialect = name.partition(":")
    adapter = get_adapter(head)
    options = {"dialect": dialect} if dialect else None
    issuer = dialect or adapter.CAPABILITIES.issuer
    projectors: dict[str, Projector] = {}
    out: list[dict[str, Any]] = []
    previous: dict[str, Any] = {}
    previous_losses: Sequence[Loss] = ()
    last_model: str | None = None
    for index, shared, length, restarted in contexts:
        context = shared[:length]
        event = history[index] if index >= 0 else None
        model, stand_in = _model(issuer, event, last_model)
        if isinstance(event, AssistantMessage) and event.model and event.model.startswith(f"{issuer}:"):
            last_model = event.model
        record: dict[str, Any] = {"model": model, "standin": stand_in}
        projector = projectors.get(model)
        if projector is None:
            projector = projectors[model] = Projector(adapter, {"model": model, "options": options})
        elif restarted:
            projector.reset()
        if restarted:
            # Equal losses of another context may concern other messages: none is kept.
            previous_losses = ()
        if not context:
            record["error"] = "nothing to send: no message before this turn"
            out.append(record)
            previous, previous_losses = {}, ()
            continue
        try:
            projection = projector.project(context)
        except Exception as exc:  # a history this adapter cannot take at all: shown, not fatal
            projector.reset()
            record["error"] = f"{type(exc).__name__}: {exc}"
            out.append(record)
            previous, previous_losses = {}, ()
            continue
        record.update(_difference(previous, projection.request))
        # A context only grows until it restarts, so a loss kept from the turn before concerns
        # the same part: only the new ones are looked up (the kept ones are the same objects).
        losses = projection.losses
        keep = _common_prefix(previous_losses, losses)
        record["losses"] = {"keep": keep, "tail": [_loss(loss, context, where) for loss in losses[keep:]]}
        out.append(record)
        previous, previous_losses = projection.request, losses
    return out


def _model(issuer: str, event: HistoryEvent | None, last: str | None) -> tuple[str, bool]:
    """The model of a turn's request: the turn's own, else the issuer's last, else a stand-in."""
    if isinstance(event, AssistantMessage) and event.model and event.model.startswith(f"{issuer}:"):
        return event.model, False
    if last is not None:
        return last, False
    known = next((m for m in DEFAULT_MODEL_ALIASES.values() if m.startswith(f"{issuer}:")), None)
    return known or f"{issuer}:model", True


def _loss(loss: Loss, context: list[Message], where: dict[str, int]) -> list[Any]:
    """``[path, part type, action, reason, event index or None, part index or None]``, the path
    rewritten from the context's indices to the stored history's."""
    found = _PATH.match(loss.path)
    event: int | None = None
    part: int | None = None
    path = loss.path
    if found is not None and int(found.group(1)) < len(context):
        message = context[int(found.group(1))]
        compaction = message.metadata.get("compaction_id") if isinstance(message.metadata, dict) else None
        event = where.get(f"compaction:{compaction}") if isinstance(compaction, str) else None
        if event is None:
            event = where.get(message.id)
        if event is not None:
            part = int(found.group(2)) if found.group(2) is not None and compaction is None else None
            path = f"history[{event}]{loss.path[found.end(1) + 1:]}"
    return [path, loss.part_type, loss.action, loss.reason, event, part]


def _difference(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """``after`` as changes to ``before``: changed keys, dropped keys, and for the wire-message
    list the length of the prefix it shares and the rest."""
    changed: dict[str, Any] = {}
    lists: dict[str, Any] = {}
    for key, value in after.items():
        old = before.get(key)
        if key in before and old is value:
            continue
        if isinstance(value, list) and isinstance(old, list):
            keep = _common_prefix(old, value)
            if keep == len(old) == len(value):
                continue
            lists[key] = {"keep": keep, "tail": value[keep:]}
        elif key not in before or old != value:
            changed[key] = value
    record: dict[str, Any] = {"set": changed}
    if lists:
        record["lists"] = lists
    dropped = [key for key in before if key not in after]
    if dropped:
        record["drop"] = dropped
    return record


def _common_prefix(a: Sequence[Any], b: Sequence[Any]) -> int:
    """How many leading items ``a`` and ``b`` share (equal items are usually the same objects)."""
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    if n and a[: n - 1] == b[: n - 1]:  # the common case: only the last one grew
        return n - 1
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i
