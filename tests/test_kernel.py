"""The adapter kernel: options, params, the stream identity and the decoder boundary."""

from __future__ import annotations

import contextlib
import json
import marshal
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

import partwire.adapters.anthropic as anthropic
import partwire.adapters.openai_chat as openai_chat
from partwire import AssistantMessage, UserMessage
from partwire.adapters import ADAPTER_NAMES, Adapter, get_adapter
from partwire.adapters._kernel import merge_params, resolve_options
from partwire.adapters._openai_schema import strict_parameters, strict_schema
from partwire.adapters._provenance import shared_provider_data
from partwire.errors import UnknownAdapterError, WireFormatError
from partwire.history import HistoryEvent
from partwire.streaming import Accumulator, MessageStartEvent
from partwire.tools import ToolDefinition

_ANTHROPIC_SSE = (
    'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message",'
    '"role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,'
    '"usage":{"input_tokens":5,"output_tokens":1}}}\n\n'
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
    '"content_block":{"type":"text","text":""}}\n\n'
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
    '"delta":{"type":"text_delta","text":"Hi"}}\n\n'
    'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n'
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},'
    '"usage":{"output_tokens":2}}\n\n'
    'event: message_stop\ndata: {"type":"message_stop"}\n\n'
)


def test_options_come_from_an_instance_a_mapping_or_keywords() -> None:
    """Every way of passing options gives the same frozen value; keywords win."""
    opts = openai_chat.Options(dialect="deepseek", choice=1)
    assert resolve_options(openai_chat.Options, opts) is opts
    assert resolve_options(openai_chat.Options, {"dialect": "deepseek", "choice": "1"}) == opts
    assert resolve_options(openai_chat.Options, opts, {"choice": 2}).choice == 2


def test_string_options_are_coerced_by_the_field_type() -> None:
    """The CLI's ``key=value`` strings become bools, ints and literals."""
    opts = resolve_options(anthropic.Options, {"system_in_messages": "false",
                                               "foreign_thinking": "text"})
    assert opts == anthropic.Options(system_in_messages=False, foreign_thinking="text")


def test_a_resolved_mapping_is_remembered_by_value_and_type() -> None:
    """The same mapping twice gives the same options; equal values of other types do not."""
    first = resolve_options(anthropic.Options, {"system_in_messages": 1})
    assert resolve_options(anthropic.Options, {"system_in_messages": 1}) is first
    assert resolve_options(anthropic.Options, {"system_in_messages": True}).system_in_messages is True
    assert resolve_options(anthropic.Options, {"system_in_messages": "false"}).system_in_messages is False
    with pytest.raises(ValueError, match="expected one of"):  # a refusal is not remembered
        resolve_options(anthropic.Options, {"foreign_thinking": "keep"})
    with pytest.raises(ValueError, match="expected one of"):
        resolve_options(anthropic.Options, {"foreign_thinking": "keep"})


def test_an_unknown_option_names_the_fields_there_are() -> None:
    """A typo is refused with the list of valid fields, not ignored."""
    with pytest.raises(ValueError, match="dialect, developer_role"):
        resolve_options(openai_chat.Options, {"dialekt": "x"})
    with pytest.raises(ValueError, match="expected one of"):
        resolve_options(anthropic.Options, {"foreign_thinking": "keep"})


def test_params_cannot_override_what_to_wire_builds() -> None:
    """``params`` adds fields; a built field in it is an error, in every adapter alike."""
    assert merge_params({"a": 1}, {"b": 2}) == {"a": 1, "b": 2}
    with pytest.raises(ValueError, match="params\\['messages'\\]"):
        merge_params({"messages": []}, {"messages": [1]})
    for name in ("anthropic", "openai_chat"):
        with pytest.raises(ValueError, match="conflicts"):
            get_adapter(name).to_wire([UserMessage("hi")], model="m", params={"model": "x"})


def test_every_registered_adapter_satisfies_the_protocol() -> None:
    """Each adapter that is implemented has the whole surface, ``Options`` included."""
    found = 0
    for name in ADAPTER_NAMES:
        try:
            adapter = get_adapter(name)
        except UnknownAdapterError:
            continue
        found += 1
        assert isinstance(adapter, Adapter)
        assert adapter.Options() is not None
    assert found >= 2


