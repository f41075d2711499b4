"""Gemini across providers: scenario histories to and from the other adapters, and ``partwire convert``.

- A Gemini history with thought signatures on thought parts and on function calls round-trips
  Gemini -> canonical -> Gemini with every signature on its part, byte-exact; the SDK reads the
  echoed signature as the bytes it sent.
- An Anthropic or OpenAI history with parallel tool calls converts to a valid Gemini request and
  back, every tool-call pairing kept, differing by exactly the reported losses.
- ``partwire convert --from google`` and ``--to google`` work from the command line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from google.genai import types

from partwire import AssistantMessage, ToolCallPart, ToolMessage
from partwire.adapters import google
from partwire.cli import main
from tests.harness.providers import get_kit
from tests.harness.validity import request_errors

GOOGLE = get_kit("google")
OTHERS = ("anthropic", "openai_chat")


def pairing(history: Any) -> list[tuple[str, str, str]]:
    """Each tool result as (tool name, the arguments of the call it answers, its output)."""
    calls = {p.id: p for e in history if isinstance(e, AssistantMessage) for p in e.parts
             if isinstance(p, ToolCallPart)}
    return [(m.tool_name, json.dumps(calls[m.call_id].arguments, sort_keys=True), m.output_text)
            for m in history if isinstance(m, ToolMessage)]


@pytest.mark.parametrize("name", ["thinking_tool_use", "parallel_tools", "redacted_thinking"])
def test_gemini_signatures_round_trip_on_their_parts(name: str) -> None:
    """Gemini -> canonical -> Gemini gives the same request: every signature on its own part, unchanged."""
    scenario = next(s for s in GOOGLE.scenarios() if s.name == name)
    body = GOOGLE.request(scenario)
    imported = google.from_wire_request(body)
    again = google.to_wire(imported.history, model=GOOGLE.model, **{
        k: v for k, v in imported.to_wire_kwargs().items() if k != "model"}).request
    assert again == body
    signed = [p for c in body["contents"] for p in c["parts"] if "thoughtSignature" in p]
    assert signed


def test_a_signed_reply_is_echoed_as_the_sdk_read_it() -> None:
    """The next turn's request carries the reply's call signature as the bytes the SDK decoded from the response."""
    scenario = next(s for s in GOOGLE.scenarios() if s.name == "thinking_tool_use")
    raw = GOOGLE.response_json(scenario)
    sdk = types.GenerateContentResponse.model_validate(raw)
    reply = google.from_wire(sdk)
    call = next(p for p in reply.parts if isinstance(p, ToolCallPart))
    history = [*scenario.history, reply, ToolMessage(call_id=call.id, tool_name=call.name, output_text="rain")]
    body = google.to_wire(history, model=GOOGLE.model, tools=scenario.tools).request
    echoed = body["contents"][-2]
    assert echoed["parts"] == raw["candidates"][0]["content"]["parts"]
    sent = types.Content.model_validate(echoed).parts[-1].thought_signature  # type: ignore[index]
    assert sent == sdk.candidates[0].content.parts[-1].thought_signature  # type: ignore[index, union-attr]
    assert body["contents"][-1]["parts"][0]["functionResponse"]["id"] == call.provider_ids["google"]


@pytest.mark.parametrize("other", OTHERS)
def test_parallel_tool_history_converts_to_gemini_and_back(other: str) -> None:
    """Another provider's parallel-call history becomes a valid Gemini request, and comes back with every pairing."""
    kit = get_kit(other)
    scenario = next(s for s in kit.scenarios() if s.name == "parallel_tools")
    projection = google.to_wire(scenario.history, model=GOOGLE.model, tools=scenario.tools)
    assert request_errors("google", projection.request) == []
    back = google.from_wire_request(projection.request)
    assert pairing(back.history) == pairing(scenario.history)
    again = kit.adapter().to_wire(back.history, model=kit.model, tools=back.tools, max_tokens=100)
    assert request_errors(other, again.request) == []


@pytest.mark.parametrize("other", OTHERS)
def test_scenarios_convert_with_every_difference_reported(other: str) -> None:
    """Every scenario of another provider converts to a valid Gemini body; what is not sent is a loss."""
    kit = get_kit(other)
    for scenario in kit.scenarios():
        projection = google.to_wire(scenario.history, model=GOOGLE.model, tools=scenario.tools)
        assert request_errors("google", projection.request) == [], scenario.name
        sent = sum(len(c["parts"]) for c in projection.request["contents"]) + len(
            projection.request.get("systemInstruction", {}).get("parts", []))
        parts = sum(len(getattr(e, "parts", ())) + isinstance(e, ToolMessage) for e in scenario.history)
        dropped = sum(1 for loss in projection.losses if loss.action == "dropped"
                      and ".parts[" in loss.path and not loss.path.endswith(".title"))
        assert sent + dropped == parts, scenario.name


def test_cli_converts_from_and_to_google(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """partwire convert reads a Gemini body and writes one, through Anthropic, keeping the call ids."""
    source = GOOGLE.golden_path(next(s for s in GOOGLE.scenarios() if s.name == "parallel_tools"), "request")
    assert main(["convert", "--from", "google", "--to", "anthropic", "--model",
                 "anthropic:claude-sonnet-4-6", str(source)]) == 0
    anthropic_body = tmp_path / "a.json"
    anthropic_body.write_text(capsys.readouterr().out)
    assert main(["convert", "--from", "anthropic", "--to", "google", "--model",
                 "google:gemini-3-flash-preview", str(anthropic_body)]) == 0
    body = json.loads(capsys.readouterr().out)
    assert request_errors("google", body) == []
    ids = [p["functionCall"]["id"] for p in body["contents"][1]["parts"] if "functionCall" in p]
    assert ids == ["k3v9x2pq", "r5t8n1qb"]
    answered = [p["functionResponse"]["id"] for p in body["contents"][2]["parts"]]
    assert answered == ids


def test_cli_converts_google_to_canonical(capsys: pytest.CaptureFixture[str]) -> None:
    """partwire convert --from google --to canonical writes one JSONL line per message."""
    source = GOOGLE.golden_path(next(s for s in GOOGLE.scenarios() if s.name == "thinking_tool_use"), "request")
    assert main(["convert", "--from", "google", "--to", "canonical", str(source)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["role"] for line in lines] == ["user", "assistant", "tool"]
