"""A session on Bedrock places Converse ``cachePoint`` blocks by the Anthropic policy, where
Converse takes them; every body passes botocore's validator and the cache-point rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from partwire import (
    AssistantMessage,
    HistoryEvent,
    Opaque,
    Session,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolDefinition,
    ToolMessage,
    UserMessage,
)
from partwire.adapters import bedrock
from tests.harness.providers.bedrock import KIT
from tests.harness.replay import use_cassette
from tests.harness.validity import request_errors
from tests.session.agent_loop import agent_events

CLAUDE = "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0"
POINT = {"cachePoint": {"type": "default"}}
TOOL = ToolDefinition(name="read_file", description="Read a file.", side_effects="read",
                      input_schema={"type": "object", "properties": {"path": {"type": "string"}}})


def _points(request: dict[str, Any]) -> list[str]:
    """Where the body's cache points are: ``system``, ``tools`` or ``messages[i]``."""
    where = ["system" for b in request.get("system") or [] if b == POINT]
    where += ["tools" for t in (request.get("toolConfig") or {}).get("tools", []) if t == POINT]
    for i, message in enumerate(request["messages"]):
        where += [f"messages[{i}]" for b in message["content"] if b == POINT]
    return where


def test_points_mark_the_prefix_and_the_last_two_requests_ends() -> None:
    """The system prompt, the last message of the previous request and the last of this one get
    a point each; earlier points move forward, never more than four, and Converse takes each body."""
    events = agent_events(8)
    session = Session(CLAUDE, history=events[:2])
    first = session.request().request
    assert _points(first) == ["system", "messages[0]"]
    assert request_errors("bedrock", first) == []
    previous_last = len(first["messages"]) - 1
    for k in range(2, len(events), 3):
        session.append(*events[k:k + 3])
        request = session.request().request
        last = len(request["messages"]) - 1
        assert _points(request) == ["system", f"messages[{previous_last}]", f"messages[{last}]"]
        assert request["messages"][last]["content"][-1] == POINT
        assert request_errors("bedrock", request) == []
        previous_last = last


def test_a_point_goes_after_the_tool_results_never_inside_one() -> None:
    """A turn of tool results takes its point as a sibling block after the last result (a
    toolResult's content has no cachePoint member: botocore refuses one there)."""
    session = Session(CLAUDE, history=agent_events(1))
    request = session.request().request
    turn = request["messages"][-1]["content"]
    assert [next(iter(b)) for b in turn] == ["toolResult", "toolResult", "cachePoint"]
    assert all(POINT not in b["toolResult"]["content"] for b in turn[:2])
    assert request_errors("bedrock", request) == []


def test_a_message_ending_in_reasoning_passes_its_point_to_the_one_before() -> None:
    """Converse refuses a cache point right after a reasoning block: a point asked for on an
    answer that is only reasoning lands on the message before it, and the body is valid."""
    signed = ThinkingPart(text="Check the parser first.", signature=Opaque(value="c2ln", issuer="bedrock"))
    history: list[HistoryEvent] = [SystemMessage("Be brief."), UserMessage("Plan."),
                                   AssistantMessage(parts=(signed,)), UserMessage("Go on.")]
    session = Session(CLAUDE, history=history, cache="manual")
    request = session.request(cache_at=[1]).request
    assert request["messages"][1]["content"][-1] == {"reasoningContent": {"reasoningText": {
        "text": "Check the parser first.", "signature": "c2ln"}}}
    assert _points(request) == ["system", "messages[0]"]
    assert request_errors("bedrock", request) == []
    # The rule the session obeys is one the validator enforces.
    bad = {**request, "messages": [request["messages"][0],
                                   {**request["messages"][1],
                                    "content": [*request["messages"][1]["content"], POINT]},
                                   request["messages"][2]]}
    assert request_errors("bedrock", bad) == [
        "messages[1].content[1].cachePoint: right after a reasoning block"]


