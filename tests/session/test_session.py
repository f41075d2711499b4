"""The session's bookkeeping: streams and responses folded into the history and the sink, switches,
compaction, resume after a crash, and prompt caching that keeps the earlier request's prefix."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from partwire import (
    ArgumentError,
    AssistantMessage,
    CompactionEvent,
    ErrorEvent,
    HistoryEvent,
    ImagePart,
    LossError,
    ModelSwitchEvent,
    ProviderFileSource,
    Session,
    SwitchRefusedError,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UserMessage,
)
from partwire.codec import load
from partwire.parts import Opaque
from partwire.session import DERIVED_KEY, Target
from partwire.streaming import MessageCompleteEvent, MessageStartEvent
from tests.harness.laws import json_default
from tests.harness.validity import request_errors
from tests.laws.test_corpus_laws import ADAPTERS
from tests.session.agent_loop import agent_events

MODEL = {"anthropic": "claude-sonnet-4-6", "openai_chat": "gpt-4.1", "openai_responses": "gpt-5",
         "google": "gemini-2.5-pro", "bedrock": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
         "ollama": "qwen3:8b",
          "cohere": "command-a-03-2025"}


def _sse(text: str = "Hello", *, tool: bool = True) -> list[dict[str, Any]]:
    """An Anthropic stream, as parsed events: text, then one tool call."""
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {
            "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 12, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
    ]
    if tool:
        events += [
            {"type": "content_block_start", "index": 1, "content_block": {
                "type": "tool_use", "id": "toolu_01", "name": "ls", "input": {}}},
            {"type": "content_block_delta", "index": 1, "delta": {
                "type": "input_json_delta", "partial_json": '{"path": "."}'}},
            {"type": "content_block_stop", "index": 1},
        ]
    events += [
        {"type": "message_delta", "delta": {"stop_reason": "tool_use" if tool else "end_turn",
                                            "stop_sequence": None}, "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    ]
    return events


def _session(tmp_path: Path, **kwargs: Any) -> Session:
    session = Session("anthropic:claude-sonnet-4-6", sink=tmp_path / "s.jsonl", **kwargs)
    session.append(SystemMessage("You are terse."), UserMessage("List the files."))
    return session


def test_stream_appends_the_completed_message_under_the_streams_identity(tmp_path: Path) -> None:
    """The message the UI saw start is the one appended to the history and written to the sink."""
    session = _session(tmp_path)
    events = list(session.stream(_sse()))
    start = next(e for e in events if isinstance(e, MessageStartEvent))
    final = session.history[-1]
    assert isinstance(final, AssistantMessage)
    assert final.id == start.message_id
    assert final.status == "complete"
    assert [p.type for p in final.parts] == ["text", "tool_call"]
    session.close()
    assert [e.id for e in load(tmp_path / "s.jsonl")] == [e.id for e in session.history]


def test_a_stream_the_caller_stops_reading_is_appended_aborted(tmp_path: Path) -> None:
    """Leaving the loop mid-stream (closing the generator) stores the partial message as aborted."""
    session = _session(tmp_path)
    stream = session.stream(_sse())
    for event in stream:
        if getattr(event, "text", None) == "Hello":
            break
    stream.close()
    final = session.history[-1]
    assert isinstance(final, AssistantMessage)
    assert final.status == "aborted"
    assert final.stop_reason == "aborted"
    assert final.text == "Hello"


def test_a_stream_error_appends_the_partial_message_and_the_error(tmp_path: Path) -> None:
    """A provider error mid-stream keeps the partial message (status error) and an error event."""
    session = _session(tmp_path)
    chunks = [*_sse()[:3], {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}]
    list(session.stream(chunks))
    message, error = session.history[-2:]
    assert isinstance(message, AssistantMessage)
    assert message.status == "error"
    assert isinstance(error, ErrorEvent)
    assert "Overloaded" in error.message


def test_a_source_that_raises_appends_the_partial_message_and_reraises(tmp_path: Path) -> None:
    """A connection dropped mid-stream (the source raises) stores what came, then re-raises."""
    session = _session(tmp_path)

    def broken() -> Any:
        yield from _sse()[:3]
        raise ConnectionError("reset by peer")

    with pytest.raises(ConnectionError):
        list(session.stream(broken()))
    message, error = session.history[-2:]
    assert isinstance(message, AssistantMessage)
    assert message.status == "error"
    assert message.text == "Hello"
    assert isinstance(error, ErrorEvent)
    assert "reset by peer" in error.message


def test_astream_appends_the_completed_message(tmp_path: Path) -> None:
    """The async twin folds an async source the same way."""
    session = _session(tmp_path)

    async def source() -> AsyncIterator[dict[str, Any]]:
        for item in _sse(tool=False):
            yield item

    async def run() -> list[Any]:
        return [e async for e in session.astream(source())]

    events = asyncio.run(run())
    assert isinstance(events[-1], MessageCompleteEvent)
    assert session.history[-1] == events[-1].message


def test_receive_appends_a_whole_response(tmp_path: Path) -> None:
    """A non-streamed response body is decoded and appended."""
    session = _session(tmp_path)
    message = session.receive({
        "id": "msg_02", "type": "message", "role": "assistant", "model": "claude-sonnet-4-6",
        "content": [{"type": "text", "text": "a.py b.py"}], "stop_reason": "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 5, "output_tokens": 3}})
    assert session.history[-1] is message
    assert message.text == "a.py b.py"


def _signed_history() -> list[Any]:
    return [SystemMessage("sys"), UserMessage("think"),
            AssistantMessage(parts=(ThinkingPart(text="hmm", signature=Opaque(value="sig", issuer="anthropic")),
                                    TextPart(text="ok"))),
            UserMessage("again")]


def test_switch_appends_the_event_and_logs_each_loss_once(caplog: pytest.LogCaptureFixture) -> None:
    """After a switch, the old history's losses are returned and logged once, not every turn."""
    session = Session("anthropic:claude-sonnet-4-6", history=_signed_history())
    session.request()
    losses = session.switch("openai_chat:gpt-4.1", reason="fallback after 529")
    assert [x.part_type for x in losses] == ["thinking"]
    event = session.history[-1]
    assert isinstance(event, ModelSwitchEvent)
    assert (event.from_model, event.to_model) == ("anthropic:claude-sonnet-4-6", "openai:gpt-4.1")
    with caplog.at_level(logging.WARNING, logger="partwire.projection"):
        for text in ("one", "two", "three"):
            assert session.request().request["model"] == "gpt-4.1"
            session.append(AssistantMessage(text), UserMessage("more"))
    assert [r.getMessage() for r in caplog.records] == [str(losses[0])]


