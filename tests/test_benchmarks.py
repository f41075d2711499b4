"""The benchmark inputs measure what they claim: the agent history's shape, the plain mirrors, and
the Responses baselines, which do the same work as partwire."""

from __future__ import annotations

import json

import pytest

from partwire import (
    AssistantMessage,
    ErrorEvent,
    ImagePart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UserMessage,
)
from partwire.adapters import openai_responses
from partwire.cli._example import example_history
from partwire.codec import dumps
from partwire.history import EVENT_ADAPTER
from partwire.streaming import accumulate
from tests.benchmarks.agent_history import agent_history
from tests.benchmarks.bench_openai_responses import _plain_to_wire, responses_session, stream_events
from tests.benchmarks.plain_mirror import plain_event_adapter
from tests.harness.compare import comparable

HISTORY = agent_history(400)


def test_agent_history_is_deterministic_and_sized() -> None:
    assert len(HISTORY) == 400
    assert dumps(agent_history(400)) == dumps(HISTORY)
    assert dumps(agent_history(400, seed=8)) != dumps(HISTORY)


def test_agent_history_has_the_promised_traffic() -> None:
    users = [e for e in HISTORY if isinstance(e, UserMessage)]
    assert any(isinstance(p, ImagePart) for u in users for p in u.parts)
    calling = [e for e in HISTORY if isinstance(e, AssistantMessage) and e.stop_reason == "tool_use"]
    assert calling
    assert all(isinstance(m.parts[0], ThinkingPart) and m.parts[0].signature for m in calling)
    counts = {sum(isinstance(p, ToolCallPart) for p in m.parts) for m in calling}
    assert counts == {1, 2, 3}
    results = [e for e in HISTORY if isinstance(e, ToolMessage)]
    sizes = [len(r.output_text) for r in results]
    assert min(sizes) >= 700
    assert max(sizes) <= 4500
    assert any(r.status == "error" for r in results)
    assert any(isinstance(e, ErrorEvent) for e in HISTORY)


@pytest.mark.parametrize("dicts", [False, True], ids=["models", "typeddicts"])
def test_plain_mirror_reads_every_line_to_the_same_json(dicts: bool) -> None:
    # The bench compares partwire with these mirrors; they must take the same lines, whole.
    adapter = plain_event_adapter(dicts=dicts)
    lines = dumps([*HISTORY, *example_history()]).splitlines()
    for line in lines:
        value = adapter.validate_json(line)
        assert adapter.dump_python(value, mode="json") == json.loads(line)


def test_plain_mirror_checks_tags() -> None:
    adapter = plain_event_adapter()
    line = json.loads(dumps([HISTORY[1]]))
    line["role"] = "robot"
    with pytest.raises(ValueError, match="robot"):
        adapter.validate_python(line)


def test_plain_baseline_builds_the_request_to_wire_builds() -> None:
    """The dict loop the to_wire benchmark divides by makes exactly to_wire's request body."""
    history = responses_session(agent_history(300))
    dumped = [EVENT_ADAPTER.dump_python(e, mode="json") for e in history]
    assert openai_responses.to_wire(history, model="gpt-5.5").request == _plain_to_wire(dumped, "gpt-5.5")


def test_stream_benchmark_events_are_one_whole_response() -> None:
    """The benchmark's stream accumulates to what from_wire gives for its final response."""
    events = stream_events(200)
    final = events[-1]["response"]
    assert comparable(accumulate(openai_responses.stream(events))) == comparable(openai_responses.from_wire(final))