def test_a_stream_has_one_identity_for_every_accumulator() -> None:
    """The snapshot a UI folds and the completed message share one id and created_at."""
    ui = Accumulator()
    snapshots: list[Any] = []
    final = None
    for event in anthropic.stream(_ANTHROPIC_SSE.encode()):
        ui.feed(event)
        snapshots.append((ui.message.id, ui.message.created_at))
        if event.type == "message_complete":
            final = event.message
    assert final is not None
    assert set(snapshots) == {(final.id, final.created_at)}


def test_an_error_first_stream_still_opens_with_its_identity() -> None:
    """A stream whose first item is an error starts with a start event carrying the id."""
    events = list(openai_chat.stream([{"error": {"message": "overloaded", "code": 529}}]))
    assert isinstance(events[0], MessageStartEvent)
    assert events[0].message_id == events[-1].message.id  # type: ignore[union-attr]


@pytest.mark.parametrize("body", [42, None, "text", [], "[" * 100_000, b"\xff\xfe{"])
@pytest.mark.parametrize("adapter", [anthropic, openai_chat])
def test_bodies_that_are_no_response_raise_wire_format_errors(adapter: Adapter, body: Any) -> None:
    """A body that is not a JSON object at all is refused with partwire's error."""
    with pytest.raises(WireFormatError):
        adapter.from_wire(body)


@pytest.mark.parametrize("body", [{"content": 3}, {"content": [{"type": 1}]}, {"choices": 7},
                                  {"content": [], "usage": "lots"}, {"choices": [{"message": 1}]},
                                  {"content": [{"type": "text", "text": 5}]}])
@pytest.mark.parametrize("adapter", [anthropic, openai_chat])
def test_wrong_types_inside_a_response_raise_only_wire_format_errors(adapter: Adapter,
                                                                      body: Any) -> None:
    """A wrong type in a field is read tolerantly or refused with partwire's error, never more."""
    with contextlib.suppress(WireFormatError):
        adapter.from_wire(body)


@pytest.mark.parametrize("body", [42, None, "x", {"messages": 5}, {"messages": [{"role": 3}]},
                                  {"messages": [{"role": "user", "content": [{"type": []}]}]},
                                  "[" * 100_000])
@pytest.mark.parametrize("adapter", [anthropic, openai_chat])
def test_hostile_request_bodies_raise_only_wire_format_errors(adapter: Adapter, body: Any) -> None:
    """Whatever the body, ``from_wire_request`` raises partwire's error."""
    with contextlib.suppress(WireFormatError):
        adapter.from_wire_request(body)


@pytest.mark.parametrize("chunks", [b"data: 42\n\n", [{"type": 5}], [{"choices": "x"}], b"\xff\xfe",
                                    [{"type": "content_block_delta", "index": "a", "delta": 3}]])
@pytest.mark.parametrize("adapter", [anthropic, openai_chat])
def test_hostile_streams_raise_only_wire_format_errors(adapter: Adapter, chunks: Any) -> None:
    """A stream of garbage ends in partwire's error or a message, never another exception."""
    with contextlib.suppress(WireFormatError):
        list(adapter.stream(chunks))


def test_a_tool_status_an_api_cannot_carry_is_reported_alike_everywhere() -> None:
    """A denied tool result gives one loss on ``.status``: downgraded where the API has an error
    flag, dropped where it has none, never another path or action."""
    from partwire import ToolCallPart, ToolMessage

    call = ToolCallPart.create("f", {})
    history: list[HistoryEvent] = [UserMessage("q"), AssistantMessage([call]),
               ToolMessage("no", call_id=call.id, tool_name="f", status="denied")]
    seen = {}
    for name in ADAPTER_NAMES:
        try:
            adapter = get_adapter(name)
        except UnknownAdapterError:
            continue
        found = [(x.path, x.part_type, x.action) for x in
                 adapter.to_wire(history, model="m").losses if x.path.startswith("history[2]")]
        seen[name] = found
        assert len(found) == 1, name
        assert found[0][:2] == ("history[2].status", "tool_message"), name
        assert found[0][2] in ("downgraded", "dropped"), name
    assert len(seen) >= 2