def test_settings_are_set_once_overridden_per_request_and_carried_by_a_switch() -> None:
    """A session's settings go into every request; a request's own settings override them for
    that request only; a switch writes them into the new API's own fields."""
    session = Session("anthropic:claude-sonnet-4-6", settings={"max_output_tokens": 300,
                                                               "tool_choice": "required"},
                      history=[UserMessage("List the files.")])
    first = session.request().request
    assert (first["max_tokens"], first["tool_choice"]) == (300, {"type": "any"})
    once = session.request(settings={"max_output_tokens": 50}).request
    assert (once["max_tokens"], once["tool_choice"]) == (50, {"type": "any"})
    assert session.request().request["max_tokens"] == 300
    session.switch("google:gemini-2.5-pro")
    body = session.request().request
    assert body["generationConfig"]["maxOutputTokens"] == 300
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}


def test_a_refused_switch_raises_and_changes_nothing() -> None:
    """A file another provider issued cannot go to OpenAI: the switch raises, the target stays."""
    image = ImagePart(source=ProviderFileSource(file_id="file_1", issuer="anthropic"),
                      media_type="image/png")
    session = Session("anthropic:claude-sonnet-4-6",
                      history=[UserMessage(parts=(TextPart(text="see"), image))])
    with pytest.raises(SwitchRefusedError):
        session.switch("openai_chat:gpt-4.1")
    assert session.target.adapter == "anthropic"
    assert len(session.history) == 1


