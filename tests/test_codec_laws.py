"""The codec law (DESIGN §11.1) over any history, and the compatibility files that must load forever."""

from __future__ import annotations

import contextlib
import io
import math
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from partwire import (
    AssistantMessage,
    HistoryEvent,
    ToolCallPart,
    ToolMessage,
    UnknownEvent,
    UserMessage,
)
from partwire.codec import dump, dumps, encode, iter_records, load, loads, read, rewrite
from partwire.history import EVENT_ADAPTER, EVENT_TYPES, MESSAGE_ROLES
from partwire.parts import PART_TYPES, TextPart
from tests.harness.depth import examples

from .strategies import (
    citations,
    histories,
    history_events,
    media_sources,
    parts,
    tool_messages,
    usages,
)

T = TypeVar("T")

COMPAT = Path(__file__).parent / "compat"
COMPAT_FILES = sorted(COMPAT.glob("v*/*.jsonl"))


@settings(max_examples=examples(100), deadline=None)
@given(histories())
def test_loads_dumps_is_identity(history: list[HistoryEvent]) -> None:
    """Any history dumped and loaded back is equal, also field by field (ids, times, provider_data)."""
    back = loads(dumps(history), strict=True)
    assert back == history
    assert [e.model_dump() for e in back] == [e.model_dump() for e in history]
    assert [type(e) for e in back] == [type(e) for e in history]


@settings(max_examples=examples(50), deadline=None)
@given(histories())
def test_encoding_is_stable(history: list[HistoryEvent]) -> None:
    """Dumping what was loaded gives the same bytes: re-saving never changes a file."""
    data = dumps(history)
    assert dumps(loads(data, strict=True)) == data


@settings(max_examples=examples(30), deadline=None)
@given(histories(max_turns=3))
def test_dump_then_load_file(tmp_path_factory: pytest.TempPathFactory, history: list[HistoryEvent]) -> None:
    """The file functions obey the law too: load(dump(h)) == h."""
    path = tmp_path_factory.mktemp("law") / "h.jsonl"
    dump(history, path)
    assert load(path, strict=True) == history


@settings(max_examples=examples(50), deadline=None)
@given(histories(max_turns=3), st.data())
def test_tolerant_reading_keeps_foreign_lines_byte_identical(
    tmp_path_factory: pytest.TempPathFactory, history: list[HistoryEvent], data: st.DataObject
) -> None:
    """Junk lines mixed into a history are each reported and kept, and rewrite puts them back as they were."""
    junk = st.binary(min_size=1, max_size=30).filter(lambda b: b"\n" not in b and b.strip() != b"")
    lines: list[tuple[bytes, bool]] = [(line, False) for line in dumps(history).split(b"\n")[:-1]]
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        at = data.draw(st.integers(min_value=0, max_value=len(lines)))
        lines.insert(at, (data.draw(junk), True))
    source = b"".join(line + b"\n" for line, _ in lines)
    inserted = {number: line for number, (line, is_junk) in enumerate(lines, 1) if is_junk}

    result = read(io.BytesIO(source))
    assert len(result.events) == len(lines)
    reported = {p.line for p in result.problems}
    assert set(inserted) <= reported
    kept = [e for e in result.events if isinstance(e, UnknownEvent)]
    assert len(kept) >= len(inserted)

    folder = tmp_path_factory.mktemp("rewrite")
    (folder / "in.jsonl").write_bytes(source)
    rewrite(folder / "in.jsonl", folder / "out.jsonl")
    out_lines = (folder / "out.jsonl").read_bytes().split(b"\n")[:-1]
    assert len(out_lines) == len(lines)
    for number, line in inserted.items():
        assert out_lines[number - 1] == line


def _covers(strategy: st.SearchStrategy[T], key: Callable[[T], object], expected: set[object]) -> set[object]:
    """What of ``expected`` the strategy never generated (as ``key`` of its values) in one search."""
    seen: set[object] = set()

    def done(value: T) -> bool:
        seen.add(key(value))
        return seen >= expected

    with contextlib.suppress(NoSuchExample):
        find(strategy, done, settings=settings(max_examples=3000, database=None, phases=[Phase.generate]))
    return expected - seen