def test_at_path_says_where_a_reader_failed() -> None:
    """A hostile exception becomes a WireFormatError at the item's path, chained; others keep theirs."""
    from partwire.adapters._kernel import at_path

    cause = AttributeError("'int' object has no attribute 'get'")
    error = at_path(cause, "openai_chat", "request", "messages[2]")
    assert isinstance(error, WireFormatError)
    assert error.path == "messages[2]"
    assert error.__cause__ is cause
    assert str(error) == ("openai_chat: not a valid request at messages[2]: "
                          "AttributeError: 'int' object has no attribute 'get'")
    unplaced = WireFormatError("anthropic", "request", "a tool_result has no tool_use_id")
    assert at_path(unplaced, "anthropic", "request", "messages[4]") is unplaced
    assert unplaced.path == "messages[4]"
    assert "at messages[4]:" in str(unplaced)
    placed = WireFormatError("anthropic", "request", "not an object", "system[0]")
    assert at_path(placed, "anthropic", "request", "system") is placed
    assert placed.path == "system[0]"
    interrupt = KeyboardInterrupt()
    assert at_path(interrupt, "anthropic", "request", "messages[0]") is interrupt


@pytest.mark.parametrize(("adapter", "body", "path"), [
    (anthropic, {"model": "m", "max_tokens": 5, "messages": [
        {"role": "user", "content": "hi"},
        {"role": "user", "content": [{"type": "tool_result", "content": "x"}]}]}, "messages[1]"),
    (anthropic, {"model": "m", "max_tokens": 5, "messages": [{"role": "robot", "content": "x"}]},
     "messages[0].role"),
    (openai_chat, {"model": "m", "messages": [{"role": "user", "content": "hi"}, 7]}, "messages[1]"),
    (openai_chat, {"model": "m", "messages": [{"role": "tool", "content": "x"}]}, "messages[0]"),
])
def test_a_refused_request_names_the_message(adapter: Any, body: dict[str, Any], path: str) -> None:
    """The error for a request the reader cannot take names the message, as a JSON path."""
    with pytest.raises(WireFormatError) as caught:
        adapter.from_wire_request(body)
    assert caught.value.path == path
    assert f" at {path}: " in str(caught.value)


def test_a_content_part_of_a_known_type_and_a_strange_shape_is_kept_whole() -> None:
    """A Chat file part whose file is not an object is kept as it came and sent back unchanged."""
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "read this"}, {"type": "file", "file": 5}]}]}
    imported = openai_chat.from_wire_request(body)
    kwargs = imported.to_wire_kwargs()
    assert openai_chat.to_wire(imported.history, **kwargs).request == body


def test_a_recorded_loss_is_the_loss_its_constructor_makes() -> None:
    """LossCollector.add (which sets the slots itself) gives a Loss equal to Loss(...), frozen alike."""
    import dataclasses

    from partwire.adapters._losses import LossCollector
    from partwire.projection import Loss

    losses = LossCollector("google")
    losses.add("history[2].parts[0]", "thinking", "dropped", "not verifiable here", "m1")
    losses.add("history[3]", "tool_message", "downgraded", "no status")
    made = [Loss("history[2].parts[0]", "thinking", "dropped", "not verifiable here", "google", "m1"),
            Loss("history[3]", "tool_message", "downgraded", "no status", "google")]
    assert losses.items == made
    assert [hash(x) for x in losses.items] == [hash(x) for x in made]
    assert [repr(x) for x in losses.items] == [repr(x) for x in made]
    with pytest.raises(dataclasses.FrozenInstanceError):
        losses.items[0].path = "elsewhere"  # type: ignore[misc]


def test_a_tool_read_before_is_the_same_definition_and_a_kept_dict_is_the_callers() -> None:
    """Imported tools are remembered by their JSON: the same tool gives the same definition,
    equal values of other JSON types do not, and a tool kept as a dict is never another's."""
    def tool(enum: list[Any]) -> dict[str, Any]:
        return {"type": "function", "function": {
            "name": "pick", "description": "Pick one.",
            "parameters": {"type": "object", "properties": {"n": {"enum": enum}}}}}

    first = openai_chat.from_wire_request({"messages": [], "tools": [tool([1])]}).tools[0]
    again = openai_chat.from_wire_request({"messages": [], "tools": [tool([1])]}).tools[0]
    assert isinstance(first, ToolDefinition)
    assert again is first
    as_bool = openai_chat.from_wire_request({"messages": [], "tools": [tool([True])]}).tools[0]
    assert isinstance(as_bool, ToolDefinition)
    assert as_bool.input_schema["properties"] == {"n": {"enum": [True]}}
    body = {"messages": [], "tools": [tool([1])]}
    sent = openai_chat.to_wire(openai_chat.from_wire_request(body).history, model="m",
                               tools=[as_bool]).request["tools"]
    assert json.dumps(sent) == json.dumps([tool([True])])  # == alone would take True for 1
    kept = {"type": "custom", "custom": {"name": "x", "format": {"type": "text"}}}  # no canonical form
    for _ in range(2):
        copy = json.loads(json.dumps(kept))
        assert openai_chat.from_wire_request({"messages": [], "tools": [copy]}).tools[0] is copy