def test_compaction_sends_the_summary_instead_and_keeps_the_rest() -> None:
    """After compact(upto=...), requests carry the summary and the messages after ``upto``, and
    equal ``to_wire`` of that context; the prefix is stable again on the next turn."""
    events = agent_events(6)
    session = Session("anthropic:claude-sonnet-4-6", history=events, cache="off")
    session.request()
    upto = events[1 + 3 * 3].id  # the second result of round 2
    compaction = session.compact("Rounds 0-2: files read, tests still failing.", upto=upto)
    assert isinstance(session.history[-1], CompactionEvent)
    assert compaction.tokens_before
    messages = session.request().request["messages"]
    assert messages[0]["content"] == "Rounds 0-2: files read, tests still failing."
    assert messages[1]["content"][0]["text"] == "Round 3: reading two files."
    assert "You are a coding agent" in json.dumps(session.request().request["system"])
    before = session.request().request["messages"]
    session.append(*agent_events(8)[-6:])
    after = session.request().request["messages"]
    assert after[:len(before)] == before


def test_compaction_refuses_to_separate_a_call_from_its_result() -> None:
    """Compacting up to a call but not its result would send an orphan result: refused."""
    events = agent_events(2)
    session = Session("anthropic:claude-sonnet-4-6", history=events)
    with pytest.raises(ValueError, match="without its call"):
        session.compact("summary", upto=events[2].id)


def test_needs_compaction_compares_the_estimate_with_the_window() -> None:
    """The token estimate against the context window decides; an unknown window never asks."""
    events = agent_events(20)
    small = Session("anthropic:claude-sonnet-4-6", history=events, context_window=500)
    large = Session("anthropic:claude-sonnet-4-6", history=events, context_window=1_000_000)
    assert small.estimate_tokens() > 500
    assert small.needs_compaction()
    assert not large.needs_compaction()
    unknown = Session("anthropic:no-such-model-xyz", history=events)
    assert unknown.window() is None
    assert not unknown.needs_compaction()


def _crashed(tmp_path: Path) -> tuple[Path, list[Any]]:
    """A JSONL session that crashed while running two parallel tool calls (one answered)."""
    path = tmp_path / "crash.jsonl"
    session = Session("anthropic:claude-sonnet-4-6", sink=path)
    session.append(SystemMessage("You are a coding agent."), UserMessage("Fix it."))
    list(session.stream(_sse()))
    call = session.history[-1]
    assert isinstance(call, AssistantMessage)
    session.append(AssistantMessage(parts=(
        ToolCallPart(id="tu_a", name="read_file", arguments_json='{"path": "a.py"}'),
        ToolCallPart(id="tu_b", name="run", arguments_json='{"cmd": "pytest"}'))))
    session.append(ToolMessage(call_id=call.parts[1].id, tool_name="ls", output_text="a.py"))  # type: ignore[union-attr]
    session.append(ToolMessage(call_id="tu_a", tool_name="read_file", output_text="x = 1"))
    session.close()
    return path, list(session.history)


def test_resume_reloads_and_answers_interrupted_calls(tmp_path: Path) -> None:
    """Session.open loads every event once, answers the call left without a result by a derived
    aborted result (persisted), and continues with the model the history used."""
    path, written = _crashed(tmp_path)
    session = Session.open(path)
    assert session.target == Target(adapter="anthropic", model="claude-sonnet-4-6")
    assert [e.id for e in session.history[:len(written)]] == [e.id for e in written]
    (answer,) = session.history[len(written):]
    assert isinstance(answer, ToolMessage)
    assert answer.call_id == "tu_b"
    assert answer.status == "aborted"
    assert answer.metadata == {DERIVED_KEY: "interrupted_tool_call"}
    session.close()
    assert [e.id for e in load(path)] == [e.id for e in session.history]
    again = Session.open(path)
    assert len(again.history) == len(session.history)  # nothing answered twice


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_resumed_session_gives_a_valid_request_to_every_provider(tmp_path: Path, name: str) -> None:
    """After the resume, the request validates against each provider SDK's own types."""
    path, _ = _crashed(tmp_path)
    session = Session.open(path, f"{name}:{MODEL[name]}")
    assert request_errors(name, session.request().request) == []


def test_resume_from_a_store(tmp_path: Path) -> None:
    """A store session resumes like a file: same events, appends go on with expect_last."""
    from partwire.store import open_store

    with open_store(tmp_path / "s.db") as store:
        session = Session("openai_responses:gpt-5", store=store, session_id="run-1")
        session.append(UserMessage("hi"))
        session.receive({"id": "resp_1", "object": "response", "status": "completed",
                         "model": "gpt-5", "output": [{"type": "message", "id": "msg_1",
                         "role": "assistant", "status": "completed", "content": [
                             {"type": "output_text", "text": "hello", "annotations": []}]}]})
        resumed = Session.open(store, session_id="run-1")
        assert resumed.target.adapter == "openai_responses"
        assert [e.id for e in resumed.history] == [e.id for e in session.history]
        resumed.append(UserMessage("again"))
        assert [e.id for e in store.load("run-1")] == [e.id for e in resumed.history]


