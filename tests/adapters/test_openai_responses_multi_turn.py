"""Two turns through the real ``openai`` client: a chained conversation and a stateless reasoning echo.

Turn 1 asks; the model reasons (encrypted) and calls ``get_weather``. Turn 2 sends the tool's
output back, built by ``to_wire`` from the history that now holds turn 1's decoded answer:

- ``chained``: only the ``function_call_output``, with ``previous_response_id`` of turn 1 and the
  instructions again; turn 1 was stored (``store`` left at its default).
- ``stateless`` (the reasoning-echo scenario): every item again, the reasoning item byte for byte
  with its ``encrypted_content``, ``store: false`` and ``include`` for the encrypted reasoning.

Each cassette holds both exchanges, matched on the JSON body, so the second request must be
exactly what the wire reference says. The history is also saved and reloaded between the turns
(the codec's JSON), and must give the same second request: the chain and the blob survive it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import openai
import pytest

from partwire import (
    AssistantMessage,
    HistoryEvent,
    SystemMessage,
    ToolCallPart,
    ToolMessage,
    UserMessage,
)
from partwire.adapters import openai_responses
from partwire.history import EVENT_ADAPTER
from partwire.ids import deterministic_sources, use_sources
from tests.harness.cassettes import Exchange, render_cassette
from tests.harness.golden import Golden
from tests.harness.kit import CASSETTES, RESPONSES
from tests.harness.providers.openai_responses import KIT
from tests.harness.replay import use_cassette
from tests.harness.validity import assert_valid_request
from tests.scenarios import GET_WEATHER

MODES = ("chained", "stateless")
FILES = RESPONSES / "openai_responses" / "multi_turn"
WEATHER = '{"temperature": 14, "unit": "celsius", "conditions": "light rain"}'


def body(mode: str, turn: int) -> dict[str, Any]:
    """The hand-written response of ``turn`` in ``mode``."""
    loaded: dict[str, Any] = json.loads((FILES / f"{mode}_{turn}.json").read_text(encoding="utf-8"))
    return loaded


def cassette(mode: str) -> Path:
    """The cassette of both turns of ``mode``."""
    return CASSETTES / "openai_responses" / f"multi_turn_{mode}.yaml"


def first_history() -> list[HistoryEvent]:
    """The conversation up to turn 1."""
    ids, clock = deterministic_sources()
    with use_sources(ids=ids, clock=clock):
        return [SystemMessage("You are a weather assistant. Answer in one sentence."),
                UserMessage("Should I take an umbrella in Paris today?")]


def request(history: list[HistoryEvent], mode: str) -> dict[str, Any]:
    """to_wire of ``history`` in ``mode``, checked against the SDK's request types."""
    projection = openai_responses.to_wire(
        history, model="gpt-5.5", tools=[GET_WEATHER], max_tokens=2048, continuation=mode,
        params={"reasoning": {"effort": "medium", "summary": "auto"}})
    assert projection.losses == ()
    assert_valid_request("openai_responses", projection.request)
    return projection.request


def second_history(answer: AssistantMessage) -> list[HistoryEvent]:
    """Turn 1's history, its answer, and the tool's output for the call it made."""
    call = next(p for p in answer.parts if isinstance(p, ToolCallPart))
    ids, clock = deterministic_sources()
    with use_sources(ids=ids, clock=clock):
        return [*first_history(), answer,
                ToolMessage(call_id=call.id, tool_name=call.name, output_text=WEATHER)]


def exchanges(mode: str) -> list[Exchange]:
    """Both exchanges of ``mode``, their requests built by to_wire."""
    first = request(first_history(), mode)
    answer = KIT.decode(body(mode, 1))
    second = request(second_history(answer), mode)
    headers = {"content-type": "application/json"}
    return [Exchange(uri=KIT.endpoint, request_body=r, status=200, response_headers=headers,
                     request_headers=KIT.request_headers,
                     response_body=json.dumps(body(mode, n), indent=2, ensure_ascii=False) + "\n")
            for n, r in ((1, first), (2, second))]


@pytest.mark.parametrize("mode", MODES)
def test_cassette_is_built_from_to_wire(mode: str, golden: Golden) -> None:
    """The committed cassette holds the two requests to_wire makes and the hand-written answers."""
    golden.check_text(cassette(mode), render_cassette(exchanges(mode)))


@pytest.mark.parametrize("mode", MODES)
def test_two_turns_through_the_sync_client(mode: str) -> None:
    """Both turns replay through responses.create: the second request matches, its answer decodes."""
    client = KIT.client()
    with use_cassette(cassette(mode)) as recorded:
        one = client.responses.create(**request(first_history(), mode))
        answer = KIT.decode(one)
        second = request(second_history(answer), mode)
        two = client.responses.create(**second)
    assert recorded.play_count == 2
    final = KIT.decode(two)
    assert (final.stop_reason, final.text) == ("stop", body(mode, 2)["output"][1]["content"][0]["text"])
    assert final.response_id == body(mode, 2)["id"]


@pytest.mark.parametrize("mode", MODES)
async def test_two_turns_through_the_async_client(mode: str) -> None:
    """The same two turns through AsyncOpenAI."""
    client = KIT.aclient()
    with use_cassette(cassette(mode)):
        one = await client.responses.create(**request(first_history(), mode))
        two = await client.responses.create(**request(second_history(KIT.decode(one)), mode))
    assert isinstance(two, openai.types.responses.Response)
    assert KIT.decode(two).text.startswith("Yes")


def test_chained_second_turn_sends_only_the_new_item() -> None:
    """Chained: previous_response_id of turn 1, only the function_call_output, instructions again."""
    second = request(second_history(KIT.decode(body("chained", 1))), "chained")
    call_id = body("chained", 1)["output"][1]["call_id"]
    assert second["previous_response_id"] == body("chained", 1)["id"]
    assert second["input"] == [{"type": "function_call_output", "call_id": call_id, "output": WEATHER}]
    assert second["instructions"] == "You are a weather assistant. Answer in one sentence."
    assert "store" not in second


def test_stateless_second_turn_echoes_the_reasoning_byte_for_byte() -> None:
    """Stateless: every output item of turn 1 again, byte for byte, then the tool's output."""
    second = request(second_history(KIT.decode(body("stateless", 1))), "stateless")
    output = body("stateless", 1)["output"]
    assert json.dumps(second["input"][1:3]) == json.dumps(output)
    assert second["input"][3]["type"] == "function_call_output"
    assert (second["store"], second["include"]) == (False, ["reasoning.encrypted_content"])


@pytest.mark.parametrize("mode", MODES)
def test_save_and_reload_between_turns_gives_the_same_request(mode: str) -> None:
    """The history stored as JSON and read back builds the same second request (chain and blob kept)."""
    history = second_history(KIT.decode(body(mode, 1)))
    reloaded = [EVENT_ADAPTER.validate_json(EVENT_ADAPTER.dump_json(e)) for e in history]
    assert request(reloaded, mode) == request(history, mode)