def test_a_strict_rewrite_is_worked_out_once_per_definition() -> None:
    """The strict parameters of one definition are one object; another definition gets its own."""
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    one = ToolDefinition(name="t", description="", input_schema=schema, side_effects="none", strict=True)
    two = ToolDefinition(name="t", description="", input_schema=schema, side_effects="none", strict=True)
    params, changes = strict_parameters(one)
    assert strict_parameters(one)[0] is params
    assert changes == strict_schema(schema)[1]
    assert params == {"type": "object", "properties": {"a": {"type": ["string", "null"]}},
                      "required": ["a"], "additionalProperties": False}
    assert strict_parameters(two)[0] is not params
    assert strict_parameters(two)[0] == params


def _rewritten(node: Any, path: str, changes: list[str]) -> Any:
    """The strict rewrite as plainly as it can be said: every object node copied, each property
    made required (and nullable when it was not), ``additionalProperties: false`` on objects."""
    if not isinstance(node, Mapping):
        return node
    out = dict(node)
    properties = out.get("properties")
    if isinstance(properties, Mapping):
        required = list(out.get("required") or [])
        new_props = {}
        for name, sub in properties.items():
            child = _rewritten(sub, f"{path}/properties/{name}", changes)
            if name not in required:
                required.append(name)
                child = {**child, "type": [child["type"], "null"]} if isinstance(child, Mapping) \
                    and isinstance(child.get("type"), str) and child["type"] != "null" else child
                changes.append(f"{path}/properties/{name}: made required and nullable")
            new_props[name] = child
        out["properties"], out["required"] = new_props, required
    if "items" in out:
        out["items"] = _rewritten(out["items"], f"{path}/items", changes)
    if (out.get("type") == "object" or isinstance(properties, Mapping)) and out.get("additionalProperties") is not False:
        out["additionalProperties"] = False
        changes.append(f"{path}: additionalProperties set to false")
    return out


_STRICT_LEAF = st.fixed_dictionaries({"type": st.sampled_from(["string", "null", "integer"])})
_STRICT_NODE = st.recursive(_STRICT_LEAF, lambda inner: st.fixed_dictionaries({}, optional={
    "type": st.just("object"),
    "properties": st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3)
    | st.builds(MappingProxyType, st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2)),
    "required": st.sampled_from([["a"], ["a", "b"], ("a", "b", "c"), [], None, ["c", "b", "a"]]),
    "additionalProperties": st.sampled_from([False, True]),
    "items": inner}), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(_STRICT_NODE)
def test_a_strict_rewrite_copies_only_what_it_rewrites(schema: dict[str, Any]) -> None:
    """The strict rewrite equals the plain rewrite that copies every node (the same value, the
    same types, the same changes in the same order) and leaves the schema given as it was; a
    node already in strict form comes back itself, and so does the whole schema once rewritten."""
    expected_changes: list[str] = []
    expected = _rewritten(schema, "#", expected_changes)
    got, changes = strict_schema(schema)
    assert changes == expected_changes
    assert marshal.dumps(got, 2) == marshal.dumps(expected, 2)
    again, more = strict_schema(got)
    assert again is got
    assert more == []
    after: list[str] = []
    assert marshal.dumps(_rewritten(schema, "#", after), 2) == marshal.dumps(expected, 2)
    assert after == expected_changes  # the schema given was not changed in place