def _plain(node: Any) -> Any:
    """A body without cache markers (Anthropic's marks, Converse's cachePoint blocks), a lone
    marked text block read as the string it stood for."""
    if isinstance(node, dict):
        out = {k: _plain(v) for k, v in node.items() if k != "cache_control"}
        content = out.get("content")
        if (isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict)
                and set(content[0]) == {"type", "text"} and content[0]["type"] == "text"
                and isinstance(node["content"][0], dict) and "cache_control" in node["content"][0]):
            out["content"] = content[0]["text"]
        return out
    if isinstance(node, list):
        return [_plain(v) for v in node if not (isinstance(v, dict) and set(v) == {"cachePoint"})]
    return node


def _count(node: Any) -> int:
    if isinstance(node, dict):
        return ("cache_control" in node) + ("cachePoint" in node) + sum(
            _count(v) for v in node.values())
    if isinstance(node, list):
        return sum(_count(v) for v in node)
    return 0


@pytest.mark.parametrize("name", ADAPTERS)
def test_turn_n_plus_1_shares_turn_ns_whole_prefix(name: str) -> None:
    """Every turn's request repeats the previous request byte for byte before its new messages
    (cache markers aside), so the provider's prompt cache keeps hitting; Anthropic gets at most
    four breakpoints, the newest on the last message (Bedrock too, as cachePoint blocks, in a
    body botocore's validator accepts); OpenAI a stable prompt_cache_key."""
    events = agent_events(12)
    session = Session(f"{name}:{MODEL[name]}", history=events[:2])
    previous: dict[str, Any] | None = None
    for k in range(2, len(events), 3):
        session.append(*events[k:k + 3])
        request = session.request().request
        key = next(x for x in ("messages", "input", "contents") if x in request)
        if previous is not None:
            old, new = _plain(previous), _plain(request)
            assert json.dumps(new[key][:len(old[key])], default=json_default) == json.dumps(old[key], default=json_default)
            assert json.dumps({x: v for x, v in new.items() if x != key}, default=json_default) == \
                json.dumps({x: v for x, v in old.items() if x != key}, default=json_default)
        if name == "anthropic":
            assert 2 <= _count(request) <= 4
            assert "cache_control" in json.dumps(request["messages"][-1])
        if name == "bedrock":
            assert 2 <= _count(request) <= 4
            assert request["messages"][-1]["content"][-1] == {"cachePoint": {"type": "default"}}
            assert request["system"][-1] == {"cachePoint": {"type": "default"}}
            assert request_errors("bedrock", request) == []
        if name in ("openai_responses", "openai_chat"):
            assert request["prompt_cache_key"] == session.id == events[0].id
        previous = request


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_request_kept_by_the_caller_is_never_changed_by_later_turns(name: str) -> None:
    """A later turn may extend the list of a request nobody holds any more, never one the
    caller kept: the whole projection, its body, or only its list of wire messages."""
    events = agent_events(12)
    session = Session(f"{name}:{MODEL[name]}", history=events[:2], cache="off")
    kept: list[tuple[Any, str]] = []
    for k in range(2, len(events)):
        session.append(events[k])
        projection = session.request()
        key = next(x for x in ("messages", "input", "contents") if x in projection.request)
        held = (projection, projection.request, projection.request[key], None)[k % 4]
        if held is not None:
            kept.append((held, json.dumps(projection.request[key], default=json_default)))
        del projection, held  # the others are let go at once
    assert len(kept) >= 6
    for held, dump in kept:
        body = held.request if hasattr(held, "request") else held
        assert json.dumps(body if isinstance(body, list) else body[key], default=json_default) == dump


