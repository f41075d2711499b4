"""Hostile input and misuse of the Python API reach the caller as partwire's own errors, naming
what and where: lone surrogates, bodies of another API, string content in an Anthropic stream,
fuzzed streams, arguments checked at construction, opening what is not there, and one name per
adapter. The command line's share is in ``test_cli.py``, the store's in ``test_store.py``.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from partwire import (
    ArgumentError,
    AssistantMessage,
    PartwireError,
    Session,
    TextPart,
    ToolCallPart,
    UserMessage,
)
from partwire.adapters import ADAPTER_ALIASES, ADAPTER_NAMES, get_adapter
from partwire.adapters._kernel import dry_run
from partwire.codec import Writer, dump, dumps, encode, load, loads, rewrite
from partwire.convert import convert
from partwire.errors import UnknownAdapterError, WireFormatError
from partwire.history import HistoryEvent
from partwire.ids import split_model_id
from partwire.switch import check_switch
from tests.harness.corpus import CORPUS
from tests.harness.depth import examples

MODELS = {"anthropic": "claude-sonnet-4-6", "openai_chat": "gpt-5", "openai_responses": "gpt-5",
          "google": "gemini-2.5-pro", "bedrock": "anthropic.claude-sonnet-4-20250514-v1:0",
          "ollama": "qwen3:8b",
          "cohere": "command-a-03-2025"}

# -- lone surrogates -----------------------------------------------------------------------

# Each line holds a lone surrogate (a JSON escape UTF-8 cannot encode) in another place: a text,
# a tool call's name and arguments, metadata and an unknown field, an unknown part, an unknown event.
SURROGATE_LINES = [
    b'{"v":1,"type":"message","id":"01J00000000000000000000001","created_at":"2026-01-01T00:00:00Z",'
    b'"role":"user","parts":[{"type":"text","text":"a\\ud800b"}]}',
    b'{"v":1,"type":"message","id":"01J00000000000000000000002","created_at":"2026-01-01T00:00:01Z",'
    b'"role":"assistant","model":"anthropic:claude-sonnet-4-6","provider":"anthropic","parts":'
    b'[{"type":"tool_call","id":"tu_1","name":"f\\udfff","arguments_json":"{\\"a\\":\\"\\\\ud800\\"}"}]}',
    b'{"v":1,"type":"message","id":"01J00000000000000000000003","created_at":"2026-01-01T00:00:02Z",'
    b'"role":"user","metadata":{"k\\udc00":"v\\ud801"},"x_extra":"\\udbff","parts":[{"type":"hologram","t":"\\ud800"}]}',
    b'{"v":1,"type":"hologram","id":"01J00000000000000000000004","x":"\\udfff"}',
]


def test_lone_surrogates_load_and_dump_back_as_the_same_escapes(tmp_path: Path) -> None:
    """Lines holding lone surrogates load, and encode, dumps, dump and Writer write them back as
    the escapes they were: load -> dump -> load is the identity, and a second dump the same bytes."""
    data = b"\n".join(SURROGATE_LINES) + b"\n"
    events = loads(data)
    assert "\ud800" in events[0].text  # type: ignore[union-attr]
    written = dumps(events)
    assert b"\\ud800" in written
    assert b"\\udfff" in written
    written.decode("utf-8")  # valid UTF-8: the surrogates are escapes, not bytes
    again = loads(written)
    assert [encode(e) for e in again] == [encode(e) for e in events]
    assert dumps(again) == written
    dump(events, tmp_path / "d.jsonl")
    assert (tmp_path / "d.jsonl").read_bytes() == written
    with Writer(tmp_path / "w.jsonl") as writer:
        writer.append(events[0])
        writer.extend(events[1:])
    assert (tmp_path / "w.jsonl").read_bytes() == written
    assert [encode(e) for e in load(tmp_path / "w.jsonl")] == [encode(e) for e in events]


def test_a_line_without_surrogates_encodes_as_before() -> None:
    """The escape path is taken only by lines that need it: other lines are pydantic's bytes."""
    message = UserMessage("plain \u00e9 text")
    assert encode(message) == message.model_dump_json().encode()


