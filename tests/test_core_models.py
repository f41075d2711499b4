"""The canonical types: construction, immutability, equality, tags and defaults."""

from __future__ import annotations

import json
import os
import sys
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pydantic import ValidationError

from partwire import (
    AssistantMessage,
    ImagePart,
    Opaque,
    ProviderData,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolArgumentsError,
    ToolCallPart,
    ToolMessage,
    UnknownPart,
    UrlSource,
    UserMessage,
)
from partwire._base import build, fields_maker, one_field, replace, whole_maker
from partwire.history import EVENT_ADAPTER
from partwire.ids import deterministic_sources, use_sources


def test_plain_string_becomes_one_text_part() -> None:
    """A string where parts are expected is one text part, positionally or as parts=."""
    assert UserMessage("hi").parts == (TextPart(text="hi"),)
    assert SystemMessage(parts="be brief").parts == (TextPart(text="be brief"),)
    mixed = AssistantMessage(["a", TextPart(text="b")])
    assert [p.text for p in mixed.parts if isinstance(p, TextPart)] == ["a", "b"]


def test_tool_message_string_goes_to_output_text() -> None:
    """A tool message's positional string is its output text, never a text part."""
    msg = ToolMessage("42 files", call_id="tu_1", tool_name="ls")
    assert msg.output_text == "42 files"
    assert msg.parts == ()
    assert msg.text == "42 files"


def test_content_given_twice_is_refused() -> None:
    """Positional content together with parts= is a usage error, not a silent choice."""
    with pytest.raises(TypeError, match="not both"):
        UserMessage("a", parts=(TextPart(text="b"),))


def test_models_are_immutable() -> None:
    """Parts and messages cannot be changed in place; replace() gives a changed copy."""
    msg = UserMessage("hi")
    with pytest.raises(ValidationError):
        msg.parent_id = "x"  # type: ignore[misc]
    changed = replace(msg, parent_id="01ABC")
    assert changed.parent_id == "01ABC"
    assert msg.parent_id is None
    assert changed.id == msg.id


def test_equality_ignores_provider_data_only() -> None:
    """provider_data does not take part in equality; every other field does."""
    a = TextPart(text="x", provider_data=ProviderData(issuer="anthropic", data={"cache_control": 1}))
    b = TextPart(text="x")
    assert a == b
    assert hash(a) == hash(b)
    assert TextPart(text="x") != TextPart(text="y")
    sig = Opaque(value="s1", issuer="anthropic")
    assert ThinkingPart(text="t", signature=sig) != ThinkingPart(text="t", signature=replace(sig, value="s2"))


def test_every_line_is_tagged_by_type_then_role() -> None:
    """A message serialises with type="message" and its role; events with their own type."""
    line = json.loads(EVENT_ADAPTER.dump_json(UserMessage("x")))
    assert (line["v"], line["type"], line["role"]) == (1, "message", "user")
    back = EVENT_ADAPTER.validate_json(EVENT_ADAPTER.dump_json(UserMessage("x")))
    assert isinstance(back, UserMessage)


def test_unknown_fields_are_kept_and_written_back() -> None:
    """A field this version does not know survives a load and a re-save."""
    line = EVENT_ADAPTER.dump_json(UserMessage("x"))
    data = json.loads(line)
    data["added_by_v1_9"] = {"keep": [1, None]}
    data["parts"][0]["future"] = True
    event = EVENT_ADAPTER.validate_json(json.dumps(data))
    again = json.loads(EVENT_ADAPTER.dump_json(event))
    assert again["added_by_v1_9"] == {"keep": [1, None]}
    assert again["parts"][0]["future"] is True


def test_ids_and_times_are_injectable_and_monotonic() -> None:
    """With injected sources, ids and times repeat exactly; default ids strictly increase."""
    def build() -> tuple[str, datetime, str]:
        ids, clock = deterministic_sources()
        with use_sources(ids=ids, clock=clock):
            m = UserMessage("x")
            c = ToolCallPart.create("ls")
            return m.id, m.created_at, c.id
    first, second = build(), build()
    assert first == second
    assert first[2].startswith("tu_")
    assert first[1].tzinfo is not None
    made = [UserMessage("x").id for _ in range(500)]
    assert made == sorted(made)
    assert len(set(made)) == 500


def test_tool_call_arguments_are_exact_text_with_a_parsed_view() -> None:
    """arguments_json keeps the model's bytes; arguments parses them or raises a clear error."""
    call = ToolCallPart(id="tu_1", name="grep", arguments_json='{"q": "a",  "n":1}')
    assert call.arguments == {"q": "a", "n": 1}
    assert call.arguments_json == '{"q": "a",  "n":1}'
    truncated = ToolCallPart(id="tu_2", name="grep", arguments_json='{"q": "a')
    with pytest.raises(ToolArgumentsError, match="tu_2"):
        _ = truncated.arguments
    assert ToolCallPart(id="tu_3", name="x", arguments_json="").arguments == {}
    with pytest.raises(ToolArgumentsError, match="list"):
        _ = ToolCallPart(id="tu_4", name="x", arguments_json="[1]").arguments


