"""``HistoryEvent`` and ``Message`` work everywhere a pydantic type works, with the codec's JSON."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter

from partwire import HistoryEvent, Message, UserMessage
from partwire.cli._example import example_history
from partwire.codec import dumps, encode, loads
from partwire.codec.schema import json_schema
from tests.strategies import history_events


class Session(BaseModel):
    """An application's own model holding a history, as agent codebases keep them."""

    session_id: str
    events: list[HistoryEvent]


class LastTurn(BaseModel):
    """An application model holding one message."""

    message: Message


def _codec_lines(events: list[HistoryEvent]) -> list[Any]:
    return [json.loads(line) for line in dumps(events).splitlines()]


def _strip(schema: Any) -> Any:
    """The schema without annotations (titles, descriptions), which do not change its meaning."""
    if isinstance(schema, dict):
        return {k: _strip(v) for k, v in schema.items() if k not in ("title", "description")}
    if isinstance(schema, list):
        return [_strip(v) for v in schema]
    return schema


def test_history_event_is_a_field_of_a_user_model() -> None:
    """A user model with ``events: list[HistoryEvent]`` builds and validates the codec's lines."""
    history = example_history()
    body = {"session_id": "s1", "events": _codec_lines(history)}
    session = Session.model_validate_json(json.dumps(body))
    assert session.events == history
    assert [type(e) for e in session.events] == [type(e) for e in history]


def test_user_model_json_equals_the_codec_json() -> None:
    """The user model writes each event exactly as the codec writes its line."""
    history = example_history()
    session = Session(session_id="s1", events=history)
    dumped = json.loads(session.model_dump_json())
    assert dumped["events"] == _codec_lines(history)


def test_type_adapter_round_trips_the_codec_lines() -> None:
    """``TypeAdapter(list[HistoryEvent])`` reads a JSON array of codec lines and writes it back unchanged."""
    history = example_history()
    adapter = TypeAdapter(list[HistoryEvent])
    array = b"[" + b",".join(encode(e) for e in history) + b"]"
    events = adapter.validate_json(array)
    assert events == loads(dumps(history))
    assert json.loads(adapter.dump_json(events)) == _codec_lines(history)


def test_message_alias_is_a_pydantic_type_too() -> None:
    """``Message`` works as a field and takes a message by its role."""
    turn = LastTurn.model_validate({"message": {"type": "message", "role": "user", "parts": []}})
    assert isinstance(turn.message, UserMessage)


def test_unknown_fields_survive_a_user_model() -> None:
    """A field a newer version wrote is kept through the user's model, as through the codec."""
    line = json.loads(encode(UserMessage("hi")))
    line["x_future_field"] = {"kept": True}
    session = Session.model_validate({"session_id": "s", "events": [line]})
    assert json.loads(session.model_dump_json())["events"][0] == line


def test_wrong_tag_names_the_tag_in_the_validation_error() -> None:
    """A line with an unknown role fails validation in the user model, naming the role tag."""
    with pytest.raises(ValueError, match="role"):
        Session.model_validate({"session_id": "s", "events": [{"type": "message", "role": "robot"}]})


@pytest.mark.parametrize("mode", ["validation", "serialization"])
def test_user_model_schema_is_valid_draft_2020_12(mode: str) -> None:
    """``model_json_schema()`` of a user model passes the draft 2020-12 metaschema, in both modes."""
    schema = Session.model_json_schema(mode=mode)  # type: ignore[arg-type]
    jsonschema.Draft202012Validator.check_schema(schema)


def test_every_discriminator_mapping_is_a_reference() -> None:
    """Each discriminator mapping value is a ``$ref`` string, as OpenAPI tools (FastAPI) require."""
    schema = Session.model_json_schema()
    mappings: list[dict[str, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("discriminator"), dict):
                mappings.append(node["discriminator"]["mapping"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    assert mappings
    assert all(isinstance(target, str) and target.startswith("#/$defs/")
               for mapping in mappings for target in mapping.values())
    assert schema["$defs"]["Message"]["discriminator"]["propertyName"] == "role"


def test_user_model_schema_means_what_partwire_schema_says() -> None:
    """The item schema and every definition in the user model's schema equal ``partwire schema``'s, annotations aside."""
    ours = json_schema()
    theirs = Session.model_json_schema()
    item = theirs["properties"]["events"]["items"]
    assert _strip(item) == _strip({k: ours[k] for k in ("oneOf", "discriminator")})
    for name, definition in theirs["$defs"].items():
        assert _strip(definition) == _strip(ours["$defs"][name]), name


def test_user_model_schema_accepts_codec_lines_and_refuses_what_the_codec_schema_refuses() -> None:
    """The user model's schema and ``partwire schema`` give the same verdict on good and bad lines."""
    theirs = Session.model_json_schema()
    item_schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
                   **theirs["properties"]["events"]["items"], "$defs": theirs["$defs"]}
    theirs_v = jsonschema.Draft202012Validator(item_schema)
    ours_v = jsonschema.Draft202012Validator(json_schema())
    good = _codec_lines(example_history())
    bad: list[Any] = [
        {"type": "message", "role": "robot"},
        {"type": "nonsense"},
        {**good[0], "id": 7},
        {"type": "retry", "attempt": "one", "reason": "x"},
        [],
    ]
    for line in good:
        assert theirs_v.is_valid(line)
        assert ours_v.is_valid(line)
    for line in bad:
        assert not theirs_v.is_valid(line)
        assert not ours_v.is_valid(line)


def test_fastapi_style_round_trip() -> None:
    """A request body parsed as a model and answered with ``model_dump(mode="json")`` keeps every line."""
    history = example_history()
    request_body = json.dumps({"session_id": "s1", "events": _codec_lines(history)}).encode()
    parsed = Session.model_validate_json(request_body)  # what FastAPI does with a body
    response = json.dumps(parsed.model_dump(mode="json"))  # what FastAPI does with a return value
    assert loads(b"\n".join(encode(e) for e in Session.model_validate_json(response).events)) == history
    assert json.loads(response)["events"] == _codec_lines(history)


@settings(max_examples=60, deadline=None)
@given(st.lists(history_events(), max_size=6))
def test_any_history_json_through_a_user_model_equals_the_codec(events: list[HistoryEvent]) -> None:
    """For any history, the user model writes the codec's lines and reads them back to equal events."""
    session = Session(session_id="s", events=events)
    dumped = json.loads(session.model_dump_json())["events"]
    assert dumped == _codec_lines(events)
    again = Session.model_validate_json(session.model_dump_json())
    assert [encode(e) for e in again.events] == [encode(e) for e in events]


class Thread(BaseModel):
    """A model using both unions, optionally and nested in another model."""

    pinned: Message | None = None
    session: Session
    by_id: dict[str, Message] = {}


def test_both_unions_in_one_model_share_one_definition() -> None:
    """Message and HistoryEvent used together (optional, nested, as dict values) validate and share $defs/Message."""
    message = UserMessage("pinned")
    thread = Thread(pinned=message, session=Session(session_id="s", events=example_history()),
                    by_id={message.id: message})
    assert Thread.model_validate_json(thread.model_dump_json()) == thread
    schema = Thread.model_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(json.loads(thread.model_dump_json()), schema)
    assert schema["properties"]["by_id"]["additionalProperties"] == {"$ref": "#/$defs/Message"}
