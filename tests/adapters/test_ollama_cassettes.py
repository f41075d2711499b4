"""Every Ollama scenario replayed through the real ``ollama`` package's clients, via vcrpy.

``ollama.Client().chat(**request)`` sends what ``to_wire`` built, as the package builds its body
(its own ``ChatRequest`` and ``Message`` models): the cassette matches that HTTP body, so a key
the package does not take, or a value its models refuse, fails before any reply. What it hands
back (a ``ChatResponse``, or one per NDJSON line) goes through ``from_wire`` or ``stream`` and
must give the golden message; a stream must give the message of the whole response, and the
raw NDJSON bytes too. Interrupted and failing streams keep what arrived.
"""

from __future__ import annotations

from typing import Any

import httpx
import ollama
import pytest

from partwire import AssistantMessage, TextPart
from partwire.ids import deterministic_sources, use_sources
from partwire.streaming import StreamErrorEvent, aaccumulate
from tests.harness.compare import comparable, stored_form
from tests.harness.golden import Golden
from tests.harness.providers import get_kit
from tests.harness.replay import use_cassette
from tests.harness.streams import abort_after, assert_one_completion_last, fold
from tests.scenarios import Scenario

KIT = get_kit("ollama")
ADAPTER = KIT.adapter()
SCENARIOS = KIT.scenarios()
ANSWERED, INTERRUPTED, FAILING = KIT.answered(), KIT.interrupted(), KIT.failing()


def ids(scenario: Scenario) -> str:
    """Test id of a scenario."""
    return scenario.name


def non_streamed(scenario: Scenario) -> AssistantMessage:
    """The scenario's hand-written response, decoded: what every path must agree with."""
    message: AssistantMessage = KIT.non_streamed(scenario)
    return message


def _chat(scenario: Scenario, **kwargs: Any) -> Any:
    return KIT.sync_client().chat(**{**KIT.project(scenario).request, **kwargs})


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
def test_chat_gives_golden_message(scenario: Scenario, golden: Golden) -> None:
    """The client sends to_wire's request as it is; from_wire of its ChatResponse is the golden message."""
    with use_cassette(KIT.cassette_path(scenario)) as cassette:
        response = _chat(scenario)
    assert cassette.play_count == 1
    golden.check_json(KIT.golden_path(scenario, "message"), stored_form(KIT.decode(response)))


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
async def test_async_client_gives_the_same_message(scenario: Scenario) -> None:
    """``ollama.AsyncClient().chat`` hands back a response that reads as the whole one."""
    with use_cassette(KIT.cassette_path(scenario)):
        response = await KIT.async_client().chat(**KIT.project(scenario).request)
    assert comparable(KIT.decode(response)) == comparable(non_streamed(scenario))


@pytest.mark.parametrize("scenario", FAILING, ids=ids)
def test_failed_call_raises_the_packages_error(scenario: Scenario) -> None:
    """A busy server's 503 raises the package's ResponseError, whose body from_wire reads as a
    ProviderError."""
    with use_cassette(KIT.cassette_path(scenario)), pytest.raises(ollama.ResponseError) as caught:
        _chat(scenario)
    assert caught.value.status_code == 503
    assert "server busy" in caught.value.error


def test_request_drift_fails_the_replay() -> None:
    """A request that differs from the cassette in one value fails, naming the JSON path."""
    scenario = next(s for s in SCENARIOS if s.name == "parallel_tools")
    with pytest.raises(AssertionError, match=r"\$\.options\.num_predict: cassette has 1024"), \
            use_cassette(KIT.cassette_path(scenario)):
        _chat(scenario, options={"num_predict": 7})


# -- streams --------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
def test_streamed_chat_responses_equal_whole_response(scenario: Scenario) -> None:
    """The ChatResponse objects of ``chat(stream=True)`` through ollama.stream give the
    non-streamed message, with one completion last."""
    with use_cassette(KIT.cassette_path(scenario)):
        message, events = fold(ADAPTER.stream(_chat(scenario, stream=True)))
    assert_one_completion_last(events)
    assert message.status == "complete"
    assert comparable(message) == comparable(non_streamed(scenario))


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
async def test_async_stream_equals_whole_response(scenario: Scenario) -> None:
    """The async client's stream through ollama.astream gives the same message."""
    with use_cassette(KIT.cassette_path(scenario)):
        chunks = await KIT.async_client().chat(**KIT.project(scenario).request, stream=True)
        ids_, clock = deterministic_sources()
        with use_sources(ids=ids_, clock=clock):
            message = await aaccumulate(ADAPTER.astream(chunks))
    assert message.status == "complete"
    assert comparable(message) == comparable(non_streamed(scenario))


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
def test_raw_ndjson_bytes_equal_whole_response(scenario: Scenario) -> None:
    """The raw body of the streamed call (what httpx receives), read in 64-byte chunks, gives
    the non-streamed message."""
    request = KIT.http_body(KIT.stream_request(KIT.project(scenario).request))
    with use_cassette(KIT.cassette_path(scenario)), httpx.Client() as client:
        chunks = list(client.post(KIT.endpoint, json=request).iter_bytes(64))
    message, events = fold(ADAPTER.stream(chunks))
    assert_one_completion_last(events)
    assert comparable(message) == comparable(non_streamed(scenario))


@pytest.mark.parametrize("scenario", INTERRUPTED, ids=ids)
def test_interrupted_stream_gives_aborted_partial(scenario: Scenario, golden: Golden) -> None:
    """A user who stops reading mid-stream gets the text so far, status and stop_reason 'aborted'."""
    assert scenario.abort_after_text is not None
    with use_cassette(KIT.cassette_path(scenario)):
        ids_, clock = deterministic_sources()
        with use_sources(ids=ids_, clock=clock):
            partial = abort_after(ADAPTER.stream(_chat(scenario, stream=True)), scenario.abort_after_text)
    assert (partial.status, partial.stop_reason) == ("aborted", "aborted")
    assert partial.parts == (TextPart(text=scenario.abort_after_text),)
    golden.check_json(KIT.golden_path(scenario, "partial"), stored_form(partial))


@pytest.mark.parametrize("scenario", FAILING, ids=ids)
def test_failed_stream_keeps_what_arrived(scenario: Scenario, golden: Golden) -> None:
    """The package raises ResponseError for the error line mid-stream; it becomes one
    StreamErrorEvent, and the partial message keeps the text streamed before it."""
    assert scenario.stream_failure is not None
    with use_cassette(KIT.cassette_path(scenario)):
        message, events = fold(ADAPTER.stream(_chat(scenario, stream=True)))
    errors = [e for e in events if isinstance(e, StreamErrorEvent)]
    assert [(e.error.provider, e.error.message) for e in errors] == [
        ("ollama", "an error was encountered while running the model: unexpected EOF")]
    assert message.status == "error"
    assert message.parts == (TextPart(text=scenario.stream_failure.partial_text),)
    assert_one_completion_last(events)
    golden.check_json(KIT.golden_path(scenario, "partial"), stored_form(message))