def test_tool_call_id_for_issuer() -> None:
    """A call goes back to its issuer under the issuer's id and elsewhere under the canonical id."""
    call = ToolCallPart.create("ls", {}, provider_ids={"anthropic": "toolu_01A"})
    assert call.id_for("anthropic") == "toolu_01A"
    assert call.id_for("openai") == call.id


def test_unknown_part_and_wrong_types_are_rejected_or_kept() -> None:
    """An unknown part keeps its raw JSON; a part with a wrong field type fails validation."""
    part = UnknownPart(original_type="hologram", raw={"type": "hologram", "depth": 3}, issuer=None)
    msg = UserMessage([part])
    back = EVENT_ADAPTER.validate_json(EVENT_ADAPTER.dump_json(msg))
    assert back == msg
    with pytest.raises(ValidationError):
        TextPart.model_validate({"text": 5})
    with pytest.raises(ValidationError):
        ImagePart.model_validate({"source": {"type": "ftp", "url": "x"}})


def test_created_at_keeps_microseconds_and_utc() -> None:
    """Times round-trip through JSON with microseconds and their UTC offset."""
    t = datetime(2026, 3, 4, 5, 6, 7, 123456, tzinfo=UTC)
    msg = UserMessage("x", created_at=t)
    back = EVENT_ADAPTER.validate_json(EVENT_ADAPTER.dump_json(msg))
    assert back.created_at == t


def test_media_sources_are_typed() -> None:
    """An image's source is one of the typed source kinds, chosen by its tag."""
    img = ImagePart.model_validate({"type": "image", "source": {"type": "url", "url": "https://x/y.png"}})
    assert isinstance(img.source, UrlSource)


def test_ids_are_valid_ulids_in_python_ulid_s_own_text() -> None:
    """Message and tool-call ids parse as ULIDs and print back as the same text."""
    from ulid import ULID

    ids, _ = deterministic_sources()
    for made in (UserMessage("x").id, ToolCallPart.create("ls").id.removeprefix("tu_"), ids()):
        assert str(ULID.from_str(made)) == made
    with use_sources(clock=lambda: datetime(2026, 5, 8, 12, 0, tzinfo=UTC)):
        stamped = UserMessage("x").id
    assert ULID.from_str(stamped).datetime == datetime(2026, 5, 8, 12, 0, tzinfo=UTC)


@given(st.integers(min_value=0, max_value=2**128 - 1))
def test_ulid_text_matches_python_ulid(value: int) -> None:
    """partwire's ULID encoder writes exactly the text python-ulid writes, for any 128-bit value."""
    from ulid import ULID

    from partwire.ids import _ulid_text

    assert _ulid_text(value) == str(ULID.from_int(value))


@given(st.integers(min_value=1, max_value=2**80 - 1), st.integers(min_value=1, max_value=40))
@example(low=2**40 - 3, count=8).via("a carry into the cached prefix")
@example(low=1021, count=6).via("a carry out of the last two characters")
@example(low=2**80 - 45, count=40).via("the top of the millisecond's range")
def test_ids_within_one_millisecond_count_up_through_the_cached_prefix(low: int, count: int) -> None:
    """Ids made in one millisecond are the last id plus one, written exactly, across 40-bit carries."""
    from partwire.ids import _sources, _ulid_source, _ulid_text

    at = datetime(2026, 5, 8, 12, 0, tzinfo=UTC)
    source = _ulid_source(lambda: at)
    first = source()
    start = (int(at.timestamp() * 1000) << 80) | (low - 1)
    _sources[source][1](start)  # as if the millisecond's random start had been this value
    made = [source() for _ in range(count)]
    assert made == [_ulid_text(start + k) for k in range(1, count + 1)]
    assert first[:10] == made[0][:10]  # the same millisecond


@pytest.mark.parametrize(("cls", "fields"), [
    (UserMessage, {"parts": (TextPart(text="hi"),)}),
    (AssistantMessage, {"parts": (ToolCallPart(id="tu_1", name="ls", arguments_json="{}"),),
                        "provider_data": ProviderData(issuer="anthropic", data={"turn": "new"})}),
    (ToolMessage, {"call_id": "tu_1", "tool_name": "ls", "output_text": "a\nb", "status": "error"}),
    (TextPart, {"text": "x"}),
])
def test_build_makes_the_instance_validation_makes(cls: Any, fields: dict[str, Any]) -> None:
    """build() (the decoders' unvalidated path) gives an instance equal, hashed and dumped alike."""

    built = build(cls, fields)
    same = {k: getattr(built, k) for k in ("id", "created_at") if k in cls.model_fields}
    validated = cls(**fields, **same)
    assert built == validated
    assert hash(built) == hash(validated)
    assert built.model_dump_json() == validated.model_dump_json()
    assert list(built.__dict__) == list(validated.__dict__)
    if "metadata" in cls.model_fields:  # a fresh dict per instance, as the factory makes
        assert built.metadata is not build(cls, fields).metadata