def test_ollama_names_the_native_adapter_and_the_dialect_stays_reachable() -> None:
    """``ollama:<model>`` is Ollama's native chat adapter; ``openai_chat`` with the ``ollama``
    dialect is its OpenAI-compatible endpoint."""
    native = Target.parse("ollama:qwen3:8b")
    assert (native.adapter, native.model, native.model_id) == ("ollama", "qwen3:8b", "ollama:qwen3:8b")
    compatible = Target.parse("openai_chat:qwen3:8b", options={"dialect": "ollama"})
    assert (compatible.adapter, compatible.model_id) == ("openai_chat", "ollama:qwen3:8b")


def test_breakpoints_by_hand() -> None:
    """``cache_at`` marks the wire messages named, and only those (plus the system prompt)."""
    session = Session("anthropic:claude-sonnet-4-6", history=agent_events(3), cache="manual")
    request = session.request(cache_at=[1]).request
    marked = [i for i, m in enumerate(request["messages"]) if "cache_control" in json.dumps(m)]
    assert marked == [1]
    assert "cache_control" in json.dumps(request["system"])
    assert _count(session.request().request) == 1
    off = Session("anthropic:claude-sonnet-4-6", history=agent_events(3), cache="off")
    assert _count(off.request().request) == 0


def test_open_on_a_missing_file_starts_a_new_session_only_when_asked(tmp_path: Path) -> None:
    """Opening a missing file is refused, naming it and create=, and leaves no file; with
    create=True it starts empty and creates the file on the first append."""
    path = tmp_path / "new.jsonl"
    for target in (None, "google:gemini-2.5-flash"):
        with pytest.raises(ArgumentError, match=r"new\.jsonl' does not exist; pass create=True") as caught:
            Session.open(path, target)
        assert caught.value.argument == "source"
        assert not path.exists()
    session = Session.open(path, "google:gemini-2.5-flash", create=True)
    assert len(session) == 0
    session.append(UserMessage("hi"))
    session.close()
    assert [e.id for e in load(path)] == [e.id for e in session.history]


def test_marks_already_in_the_history_count_toward_the_four() -> None:
    """An imported request's own cache_control marks are counted: never more than four in all,
    turn after turn."""
    from partwire.adapters import anthropic

    marked = {"type": "ephemeral"}
    imported = anthropic.from_wire_request({
        "model": "claude-sonnet-4-6", "max_tokens": 1024,
        "system": [{"type": "text", "text": "sys", "cache_control": marked}],
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "a", "cache_control": marked}]},
            {"role": "assistant", "content": [{"type": "text", "text": "b",
                                               "cache_control": marked}]},
            {"role": "user", "content": "c"}]})
    session = Session("anthropic:claude-sonnet-4-6", history=imported.history)
    for n in range(5):
        assert _count(session.request().request) <= 4
        session.append(AssistantMessage(f"answer {n}"), UserMessage(f"question {n}"))
    assert _count(session.request().request) == 4


def test_the_window_comes_from_the_price_data_for_a_known_model() -> None:
    """Without ``context_window=``, the window is the price data's for the target's model."""
    from partwire.pricing import context_window

    session = Session("openai:gpt-4.1", history=agent_events(2))
    assert session.window() == context_window("openai:gpt-4.1") is not None
    assert not session.needs_compaction()


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_session_reports_a_tool_result_without_its_call_and_strict_refuses_it(name: str) -> None:
    """The send path checks what validate_history calls an orphan tool result: the session's
    request leaves it out and says so; a strict session refuses the request."""
    history: list[HistoryEvent] = [UserMessage("q"), ToolMessage(call_id="tu_gone", tool_name="f", output_text="x"),
                                   UserMessage("and?")]
    target = Target(adapter=name, model=MODEL[name])
    projection = Session(target, history=history).request()
    assert [(x.path, x.part_type, x.action) for x in projection.losses] == [
        ("history[1]", "tool_message", "dropped")]
    assert "tu_gone" not in json.dumps(projection.request)
    assert request_errors(name, projection.request) == []
    with pytest.raises(LossError):
        Session(target, history=history, strict=True).request()


def test_a_session_reads_well_in_a_repl(tmp_path: Path) -> None:
    """repr(Session) names its target, id, event count and sink, not an object address."""
    session = Session("gemini:gemini-2.5-pro", sink=tmp_path / "h.jsonl")
    session.append(UserMessage("hi"))
    assert repr(session) == (f"<Session google:gemini-2.5-pro id={session.id!r} events=1 "
                             f"sink={str(tmp_path / 'h.jsonl')!r}>")
    session.close()
