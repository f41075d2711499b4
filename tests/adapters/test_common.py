"""Helpers every adapter shares."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from partwire._json import parse_json, parse_object
from partwire.adapters import _losses
from partwire.adapters._losses import known_loss, new_loss

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


def _outcome(fn: Any, text: str) -> tuple[str, Any]:
    # repr, not ==: it tells True from 1 and 1 from 1.0, and a NaN equals a NaN.
    try:
        return "value", repr(fn(text))
    except ValueError as exc:
        return type(exc).__name__, str(exc)


@given(_json_values, st.sampled_from([("", ""), (" ", ""), ("", "\n"), ("\t", " "), ("", "x"), ("", "{}")]),
       st.booleans())
def test_parse_json_is_json_loads(value: Any, around: tuple[str, str], compact: bool) -> None:
    body = json.dumps(value, separators=(",", ":") if compact else None)
    text = around[0] + body + around[1]
    assert _outcome(parse_json, text) == _outcome(json.loads, text)


@pytest.mark.parametrize("text", ["", " ", "{", '{"a":1', "nul", "[1,]", "'a'", '{"a":1}}', "1 2", "NaN"])
def test_parse_json_fails_or_succeeds_as_json_loads(text: str) -> None:
    assert _outcome(parse_json, text) == _outcome(json.loads, text)


def test_parse_json_shares_short_strings_and_falls_back_to_the_stdlib() -> None:
    """Two parses share their short keys and values (one string each); text pydantic-core refuses
    (a lone surrogate escape) reads as json.loads reads it; parse_object gives objects only."""
    first, second = parse_json('{"path": "src/a.py"}'), parse_json('{"n": 1, "path": "src/a.py"}')
    assert next(iter(first)) is list(second)[1]
    assert first["path"] is second["path"]
    assert parse_json('{"s": "\\ud800"}') == json.loads('{"s": "\\ud800"}') == {"s": "\ud800"}
    assert parse_object('{"a": [1, 2.5]}') == {"a": [1, 2.5]}
    assert [parse_object(t) for t in ("[1]", "1", "{", '"x"', "")] == [None] * 5


def test_known_loss_is_new_loss_made_once_per_key() -> None:
    """The same part's loss is the same frozen object on every resend; any field of its key
    that differs gives a loss of its own, with its own path and reason."""
    first = known_loss(3, 1, "thinking", "dropped", "no reasoning here", "test_adapter", "msg_a")
    assert first == new_loss("history[3].parts[1]", "thinking", "dropped", "no reasoning here",
                             "test_adapter", "msg_a")
    assert known_loss(3, 1, "thinking", "dropped", "no reasoning here", "test_adapter", "msg_a") is first
    others = [
        known_loss(4, 1, "thinking", "dropped", "no reasoning here", "test_adapter", "msg_a"),
        known_loss(3, 2, "thinking", "dropped", "no reasoning here", "test_adapter", "msg_a"),
        known_loss(3, 1, "redacted_thinking", "dropped", "no reasoning here", "test_adapter", "msg_a"),
        known_loss(3, 1, "thinking", "rewritten", "no reasoning here", "test_adapter", "msg_a"),
        known_loss(3, 1, "thinking", "dropped", "another reason", "test_adapter", "msg_a"),
        known_loss(3, 1, "thinking", "dropped", "no reasoning here", "other_adapter", "msg_a"),
        known_loss(3, 1, "thinking", "dropped", "no reasoning here", "test_adapter", "msg_b"),
    ]
    assert [(o.path, o.part_type, o.action, o.reason, o.adapter, o.message_id) for o in others] == [
        ("history[4].parts[1]", "thinking", "dropped", "no reasoning here", "test_adapter", "msg_a"),
        ("history[3].parts[2]", "thinking", "dropped", "no reasoning here", "test_adapter", "msg_a"),
        ("history[3].parts[1]", "redacted_thinking", "dropped", "no reasoning here", "test_adapter", "msg_a"),
        ("history[3].parts[1]", "thinking", "rewritten", "no reasoning here", "test_adapter", "msg_a"),
        ("history[3].parts[1]", "thinking", "dropped", "another reason", "test_adapter", "msg_a"),
        ("history[3].parts[1]", "thinking", "dropped", "no reasoning here", "other_adapter", "msg_a"),
        ("history[3].parts[1]", "thinking", "dropped", "no reasoning here", "test_adapter", "msg_b"),
    ]


def test_known_loss_forgets_everything_past_its_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_losses, "KNOWN_LIMIT", 4)
    monkeypatch.setattr(_losses, "_KNOWN", {})
    made = [known_loss(i, 0, "thinking", "dropped", "r", "a", "m") for i in range(4)]
    assert len(_losses._KNOWN) == 4
    fifth = known_loss(4, 0, "thinking", "dropped", "r", "a", "m")
    assert list(_losses._KNOWN.values()) == [fifth]
    again = known_loss(0, 0, "thinking", "dropped", "r", "a", "m")
    assert again == made[0]
    assert again is not made[0]


def test_a_resent_lossy_history_reports_the_same_losses_each_time() -> None:
    """Chat and Responses remember a dropped thought's loss: a second to_wire of the same history
    (an agent's next turn) reports what the first did, and a history of other ids its own."""
    from partwire import AssistantMessage, Opaque, TextPart, ThinkingPart, UserMessage
    from partwire.adapters import get_adapter

    def history(tag: str) -> list[Any]:
        thought = ThinkingPart(text=f"think {tag}", signature=Opaque(value="sig", issuer="anthropic"))
        return [UserMessage(f"question {tag}"),
                AssistantMessage(parts=(thought, TextPart(text="answer")), model="anthropic:claude-sonnet-4-6",
                                 provider="anthropic", api="anthropic"),
                UserMessage("and then?")]

    for name in ("openai_chat", "openai_responses"):
        adapter = get_adapter(name)
        one, two = history("one"), history("two")
        first = adapter.to_wire(one, model="m").losses
        assert [(x.path, x.part_type, x.action, x.message_id) for x in first] == [
            ("history[1].parts[0]", "thinking", "dropped", one[1].id)]
        assert adapter.to_wire(one, model="m").losses == first
        other = adapter.to_wire(two, model="m").losses
        assert [(x.path, x.message_id) for x in other] == [("history[1].parts[0]", two[1].id)]


@pytest.mark.parametrize("name", ["openai_chat", "openai_responses"])
def test_a_later_call_with_an_earlier_id_never_changes_an_earlier_result(name: str) -> None:
    """A result sent before its call takes the wire id of the first call with its id: a call of
    the same id appended later (another provider's id on it) leaves the earlier request alone.
    Found by the prefix law's hypothesis run."""
    from partwire import AssistantMessage, HistoryEvent, ToolCallPart, ToolMessage, UserMessage
    from partwire.adapters import get_adapter

    adapter = get_adapter(name)
    result = ToolMessage("out", call_id="tu_1", tool_name="A")
    history: list[HistoryEvent] = [UserMessage("go"), result,
               AssistantMessage(parts=(ToolCallPart(id="tu_1", name="A", arguments_json="{}"),))]
    later = AssistantMessage(parts=(ToolCallPart(id="tu_1", name="A", arguments_json="{}",
                                                 provider_ids={"anthropic": "toolu_later"}),))
    key = "messages" if name == "openai_chat" else "input"
    short = adapter.to_wire(history, model="m").request[key]
    long = adapter.to_wire([*history, later], model="m").request[key]
    assert long[:len(short)] == short
    assert "toolu_later" in json.dumps(long[len(short):])  # the later call keeps its own id