def test_build_refuses_unknown_and_missing_fields() -> None:
    """build() names a field the class does not have, and a required field left out."""

    with pytest.raises(TypeError, match=r"no field.*colour"):
        build(UserMessage, {"colour": "red"})
    with pytest.raises(TypeError, match=r"needs field.*call_id"):
        build(ToolMessage, {"tool_name": "ls"})


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork exists only on POSIX")
def test_a_forked_child_never_makes_its_parents_next_id() -> None:
    """In one millisecond (a fixed clock), a forked child's next id is not the parent's next id:
    the child starts a run of its own, with its own randomness."""
    from partwire import ids

    at = datetime(2026, 5, 8, 12, 0, tzinfo=UTC)
    with ids.use_sources(clock=lambda: at):
        ids.new_message_id()  # the run of this millisecond has begun, with bytes drawn ahead
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report its next id, then leave without running pytest's exit
            os.write(write, ids.new_message_id().encode())
            os._exit(0)
        os.close(write)
        child = os.read(read, 100).decode()
        os.waitpid(pid, 0)
        parent = ids.new_message_id()
    assert len(child) == 26
    assert child != parent
    assert child[:10] == parent[:10]  # the same millisecond


def test_one_field_makes_the_instance_validation_makes() -> None:
    """one_field() (the readers' maker of plain texts and parts-only messages) gives what
    validation gives, runs the default factories, and is refused where another field is required."""
    made = one_field(TextPart, "text")("hello")
    validated = TextPart(text="hello")
    assert made == validated
    assert hash(made) == hash(validated)
    assert made.model_dump_json() == validated.model_dump_json()
    assert list(made.__dict__) == list(validated.__dict__)
    assert made.model_fields_set == validated.model_fields_set
    message = one_field(UserMessage, "parts")((made,))  # factories run: id, time, metadata
    same = UserMessage(parts=(validated,), id=message.id, created_at=message.created_at)
    assert message == same
    assert message.model_dump_json() == same.model_dump_json()
    assert message.id != one_field(UserMessage, "parts")((made,)).id
    assert message.metadata is not one_field(UserMessage, "parts")((made,)).metadata
    with pytest.raises(TypeError, match="only field"):
        one_field(ToolMessage, "call_id")  # tool_name is required too
    data = ProviderData(issuer="anthropic", data={"block": {"cache_control": {"type": "ephemeral"}}})
    two = fields_maker(TextPart, "text", "provider_data")("hi", data)
    assert two.model_dump_json() == TextPart(text="hi", provider_data=data).model_dump_json()
    assert two.model_fields_set == {"text", "provider_data"}


def test_whole_maker_makes_the_instance_validation_makes() -> None:
    """whole_maker() (the Arrow reader's maker from a complete dict of fields) gives an instance
    equal, hashed and dumped alike to the validated one, every field given, as a loaded one."""
    validated = ToolMessage(call_id="tu_1", tool_name="ls", output_text="a", status="error",
                            id="m1", created_at=datetime(2026, 5, 8, tzinfo=UTC))
    made = whole_maker(ToolMessage)(dict(validated.__dict__))
    assert made == validated
    assert hash(made) == hash(validated)
    assert made.model_dump_json() == validated.model_dump_json()
    assert made.model_fields_set == set(ToolMessage.model_fields)
    assert made.__pydantic_extra__ == {}


def test_ids_made_by_threads_at_once_are_unique_and_increase_in_each_thread() -> None:
    """Threads share a millisecond's run without a lock: no id twice, each thread's ids in order."""
    import threading

    from partwire.ids import new_message_id

    made: list[list[str]] = [[] for _ in range(4)]

    def work(out: list[str]) -> None:
        for _ in range(5000):
            out.append(new_message_id())

    threads = [threading.Thread(target=work, args=(out,)) for out in made]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as the interpreter lets them
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    every = [i for out in made for i in out]
    assert len(set(every)) == len(every) == 20000
    assert all(out == sorted(out) for out in made)


def test_built_instances_share_no_state_a_copy_can_change() -> None:
    """build() and one_field() share one empty extras dict and one given-fields set between
    instances; a copy with an extra field or an update changes only the copy."""
    first = build(UserMessage, {"parts": (TextPart(text="a"),)})
    second = build(UserMessage, {"parts": (TextPart(text="b"),)})
    changed = first.model_copy(update={"note": "x", "parent_id": "p"})
    assert changed.__pydantic_extra__ == {"note": "x"}
    assert first.__pydantic_extra__ == second.__pydantic_extra__ == {}
    assert "parent_id" in changed.model_fields_set
    assert "parent_id" not in first.model_fields_set
    assert "parent_id" not in second.model_fields_set
    make = one_field(TextPart, "text")
    one, two = make("a"), make("b")
    copied = one.model_copy(update={"citations": ()})
    assert "citations" in copied.model_fields_set
    assert one.model_fields_set == two.model_fields_set == {"text"}
    with pytest.raises(ValidationError):
        one.note = "x"  # type: ignore[attr-defined]  # frozen: refused before extras are touched
    assert one.__pydantic_extra__ == {}
