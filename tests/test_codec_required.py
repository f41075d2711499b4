"""Lines without ``v``, ``id`` or ``created_at``: reported, filled the same on every load, required
by the schema; negative token counts refused with their own message."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from partwire.cli import main
from partwire.codec import load, loads, read, rewrite
from partwire.errors import DecodeError
from partwire.messages import AssistantMessage, UserMessage
from partwire.store import open_store

NO_ID = b'{"type":"message","role":"user","parts":[{"type":"text","text":"hi"}]}\n'
# A line with a nested "id" (a tool call's) but none of its own.
NESTED_ID = (b'{"v":1,"type":"message","role":"assistant","created_at":"2025-06-01T12:00:00Z",'
             b'"parts":[{"type":"tool_call","id":"tu_1","name":"f","arguments_json":"{}"}]}\n')
SCHEMA = Path(__file__).resolve().parents[1] / "docs" / "schema" / "partwire.schema.json"


def test_validate_reports_each_missing_required_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``partwire validate`` exits 1 and names v, id and created_at when a line lacks them."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(NO_ID + NESTED_ID)
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    for field in ("has no v", "has no id", "has no created_at"):
        assert f"h.jsonl:1: user message {field} (required)" in out
    assert "h.jsonl:2: assistant message has no id (required)" in out


def test_a_tolerant_load_gives_the_same_ids_every_time(tmp_path: Path) -> None:
    """Two loads, and two rewrites, of a file whose lines lack ids give the same ids and times."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(NO_ID + NESTED_ID)
    first, second = load(path), load(path)
    assert [e.id for e in first] == [e.id for e in second]
    assert [e.created_at for e in first] == [e.created_at for e in second]
    assert len({e.id for e in first}) == 2
    assert isinstance(first[0], UserMessage)
    assert isinstance(first[1], AssistantMessage)
    rewrite(path, tmp_path / "a.jsonl")
    rewrite(path, tmp_path / "b.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes() == path.read_bytes()
    assert [e.id for e in load(tmp_path / "a.jsonl")] == [e.id for e in first]


def test_the_problems_say_missing_field() -> None:
    """Each missing field is a problem of kind ``missing_field`` at its own path."""
    result = read(io.BytesIO(NO_ID))
    assert [(p.kind, p.path) for p in result.problems] == [
        ("missing_field", "v"), ("missing_field", "id"), ("missing_field", "created_at")]


def test_a_strict_load_refuses_a_line_without_an_id() -> None:
    """``strict=True`` raises DecodeError on the first missing field."""
    with pytest.raises(DecodeError, match="has no id"):
        loads(NESTED_ID, strict=True)


def test_a_store_reads_a_line_without_an_id_the_same_every_time(tmp_path: Path) -> None:
    """A file imported into the store gives the same ids on every read of the session."""
    path = tmp_path / "h.jsonl"
    path.write_bytes(NO_ID + NESTED_ID)
    store = open_store(tmp_path / "s.db")
    try:
        session = store.import_file(path).session_id
        first = [e.id for e in store.load(session)]
        second = [e.id for e in store.load(session)]
    finally:
        store.close()
    assert first == second == [e.id for e in load(path)]


def test_the_schema_requires_what_a_line_must_carry() -> None:
    """The committed schema requires v, type, id and created_at (and role) on a message and an event."""
    defs = json.loads(SCHEMA.read_text())["$defs"]
    assert {"v", "type", "id", "created_at", "role"} <= set(defs["UserMessage"]["required"])
    assert {"v", "type", "id", "created_at"} <= set(defs["ErrorEvent"]["required"])
    assert "type" in defs["TextPart"]["required"]
    assert defs["Usage"]["properties"]["input_tokens"]["minimum"] == 0


def test_a_negative_token_count_is_refused_with_its_own_message() -> None:
    """A negative count is named as such, not as a broken subset rule."""
    line = (b'{"v":1,"type":"message","role":"assistant","id":"01J0000000000000000000000B",'
            b'"created_at":"2025-06-01T12:00:01Z","parts":[],"usage":{"input_tokens":-3}}\n')
    result = read(io.BytesIO(line))
    assert [p.message for p in result.problems] == [
        "invalid assistant message: Input should be greater than or equal to 0 at usage.input_tokens"]
    assert "exceed" not in result.problems[0].message