def test_rewrite_keeps_lone_surrogates(tmp_path: Path) -> None:
    """rewrite writes a file with lone surrogates back; reading the result gives the same events."""
    source = tmp_path / "h.jsonl"
    source.write_bytes(dumps(loads(b"\n".join(SURROGATE_LINES))))
    rewrite(source, tmp_path / "out.jsonl")
    assert (tmp_path / "out.jsonl").read_bytes() == source.read_bytes()


@pytest.mark.parametrize("target", ADAPTER_NAMES)
def test_convert_takes_lone_surrogates_to_every_api(target: str) -> None:
    """A history with lone surrogates converts to every API; the request can be written as JSON."""
    # The text only: a loss naming a surrogate (a tool's name) would reach the log capture, which
    # pytest-xdist cannot send between processes.
    history = loads(SURROGATE_LINES[0])
    request, _ = convert(history, source="canonical", target=target, model=MODELS[target])
    text = json.dumps(request)  # ensure_ascii: the escapes a client sends
    assert "\\ud800" in text


_ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=12)  # lone surrogates included


@settings(max_examples=examples(100), deadline=None)
@given(text=_ANY_TEXT, name=_ANY_TEXT, key=_ANY_TEXT)
def test_any_text_survives_dump_load_and_converts_everywhere(text: str, name: str, key: str) -> None:
    """Any text, lone surrogates included, in a part, a tool call and metadata: dumps then loads
    gives the same line bytes, and every adapter projects it without a foreign exception."""
    call = ToolCallPart(id="tu_1", name=name, arguments_json="{}")
    history: list[HistoryEvent] = [
        UserMessage(text, metadata={key: text}),
        AssistantMessage([TextPart(text=text), call], model="anthropic:claude-sonnet-4-6",
                         provider="anthropic"),
    ]
    written = dumps(history)
    assert dumps(loads(written)) == written
    # dry_run: no loss is logged, so no surrogate reaches the log capture (which pytest-xdist
    # cannot send between processes). A refusal must be partwire's own.
    for adapter in ADAPTER_NAMES:
        with dry_run(), contextlib.suppress(PartwireError):
            get_adapter(adapter).to_wire(history, model=MODELS[adapter])


# -- an Anthropic stream whose message_start holds a string ------------------------------------


