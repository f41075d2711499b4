"""Process bodies for the reliability tests (module level, so ``spawn`` can import them)."""

from __future__ import annotations

import json
from typing import Any

from partwire import (
    AssistantMessage,
    HistoryEvent,
    TextPart,
    ToolCallPart,
    ToolMessage,
    UserMessage,
)
from partwire.store import ExpectLastError, NotFoundError, open_store


def append_one_by_one(url: str, session_id: str, writer: int, count: int) -> None:
    """Append ``count`` user messages, one transaction each, ids ``W<writer>-<n>``."""
    with open_store(url) as store:
        for n in range(count):
            store.append(session_id, [UserMessage(id=f"W{writer}-{n:05d}", parts=(TextPart(text=f"w{writer} n{n}"),))])


def append_turns(url: str, session_id: str, writer: int, turns: int) -> None:
    """Append ``turns`` two-event turns with ``expect_last``, retrying when another writer won."""
    with open_store(url) as store:
        for n in range(turns):
            turn: list[HistoryEvent] = [
                UserMessage(id=f"W{writer}-{n:04d}-q", parts=(TextPart(text="question"),)),
                AssistantMessage(id=f"W{writer}-{n:04d}-a", parts=(TextPart(text="answer"),)),
            ]
            while True:
                try:
                    last = store.session(session_id).last_event_id
                except NotFoundError:
                    last = None
                try:
                    store.append(session_id, turn, expect_last=last)
                    break
                except ExpectLastError:
                    continue


def import_file(url: str, path: str) -> None:
    """Import one file."""
    with open_store(url) as store:
        store.import_file(path)


def write_until_killed(url: str, session_id: str, log: str, payload: int) -> None:
    """Append three-event turns forever; before each append write ``begin N``, after it ``done N``."""
    with open_store(url) as store, open(log, "a", buffering=1) as out:
        n = 0
        while True:
            call = f"tu_{n:06d}"
            turn: list[HistoryEvent] = [
                AssistantMessage(id=f"T{n:06d}-a", parts=(TextPart(text="x" * payload),
                                                          ToolCallPart(id=call, name="run", arguments_json="{}"))),
                ToolMessage(id=f"T{n:06d}-t", call_id=call, tool_name="run", output_text="y" * payload),
                AssistantMessage(id=f"T{n:06d}-b", parts=(TextPart(text="done"),)),
            ]
            out.write(f"begin {n}\n")
            store.append(session_id, turn)
            out.write(f"done {n}\n")
            n += 1



def search_at_once(url: str, words: list[str], barrier: Any, out: str) -> None:
    """Wait for the other searchers, then search each word (the first search catches the index
    up); write the hits, as JSON lists, to ``out``."""
    with open_store(url) as store:
        barrier.wait(timeout=120)
        hits = {word: [[h.session_id, h.event_id, h.part_index, h.part_type, h.snippet]
                       for h in store.search(word, limit=100_000)] for word in words}
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(hits, handle)