def _reaches(strategy: st.SearchStrategy[T], predicate: Callable[[T], bool]) -> bool:
    return not _covers(strategy, predicate, {True})


def test_strategies_reach_every_variant() -> None:
    """The strategies histories() is built from generate every part type, role, event type, media
    source, citation and tool status, Decimal costs and unknown extra fields."""
    assert _covers(parts(), lambda p: p.type, set(PART_TYPES)) == set()
    roles_and_types = (EVENT_TYPES - {"message"}) | MESSAGE_ROLES
    assert _covers(history_events(), lambda e: getattr(e, "role", e.type), set(roles_and_types)) == set()
    sources = {"url", "base64", "file_ref", "provider_file", "text"}
    assert _covers(media_sources(), lambda m: m.type, set(sources)) == set()
    assert _covers(citations(), lambda c: c.type, {"url", "document", "search_result"}) == set()
    assert _covers(tool_messages(), lambda m: m.status, {"success", "error", "aborted", "denied"}) == set()
    assert _reaches(usages(), lambda u: isinstance(u.cost, Decimal))
    assert _reaches(history_events(), lambda e: bool(e.model_extra))


def test_histories_answer_their_tool_calls() -> None:
    """histories() generates tool results that answer calls made earlier in the same history."""
    def answers(history: list[HistoryEvent]) -> bool:
        calls = {p.id for e in history if isinstance(e, AssistantMessage) for p in e.parts
                 if isinstance(p, ToolCallPart)}
        return any(isinstance(e, ToolMessage) and e.call_id in calls for e in history)

    assert _reaches(histories(), answers)


def test_compat_folders_exist() -> None:
    """There are compatibility files for the legacy shape and for version 1."""
    assert {p.parent.name for p in COMPAT_FILES} >= {"v0", "v1"}


@pytest.mark.parametrize("path", COMPAT_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_compat_file_loads_strictly(path: Path) -> None:
    """Every compatibility file loads in strict mode (older versions through migrations), every line understood."""
    events = load(path, strict=True)
    records = list(iter_records(path))
    assert events
    assert all(r.understood and not r.problems for r in records)
    assert all(r.migrated for r in records) == (path.parent.name == "v0")


def test_compat_v1_covers_every_type() -> None:
    """The version-1 compatibility files hold every part type, every role and every event type."""
    events = [e for p in COMPAT_FILES if p.parent.name == "v1" for e in load(p, strict=True)]
    roles = {e.role for e in events if e.type == "message"}
    types = {e.type for e in events}
    part_types = {part.type for e in events for part in getattr(e, "parts", ())}
    assert roles == MESSAGE_ROLES
    assert types == EVENT_TYPES
    assert part_types == PART_TYPES


@settings(max_examples=examples(200), deadline=None)
@given(history_events())
def test_encode_writes_what_the_union_writes(event: HistoryEvent) -> None:
    """The codec serialises each event through its own class's serializer: the same bytes as
    the HistoryEvent union's, for every event type, extras and odd floats included."""
    assert encode(event) == EVENT_ADAPTER.dump_json(event)


def test_encode_of_a_subclass_goes_through_the_union() -> None:
    """Only the exact event classes take the direct path; a subclass is the union's to judge."""

    class Tagged(UserMessage):
        tag: str = "mine"

    mine = Tagged(parts=(TextPart(text="hi"),))
    assert encode(mine) == EVENT_ADAPTER.dump_json(mine)


def test_non_finite_floats_survive_a_dump_and_a_load() -> None:
    """An infinity or NaN (in metadata, raw provider data) is written as the model writes it
    (``Infinity``, ``NaN``) and read back as itself; the union's serializer wrote null, losing it."""
    odd = UserMessage("x", metadata={"big": float("inf"), "small": float("-inf"), "none": float("nan")})
    line = encode(odd)
    assert line == odd.model_dump_json().encode()
    assert b'"big":Infinity,"small":-Infinity,"none":NaN' in line
    (back,) = loads(line + b"\n")
    assert back.metadata["big"] == float("inf")
    assert back.metadata["small"] == float("-inf")
    none = back.metadata["none"]
    assert isinstance(none, float)
    assert math.isnan(none)
