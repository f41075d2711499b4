"""The Responses benchmarks compare like with like: the baselines do the same work as partwire."""

from __future__ import annotations

from partwire.adapters import openai_responses
from partwire.history import EVENT_ADAPTER
from partwire.streaming import accumulate
from tests.benchmarks.agent_history import agent_history
from tests.benchmarks.bench_openai_responses import _plain_to_wire, responses_session, stream_events
from tests.harness.compare import comparable


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
