"""The example agent (docs/examples/agent.py) runs through the official Anthropic, OpenAI and
google-genai SDK clients against its hand-written cassette, crashes, and resumes with no event lost
or duplicated.

Bodies are matched as parsed JSON, exactly (``tests/harness/replay.py``), except Gemini's, which
the google-genai SDK re-serialises itself: those are matched as the API reads them
(``tests/harness/providers/google.py``)."""

from __future__ import annotations

from pathlib import Path

import anthropic
import openai
import pytest
import vcr
from google import genai
from google.genai import types
from vcr.request import Request

from partwire import CompactionEvent, ModelSwitchEvent, ToolMessage
from partwire.codec import load
from partwire.session import DERIVED_KEY
from tests.harness.providers.google import semantic_body_matcher
from tests.harness.replay import (
    SECRET_HEADERS,
    SECRET_QUERY_PARAMETERS,
    json_body_matcher,
    scrub_request,
)
from tests.session.make_agent_cassette import CASSETTE, FIX, example


def _body_matcher(live: Request, recorded: Request) -> None:
    if live.host == "generativelanguage.googleapis.com":
        semantic_body_matcher(live, recorded)
    else:
        json_body_matcher(live, recorded)


_VCR = vcr.VCR(record_mode="none",
               match_on=("method", "scheme", "host", "port", "path", "query", "body_as_api_reads"),
               filter_headers=SECRET_HEADERS, filter_query_parameters=SECRET_QUERY_PARAMETERS,
               before_record_request=scrub_request, decode_compressed_response=True)
_VCR.register_matcher("body_as_api_reads", _body_matcher)


def test_the_example_agent_runs_crashes_and_resumes_through_the_real_clients(tmp_path: Path) -> None:
    """Both processes' requests are exactly the cassette's (the SDKs send what the session built),
    the file holds every event once, in order, and the task is done."""
    agent = example()
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    log = tmp_path / "session.jsonl"
    claude = anthropic.Anthropic(api_key="test-key", base_url="https://api.anthropic.com",
                                 max_retries=0)
    gpt = openai.OpenAI(api_key="test-key", base_url="https://api.openai.com/v1", max_retries=0)
    gemini = genai.Client(api_key="test-key", http_options=types.HttpOptions(
        base_url="https://generativelanguage.googleapis.com", api_version="v1beta"))
    with _VCR.use_cassette(str(CASSETTE)) as cassette:
        with pytest.raises(agent.Crash):
            agent.start(log, tmp_path, claude, gpt)
        before_crash = load(log)
        session = agent.resume(log, tmp_path, gpt, gemini)
        assert cassette.all_played
    assert [r.uri.split("/")[-1] for r in cassette.requests] == [
        "messages", "completions", "completions", "responses", "gemini-2.5-flash:generateContent"]
    events = load(log)
    ids = [e.id for e in events]
    assert len(ids) == len(set(ids))  # nothing written twice
    assert ids[:len(before_crash)] == [e.id for e in before_crash]  # nothing lost
    assert ids == [e.id for e in session.history]
    kinds = [type(e).__name__ for e in events]
    assert kinds.count("ModelSwitchEvent") == 3
    assert kinds.count("CompactionEvent") == 1
    switches = [e.to_model for e in events if isinstance(e, ModelSwitchEvent)]
    assert switches == ["openai:gpt-4.1", "openai:gpt-5", "google:gemini-2.5-flash"]
    results = [e for e in events if isinstance(e, ToolMessage)]
    assert [r.status for r in results] == ["success", "error", "aborted", "success", "success"]
    assert results[2].metadata == {DERIVED_KEY: "interrupted_tool_call"}
    assert any(isinstance(e, CompactionEvent) for e in events[len(before_crash):])
    assert (tmp_path / "calc.py").read_text() == FIX
    assert session.history[-1].text.startswith("Fixed: calc.py's add now returns a + b")