@pytest.mark.parametrize(("model", "expected"), [
    (CLAUDE, ["tools", "messages[0]"]),
    ("bedrock:amazon.nova-pro-v1:0", ["messages[0]"]),        # Nova caches no tools
    ("bedrock:meta.llama3-70b-instruct-v1:0", []),            # Converse refuses points for it
    ("bedrock:anthropic.claude-3-sonnet-20240229-v1:0", []),  # a Claude without prompt caching
])
def test_points_only_where_the_model_takes_them(model: str, expected: list[str]) -> None:
    """Without a system prompt the prefix point goes after the tools, for Claude only; a model
    that refuses cache points gets none, and ``cache="off"`` places none anywhere."""
    session = Session(model, history=[UserMessage("Read setup.py.")], tools=[TOOL])
    request = session.request().request
    assert _points(request) == expected
    assert request_errors("bedrock", request) == []
    off = Session(model, history=[UserMessage("Read setup.py.")], tools=[TOOL], cache="off")
    assert _points(off.request().request) == []


def test_points_by_hand_go_where_named_on_any_model() -> None:
    """``cache_at`` places points where asked even on a model the session does not know to cache
    (an application inference profile ARN names no family)."""
    arn = "bedrock:arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123"
    session = Session(arn, history=agent_events(2), cache="manual")
    assert _points(session.request().request) == []
    request = session.request(cache_at=[1]).request
    assert _points(request) == ["system", "messages[1]"]
    assert request_errors("bedrock", request) == []


def test_points_already_in_an_imported_request_count_toward_the_four() -> None:
    """An imported Converse request's own cache points are counted: never more than four in
    all, turn after turn, and each body stays valid."""
    imported = bedrock.from_wire_request({
        "modelId": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "system": [{"text": "sys"}, POINT],
        "messages": [
            {"role": "user", "content": [{"text": "a"}, POINT]},
            {"role": "assistant", "content": [{"text": "b"}, POINT]},
            {"role": "user", "content": [{"text": "c"}]}]})
    session = Session(CLAUDE, history=imported.history)
    for n in range(5):
        request = session.request().request
        assert len(_points(request)) <= 4
        assert request_errors("bedrock", request) == []
        session.append(AssistantMessage(parts=(TextPart(text=f"answer {n}"),)),
                       UserMessage(f"question {n}"))
    assert len(_points(session.request().request)) == 4


def start() -> Session:
    """The cassette's session: a system prompt, a tool and the task."""
    return Session(CLAUDE, tools=[TOOL], history=[
        SystemMessage("You are a coding agent. Read before you write."),
        UserMessage("tests/test_calc.py fails: add(2, 2) returns 0. Why?")])


def answer_the_call(session: Session) -> None:
    """The tool result for the call the first answer made."""
    answer = session.history[-1]
    assert isinstance(answer, AssistantMessage)
    call = next(p for p in answer.parts if isinstance(p, ToolCallPart))
    session.append(ToolMessage(call_id=call.id, tool_name="read_file",
                               output_text="def test_add():\n    assert add(2, 2) == 4\n"))


def test_boto3_sends_the_cache_points_and_the_cache_is_read() -> None:
    """Through boto3's real client (vcrpy replaying a cassette written from the Converse
    reference), a two-turn session sends its cache points as placed (botocore serialises them,
    the cassette matches each body), and the second answer's usage reads the cache."""
    session = start()
    client = KIT.sync_client()
    with use_cassette(Path(__file__).parent / "cassettes" / "bedrock_cache.yaml") as cassette:
        first = session.request().request
        assert _points(first) == ["system", "messages[0]"]
        session.receive(client.converse(**first))
        answer_the_call(session)
        second = session.request().request
        assert _points(second) == ["system", "messages[0]", "messages[2]"]
        answer = session.receive(client.converse(**second))
    assert cassette.play_count == 2
    assert answer.usage is not None
    assert (answer.usage.cache_read_tokens, answer.usage.cache_write_tokens) == (2056, 41)
    assert answer.stop_reason == "stop"