def test_small_provider_data_is_shared_and_anything_else_validated_as_before() -> None:
    """Equal small marks give one immutable instance; a tuple (not JSON) is refused even after
    its list twin was remembered; large data is a new instance each time."""
    marks = {"block": {"cache_control": {"type": "ephemeral"}}}
    first = shared_provider_data("anthropic", marks)
    assert shared_provider_data("anthropic", json.loads(json.dumps(marks))) is first
    assert shared_provider_data("openai", marks) is not first
    assert shared_provider_data("anthropic", {"layout": [1, 2]}).data == {"layout": [1, 2]}
    with pytest.raises(ValidationError):
        shared_provider_data("anthropic", {"layout": (1, 2)})
    with pytest.raises(ValidationError):
        shared_provider_data("anthropic", {"when": object()})
    big = {"block": {"text": "x" * 1000}}
    assert shared_provider_data("anthropic", big) is not shared_provider_data("anthropic", big)
    user = anthropic.from_wire_request({"messages": [{"role": "user", "content": [
        {"type": "text", "text": "a", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "b", "cache_control": {"type": "ephemeral"}}]}]}).history[0]
    assert isinstance(user, UserMessage)
    assert user.parts[0].provider_data is user.parts[1].provider_data


def test_a_remembered_tool_changed_in_place_is_not_given_to_later_imports() -> None:
    """A body that shares an imported schema and is then edited in place does not change what
    the same tool JSON reads as afterwards."""
    tool = {"name": "grep", "description": "Search.",
            "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}
    first = anthropic.from_wire_request({"messages": [], "tools": [json.loads(json.dumps(tool))]}).tools[0]
    assert isinstance(first, ToolDefinition)
    sent = anthropic.to_wire((UserMessage("hi"),), model="m", tools=[first]).request
    sent["tools"][0]["input_schema"]["properties"]["q"]["type"] = "integer"  # edited in place
    again = anthropic.from_wire_request({"messages": [], "tools": [json.loads(json.dumps(tool))]}).tools[0]
    assert isinstance(again, ToolDefinition)
    assert again.input_schema == tool["input_schema"]


def test_imported_request_is_the_dataclass_its_init_makes() -> None:
    """The readers' fast constructor gives an ImportedRequest equal to the validated one, frozen."""
    from dataclasses import FrozenInstanceError

    from partwire.adapters._reading import imported_request
    from partwire.adapters.requests import ImportedRequest

    made = imported_request((UserMessage("hi"),), (), "m", 10, "auto", {"temperature": 0}, {"dialect": "x"})
    same = ImportedRequest(history=made.history, tools=(), model="m", max_tokens=10, tool_choice="auto",
                           params={"temperature": 0}, options={"dialect": "x"})
    assert made == same
    assert repr(made) == repr(same)
    history, tools = made  # unpacks as history, tools
    assert (history, tools) == (made.history, ())
    with pytest.raises(FrozenInstanceError):
        made.model = "other"  # type: ignore[misc]


@pytest.mark.parametrize("name", ["anthropic", "openai_chat", "openai_responses", "google", "bedrock",
                                  "ollama"])
@pytest.mark.parametrize("decoder", ["from_wire", "from_wire_request"])
def test_the_decoder_boundary_turns_only_hostile_exceptions_into_wire_format_errors(
        name: str, decoder: str) -> None:
    """Each public decoder's reader raising: a hostile exception leaves as a WireFormatError
    naming the API and what was read, its cause the original; partwire's own error and an
    interrupt leave as they are."""
    from partwire.adapters._surface import Docs, surface

    module = __import__(f"partwire.adapters.{name}", fromlist=["_"])
    raised: list[BaseException] = []

    def reader(*args: Any, **kwargs: Any) -> Any:
        raise raised[-1]

    # The adapter's surface as the kernel makes it, over a reader that raises what it is told.
    made = surface(module.NAME, module.Options, module.__name__, build=reader, decode=reader,
                   read=reader, translator=reader, count=reader, docs=Docs(*"abcdef"))
    public = getattr(made, decoder)
    what = "response" if decoder == "from_wire" else "request"
    raised.append(KeyError("usage"))
    with pytest.raises(WireFormatError) as caught:
        public({})
    assert caught.value.__cause__ is raised[-1]
    assert caught.value.__suppress_context__
    assert str(caught.value).startswith(f"{module.NAME}: not a valid {what}")
    assert "missing field 'usage'" in str(caught.value)
    own = WireFormatError(module.NAME, what, "no content", "content")
    raised.append(own)
    with pytest.raises(WireFormatError) as caught:
        public({})
    assert caught.value is own
    raised.append(KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        public({})
