"""Every canonical scenario replayed through the real ``cohere`` SDK client (``ClientV2``), via vcrpy.

The SDK sends what ``to_wire`` built (``client.chat(**request)``): the cassette matches the JSON
body, so any drift fails as an unmatched request. What the SDK hands back goes through
``from_wire`` (its ``V2ChatResponse``) or ``stream`` (its ``V2ChatStreamResponse`` events, or
the raw SSE bytes) and must give the golden message; a stream must give the message of the
whole response, which is how partwire's stream agrees with the SDK's own stream handling.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import cohere
import pytest

from partwire import AssistantMessage, TextPart
from partwire.errors import ProviderError
from partwire.ids import deterministic_sources, use_sources
from partwire.streaming import StreamErrorEvent, aaccumulate
from tests.harness.compare import comparable, stored_form
from tests.harness.golden import Golden
from tests.harness.providers import get_kit
from tests.harness.replay import use_cassette
from tests.harness.streams import abort_after, assert_one_completion_last, fold
from tests.scenarios import Scenario

KIT = get_kit("cohere")
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


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
def test_chat_gives_golden_message(scenario: Scenario, golden: Golden) -> None:
    """The SDK sends to_wire's request as is; from_wire of its response object is the golden message."""
    with use_cassette(KIT.cassette_path(scenario)) as cassette:
        response = KIT.sync_client().chat(**KIT.project(scenario).request)
    assert cassette.play_count == 1
    assert isinstance(response, cohere.V2ChatResponse)
    golden.check_json(KIT.golden_path(scenario, "message"), stored_form(KIT.decode(response)))


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
async def test_async_chat_gives_the_same_message(scenario: Scenario) -> None:
    """The async client sends the same body, and its response reads as the sync one does."""
    with use_cassette(KIT.cassette_path(scenario)):
        response = await KIT.async_client().chat(**KIT.project(scenario).request)
    assert comparable(KIT.decode(response)) == comparable(non_streamed(scenario))


@pytest.mark.parametrize("scenario", FAILING, ids=ids)
def test_failed_call_raises_the_sdk_error(scenario: Scenario) -> None:
    """A call Cohere refuses as unavailable raises the SDK's error for it, whose body from_wire
    reads as a ProviderError."""
    with use_cassette(KIT.cassette_path(scenario)), pytest.raises(cohere.core.ApiError) as caught:
        KIT.sync_client().chat(**KIT.project(scenario).request)
    assert caught.value.status_code == 503
    with pytest.raises(ProviderError, match="overloaded"):
        ADAPTER.from_wire(caught.value.body)


def test_request_drift_fails_the_replay() -> None:
    """A request that differs from the cassette in one value fails, naming the JSON path."""
    scenario = next(s for s in SCENARIOS if s.name == "parallel_tools")
    drifted = {**KIT.project(scenario).request, "max_tokens": 7}
    with pytest.raises(AssertionError, match=r"\$\.max_tokens: cassette has 1024"), \
            use_cassette(KIT.cassette_path(scenario)):
        KIT.sync_client().chat(**drifted)


# -- streams --------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
def test_sdk_stream_equals_whole_response(scenario: Scenario) -> None:
    """The SDK's chat_stream events (its V2ChatStreamResponse objects) through cohere.stream give
    the non-streamed message, with one completion last."""
    with use_cassette(KIT.cassette_path(scenario)):
        message, events = fold(ADAPTER.stream(KIT.sync_client().chat_stream(**KIT.project(scenario).request)))
    assert_one_completion_last(events)
    assert message.status == "complete"
    assert comparable(message) == comparable(non_streamed(scenario))


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
async def test_async_sdk_stream_equals_whole_response(scenario: Scenario) -> None:
    """The async client's stream through cohere.astream gives the same message."""
    with use_cassette(KIT.cassette_path(scenario)):
        source: AsyncIterator[Any] = KIT.async_client().chat_stream(**KIT.project(scenario).request)
        ids_, clock = deterministic_sources()
        with use_sources(ids=ids_, clock=clock):
            message = await aaccumulate(ADAPTER.astream(source))
    assert message.status == "complete"
    assert comparable(message) == comparable(non_streamed(scenario))


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
def test_raw_sse_bytes_equal_whole_response(scenario: Scenario) -> None:
    """The raw SSE body, read in 64-byte chunks, gives the non-streamed message."""
    raw = KIT.response_text(scenario, stream=True).encode()
    message, events = fold(ADAPTER.stream([raw[i:i + 64] for i in range(0, len(raw), 64)]))
    assert_one_completion_last(events)
    assert comparable(message) == comparable(non_streamed(scenario))


@pytest.mark.parametrize("scenario", INTERRUPTED, ids=ids)
def test_interrupted_stream_gives_aborted_partial(scenario: Scenario, golden: Golden) -> None:
    """A user who stops reading mid-stream gets the text so far, status and stop_reason 'aborted'."""
    assert scenario.abort_after_text is not None
    with use_cassette(KIT.cassette_path(scenario)):
        events = KIT.sync_client().chat_stream(**KIT.project(scenario).request)
        ids_, clock = deterministic_sources()
        with use_sources(ids=ids_, clock=clock):
            partial = abort_after(ADAPTER.stream(events), scenario.abort_after_text)
    assert (partial.status, partial.stop_reason) == ("aborted", "aborted")
    assert partial.parts == (TextPart(text=scenario.abort_after_text),)
    golden.check_json(KIT.golden_path(scenario, "partial"), stored_form(partial))


@pytest.mark.parametrize("scenario", FAILING, ids=ids)
def test_failed_stream_keeps_what_arrived(scenario: Scenario, golden: Golden) -> None:
    """A message-end that carries an error becomes one StreamErrorEvent (its error_type the
    code), and the partial message keeps the text streamed before it."""
    assert scenario.stream_failure is not None
    with use_cassette(KIT.cassette_path(scenario)):
        ids_, clock = deterministic_sources()
        with use_sources(ids=ids_, clock=clock):
            message, events = fold(ADAPTER.stream(KIT.sync_client().chat_stream(**KIT.project(scenario).request)))
    errors = [e for e in events if isinstance(e, StreamErrorEvent)]
    assert [(e.error.code, e.error.provider) for e in errors] == [("SERVICE_UNAVAILABLE", "cohere")]
    assert message.status == "error"
    assert message.stop_reason == "error"
    assert message.parts == (TextPart(text=scenario.stream_failure.partial_text),)
    assert_one_completion_last(events)
    golden.check_json(KIT.golden_path(scenario, "partial"), stored_form(message))
