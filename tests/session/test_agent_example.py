"""The example agent (docs/examples/agent.py) runs through the official Anthropic and OpenAI SDK
clients against its hand-written cassette, crashes, and resumes with no event lost or duplicated."""

from __future__ import annotations

from pathlib import Path

import anthropic
import openai
import pytest

from partwire import CompactionEvent, ModelSwitchEvent, ToolMessage
from partwire.codec import load
from partwire.session import DERIVED_KEY
from tests.harness.replay import use_cassette
from tests.session.make_agent_cassette import CASSETTE, FIX, example


def test_the_example_agent_runs_crashes_and_resumes_through_the_real_clients(tmp_path: Path) -> None:
    """Both processes' requests are exactly the cassette's (the SDKs send what the session built),
    the file holds every event once, in order, and the task is done."""
    agent = example()
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    log = tmp_path / "session.jsonl"
    claude = anthropic.Anthropic(api_key="test-key", base_url="https://api.anthropic.com",
                                 max_retries=0)
    gpt = openai.OpenAI(api_key="test-key", base_url="https://api.openai.com/v1", max_retries=0)
    with use_cassette(CASSETTE):
        with pytest.raises(agent.Crash):
            agent.start(log, tmp_path, claude, gpt)
        before_crash = load(log)
        session = agent.resume(log, tmp_path, gpt)
    events = load(log)
    ids = [e.id for e in events]
    assert len(ids) == len(set(ids))  # nothing written twice
    assert ids[:len(before_crash)] == [e.id for e in before_crash]  # nothing lost
    assert ids == [e.id for e in session.history]
    kinds = [type(e).__name__ for e in events]
    assert kinds.count("ModelSwitchEvent") == 1
    assert kinds.count("CompactionEvent") == 1
    switch = next(e for e in events if isinstance(e, ModelSwitchEvent))
    assert switch.to_model == "openai:gpt-4.1"
    results = [e for e in events if isinstance(e, ToolMessage)]
    assert [r.status for r in results] == ["success", "error", "aborted", "success"]
    assert results[2].metadata == {DERIVED_KEY: "interrupted_tool_call"}
    assert any(isinstance(e, CompactionEvent) for e in events[len(before_crash):])
    assert (tmp_path / "calc.py").read_text() == FIX
    assert session.history[-1].text == "Fixed: calc.py's add now returns a + b."