def _anthropic_start(content: Any) -> dict[str, Any]:
    return {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
        "content": content, "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 1}}}


@pytest.mark.parametrize("content", ["x" * 1_000_000, 7, {"type": "text"}])
def test_an_anthropic_stream_refuses_content_that_is_no_list_as_from_wire_does(content: Any) -> None:
    """message_start with a string (or any non-list) content is refused like the same response
    given whole, instead of one unknown part per character."""
    anthropic = get_adapter("anthropic")
    with pytest.raises(WireFormatError, match="no content list") as caught:
        list(anthropic.stream([_anthropic_start(content), {"type": "message_stop"}]))
    assert caught.value.path == "message.content"
    whole = {**_anthropic_start(content)["message"], "stop_reason": "end_turn"}
    with pytest.raises(WireFormatError, match="no content list"):
        anthropic.from_wire(whole)


# -- a body of another API ---------------------------------------------------------------------


def _bodies(name: str, kind: str) -> list[dict[str, Any]]:
    out = []
    for path in sorted((CORPUS / name.replace("_", "-")).glob("*.json"))[:60]:
        body = json.loads(path.read_text()).get(kind)
        if isinstance(body, dict) and not isinstance(body.get("error"), dict):
            out.append(body)
    return out


# Anthropic, Chat Completions and Bedrock Converse requests share their one required key
# (``messages``) and the role/content message shape, so each reader takes the others' requests,
# keeping the blocks it does not know as unknown parts (a Converse ``{"text": ...}`` block in an
# Anthropic request, an Anthropic ``{"type": "text", ...}`` block in a Converse one).
_MESSAGES_APIS = ("anthropic", "openai_chat", "bedrock")
# Ollama's chat body is Chat Completions' in shape: a body of plain texts is valid for both, and
# Anthropic's lenient reader takes one too.
SHARED_REQUESTS = {(a, b) for a in _MESSAGES_APIS for b in _MESSAGES_APIS if a != b} | {
    ("ollama", "openai_chat"), ("openai_chat", "ollama"), ("anthropic", "ollama")}
# Cohere's requests are Chat Completions' shape (its roles, tool calls and tools): a Chat body
# with none of Chat's own signs reads as Cohere's, whole.
SHARED_REQUESTS |= {("cohere", "openai_chat"), ("openai_chat", "cohere")}
# Ollama runs open-weight Cohere models (command-r) under their names: a body of plain texts
# is valid for both.
SHARED_REQUESTS |= {("cohere", "ollama"), ("ollama", "cohere")}


@pytest.mark.parametrize("reader", ADAPTER_NAMES)
@pytest.mark.parametrize("writer", ADAPTER_NAMES)
def test_a_body_of_another_api_is_refused(reader: str, writer: str) -> None:
    """Every real response of another API is refused by from_wire, and every real request by
    from_wire_request (but where the two APIs' requests share their shape), with WireFormatError."""
    if reader == writer:
        return
    adapter = get_adapter(reader)
    responses = _bodies(writer, "response")
    assert responses
    for body in responses:
        with pytest.raises(WireFormatError):
            adapter.from_wire(body)
    if (reader, writer) in SHARED_REQUESTS:
        return
    for body in _bodies(writer, "request"):
        with pytest.raises(WireFormatError):
            adapter.from_wire_request(body)


@pytest.mark.parametrize("name", ADAPTER_NAMES)
@pytest.mark.parametrize("body", [{}, {"foo": 1}, {"id": "x", "object": "thing"}])
def test_a_body_with_none_of_the_apis_keys_is_refused_naming_what_was_expected(
        name: str, body: dict[str, Any]) -> None:
    """An object with none of an API's keys is not an empty answer or an empty request."""
    adapter = get_adapter(name)
    with pytest.raises(WireFormatError) as response:
        adapter.from_wire(body)
    with pytest.raises(WireFormatError) as request:
        adapter.from_wire_request(body)
    expected = {"anthropic": "content", "openai_chat": "choices", "openai_responses": "output",
                "google": "candidates", "bedrock": "output.message", "ollama": "message",
                "cohere": "message"}[name]
    assert expected in str(response.value)
    assert request.value.path in ("messages", "input", "contents")


# -- arguments checked at construction ---------------------------------------------------------


@pytest.mark.parametrize(("call", "argument", "says"), [
    (lambda: UserMessage(123), "content", "not int"),  # type: ignore[arg-type]
    (lambda: UserMessage(["hi", 4]), "content[1]", "not int"),  # type: ignore[list-item]
    (lambda: AssistantMessage(b"hi"), "content[0]", "not int"),  # type: ignore[arg-type]
    (lambda: ToolCallPart.create("calc", "1+1"), "arguments", "arguments_json"),  # type: ignore[arg-type]
    (lambda: ToolCallPart.create("calc", [1]), "arguments", "not list"),  # type: ignore[arg-type]
    (lambda: Session("claude-sonnet-4-6"), "target", "did you mean 'anthropic:claude-sonnet-4-6'"),
    (lambda: Session("anthropic:"), "target", "is not '<adapter>:<model>'"),
    (lambda: Session("anthropic:gpt-5"), "target", "model 'gpt-5' is openai's"),
    (lambda: Session("google:claude-sonnet-4-6"), "target", "is anthropic's"),
    (lambda: Session("openai_responses:gemini-2.5-pro"), "target", "is google's"),
    (lambda: Session(3), "target", "not int"),  # type: ignore[arg-type]
    (lambda: Session("anthropic:claude-sonnet-4-6", cache="sometimes"), "cache", "'auto'"),  # type: ignore[arg-type]
    (lambda: get_adapter("anthropic").to_wire([UserMessage("hi")], model="openai:gpt-5"), "model",
     "belongs to 'openai'"),
    (lambda: get_adapter("anthropic").to_wire([UserMessage("hi")], model="claude-sonnet-4-6",
                                              options={"system_in_messages": "maybe"}),
     "options", "expected true or false"),
    (lambda: get_adapter("openai_chat").to_wire([UserMessage("hi")], model="gpt-5",
                                                options={"choice": "first"}),
     "options", "expected an integer"),
    (lambda: convert([UserMessage("hi")], source="canonical", target="anthropic",
                     model="claude-sonnet-4-6", options={"system_in_messages": "maybe"}),
     "options", "system_in_messages='maybe'"),
    (lambda: Writer("/nonexistent/x.jsonl", fsync="sometimes"), "fsync", "'on_close'"),  # type: ignore[arg-type]
    (lambda: split_model_id("gpt-5"), "model_id", "'provider:model'"),
    (lambda: get_adapter("anthropic").to_wire([UserMessage("hi")], model="claude-sonnet-4-6",
                                              params={"messages": []}), "params", "conflicts"),
    (lambda: get_adapter("google").to_wire([UserMessage("hi")], model="gemini-2.5-pro",
                                           params={"generationConfig": 3}), "params", "an object"),
    (lambda: get_adapter("openai_responses").to_wire([UserMessage("hi")], model="gpt-5",
                                                     params={"input": []}), "params", "conflicts"),
    (lambda: get_adapter("anthropic").to_wire([UserMessage("hi")], model="claude-sonnet-4-6",
                                              options=["drop"]), "options", "not list"),
    (lambda: convert(42, source="canonical", target="anthropic"), "data", "JSONL bytes"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_misuse_is_an_argument_error_naming_the_argument(call: Any, argument: str, says: str) -> None:
    """Each misuse raises ArgumentError (a PartwireError and a ValueError) naming the argument."""
    with pytest.raises(ArgumentError) as caught:
        call()
    assert caught.value.argument == argument
    assert says in str(caught.value)
    assert isinstance(caught.value, PartwireError)
    assert isinstance(caught.value, ValueError)


def test_a_session_on_a_dialect_takes_any_model() -> None:
    """Aggregators serve every family: openai_chat with dialect=openrouter takes a claude model."""
    session = Session("openai_chat:anthropic/claude-sonnet-4-6", options={"dialect": "openrouter"})
    assert session.target.model == "anthropic/claude-sonnet-4-6"


def test_the_right_arguments_still_construct() -> None:
    """The checks refuse only misuse: strings, parts, dicts and tuples of them are content."""
    message = UserMessage(("hi", TextPart(text="there"), {"type": "text", "text": "!"}))  # type: ignore[arg-type]
    assert message.text == "hithere!"
    assert ToolCallPart.create("calc", {"x": 1}).arguments == {"x": 1}
    assert ToolCallPart.create("calc").arguments_json == "{}"


# -- fuzzed streams ----------------------------------------------------------------------------

HOSTILE_STREAMS: dict[str, list[dict[str, Any]]] = {
    "anthropic": [_anthropic_start([]),
                  {"type": "content_block_start", "index": 0,
                   "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}},
                  {"type": "content_block_delta", "index": 0,
                   "delta": {"type": "thinking_delta", "thinking": "x"}}],
    "openai_responses": [{"type": "response.created", "response": {
                             "id": "resp_1", "object": "response", "status": "in_progress",
                             "model": "gpt-5", "output": []}},
                         {"type": "response.output_item.added", "output_index": 0, "item": {
                             "type": "function_call", "id": "fc_1", "call_id": "c", "name": "f",
                             "arguments": ""}},
                         {"type": "response.output_text.delta", "output_index": 0,
                          "content_index": 0, "item_id": "fc_1", "delta": "x"}],
}


@pytest.mark.parametrize("name", sorted(HOSTILE_STREAMS))
async def test_events_that_do_not_fit_together_are_a_wire_format_error(name: str) -> None:
    """A stream whose events address a part of another kind is the input's fault: WireFormatError
    (chaining the accumulator's StreamProtocolError), from stream and astream alike."""
    adapter = get_adapter(name)
    with pytest.raises(WireFormatError, match="cannot extend the tool_call part") as caught:
        list(adapter.stream(HOSTILE_STREAMS[name]))
    assert type(caught.value.__cause__).__name__ == "StreamProtocolError"

    async def chunks() -> Any:
        for chunk in HOSTILE_STREAMS[name]:
            yield chunk

    with pytest.raises(WireFormatError, match="cannot extend"):
        async for _ in adapter.astream(chunks()):
            pass


# -- opening is not creating -------------------------------------------------------------------


def test_opening_a_missing_file_says_it_is_missing(tmp_path: Path) -> None:
    """Session.open on a missing file names it and create=, with or without a target; nothing is made."""
    missing = tmp_path / "nope.jsonl"
    for target in (None, "anthropic:claude-sonnet-4-6"):
        with pytest.raises(ArgumentError, match=r"nope\.jsonl' does not exist"):
            Session.open(missing, target)
    assert not missing.exists()


def test_opening_a_history_without_a_model_says_why(tmp_path: Path) -> None:
    """A file that exists but names no model asks for target=, saying the file holds no model."""
    path = tmp_path / "h.jsonl"
    dump([UserMessage("hi")], path)
    with pytest.raises(ArgumentError, match="names no model") as caught:
        Session.open(path)
    assert caught.value.argument == "target"
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(ArgumentError, match="holds no events"):
        Session.open(empty)


def test_opening_a_session_the_store_lacks_says_so(tmp_path: Path) -> None:
    """Session.open(store, session_id="typo") raises NotFoundError naming the id; create=True starts it."""
    from partwire.store import NotFoundError, open_store

    with open_store(tmp_path / "s.db") as store:
        with pytest.raises(NotFoundError, match="'typo' is not in the store; pass create=True"):
            Session.open(store, session_id="typo")
        assert store.sessions() == []
        session = Session.open(store, "anthropic:claude-sonnet-4-6", session_id="typo", create=True)
        session.append(UserMessage("hi"))
        assert [s.session_id for s in store.sessions()] == ["typo"]


# -- one name per adapter ----------------------------------------------------------------------


@pytest.mark.parametrize(("alias", "name"), sorted(ADAPTER_ALIASES.items()))
def test_every_alias_names_its_adapter_everywhere(alias: str, name: str) -> None:
    """get_adapter, convert, check_switch and Session take each alias for the same adapter."""
    assert get_adapter(alias) is get_adapter(name)
    history = [UserMessage("hi")]
    via_alias, _ = convert(history, source="canonical", target=alias, model=MODELS[name])
    direct, _ = convert(history, source="canonical", target=name, model=MODELS[name])
    assert via_alias == direct
    assert check_switch(history, alias, model=MODELS[name]) == check_switch(history, name, model=MODELS[name])
    assert Session(f"{alias}:{MODELS[name]}").target.adapter == name


def test_an_unknown_adapter_lists_the_names_and_aliases() -> None:
    """The error for a wrong name lists every adapter with its aliases."""
    with pytest.raises(UnknownAdapterError) as caught:
        get_adapter("claude")
    for alias, name in ADAPTER_ALIASES.items():
        assert alias in str(caught.value)
        assert name in str(caught.value)
    with pytest.raises(UnknownAdapterError, match="known adapters are"):
        Session("claude:claude-sonnet-4-6")
