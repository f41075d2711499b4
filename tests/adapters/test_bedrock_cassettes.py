"""Every canonical scenario replayed through the real boto3 ``bedrock-runtime`` client, via vcrpy.

boto3 sends what ``to_wire`` built (``client.converse(**request)``): the cassette matches the
HTTP body botocore serialised from it (JSON, binary fields base64-encoded by botocore itself), so
any drift, a ``str`` where botocore wants ``bytes`` included, fails as an unmatched request. What
boto3 hands back goes through ``from_wire`` (its response dict) or ``stream`` (its response with
an ``EventStream`` of event dicts, or the raw event stream bytes) and must give the golden
message; a stream must give the message of the whole response. Interrupted and failing streams
keep what arrived.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from partwire import AssistantMessage, TextPart
from partwire.ids import deterministic_sources, use_sources
from partwire.streaming import StreamErrorEvent, aaccumulate
from tests.harness.compare import comparable, stored_form
from tests.harness.golden import Golden
from tests.harness.providers import get_kit
from tests.harness.replay import use_cassette
from tests.harness.streams import abort_after, assert_one_completion_last, fold
from tests.scenarios import Scenario

KIT = get_kit("bedrock")
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
def test_converse_gives_golden_message(scenario: Scenario, golden: Golden) -> None:
    """boto3 sends to_wire's request as is; from_wire of its response is the golden message, with
    the request id as the response id."""
    with use_cassette(KIT.cassette_path(scenario)) as cassette:
        response = KIT.sync_client().converse(**KIT.project(scenario).request)
    assert cassette.play_count == 1
    message = KIT.decode(response)
    assert message.response_id == response["ResponseMetadata"]["RequestId"]
    golden.check_json(KIT.golden_path(scenario, "message"), stored_form(message))


@pytest.mark.parametrize("scenario", FAILING, ids=ids)
def test_failed_call_raises_the_sdk_error(scenario: Scenario) -> None:
    """A call Bedrock refuses as unavailable raises botocore's ClientError, once (no retry)."""
    with use_cassette(KIT.cassette_path(scenario)) as cassette, pytest.raises(ClientError) as caught:
        KIT.sync_client().converse(**KIT.project(scenario).request)
    assert caught.value.response["Error"]["Code"] == "ServiceUnavailableException"
    assert caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 503
    assert cassette.play_count == 1


def test_request_drift_fails_the_replay() -> None:
    """A request that differs from the cassette in one value fails, naming the JSON path."""
    scenario = next(s for s in SCENARIOS if s.name == "parallel_tools")
    request = KIT.project(scenario).request
    drifted = {**request, "inferenceConfig": {"maxTokens": 7}}
    with pytest.raises(AssertionError, match=r"\$\.inferenceConfig\.maxTokens: cassette has 1024"), \
            use_cassette(KIT.cassette_path(scenario)):
        KIT.sync_client().converse(**drifted)


def test_base64_text_where_boto3_wants_bytes_fails_the_replay() -> None:
    """The JSON-body form (blobs="base64") given to boto3 is encoded twice by botocore: the cassette
    refuses it, which is why to_wire's default is bytes."""
    scenario = next(s for s in SCENARIOS if s.name == "images_pdf")
    history = scenario.history
    request = ADAPTER.to_wire(history, model=KIT.model, blobs="base64", **KIT.options(scenario)).request
    with pytest.raises(AssertionError, match="request body differs"), \
            use_cassette(KIT.cassette_path(scenario)):
        KIT.sync_client().converse(**request)


# -- streams --------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
def test_converse_stream_equals_whole_response(scenario: Scenario) -> None:
    """boto3's converse_stream response (its EventStream of event dicts) through bedrock.stream
    gives the non-streamed message, with one completion last."""
    with use_cassette(KIT.cassette_path(scenario)):
        response = KIT.sync_client().converse_stream(**KIT.project(scenario).request)
        message, events = fold(ADAPTER.stream(response))
    assert_one_completion_last(events)
    assert message.status == "complete"
    assert message.response_id == response["ResponseMetadata"]["RequestId"]
    assert comparable(message.model_copy(update={"response_id": None})) == comparable(non_streamed(scenario))


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
async def test_astream_over_the_event_dicts_equals_whole_response(scenario: Scenario) -> None:
    """The same events through bedrock.astream (as aiobotocore yields them) give the same message."""
    with use_cassette(KIT.cassette_path(scenario)):
        response = KIT.sync_client().converse_stream(**KIT.project(scenario).request)
        items = list(response["stream"])

    async def source() -> AsyncIterator[dict[str, Any]]:
        for item in items:
            yield item

    ids_, clock = deterministic_sources()
    with use_sources(ids=ids_, clock=clock):
        message = await aaccumulate(ADAPTER.astream(source()))
    assert message.status == "complete"
    assert comparable(message) == comparable(non_streamed(scenario))


@pytest.mark.parametrize("scenario", ANSWERED, ids=ids)
def test_raw_event_stream_bytes_equal_whole_response(scenario: Scenario) -> None:
    """The raw body boto3 received (application/vnd.amazon.eventstream), read in 64-byte chunks by
    partwire's own decoder, gives the non-streamed message."""
    with use_cassette(KIT.cassette_path(scenario)):
        response = KIT.sync_client().converse_stream(**KIT.project(scenario).request)
        raw = response["stream"]._raw_stream
        chunks = list(raw.stream(64))
    message, events = fold(ADAPTER.stream(chunks))
    assert_one_completion_last(events)
    assert comparable(message) == comparable(non_streamed(scenario))


@pytest.mark.parametrize("scenario", INTERRUPTED, ids=ids)
def test_interrupted_stream_gives_aborted_partial(scenario: Scenario, golden: Golden) -> None:
    """A user who stops reading mid-stream gets the text so far, status and stop_reason 'aborted'."""
    assert scenario.abort_after_text is not None
    with use_cassette(KIT.cassette_path(scenario)):
        response = KIT.sync_client().converse_stream(**KIT.project(scenario).request)
        ids_, clock = deterministic_sources()
        with use_sources(ids=ids_, clock=clock):
            partial = abort_after(ADAPTER.stream(response), scenario.abort_after_text)
        response["stream"].close()
    assert (partial.status, partial.stop_reason) == ("aborted", "aborted")
    assert partial.parts == (TextPart(text=scenario.abort_after_text),)
    golden.check_json(KIT.golden_path(scenario, "partial"), stored_form(partial))


@pytest.mark.parametrize("scenario", FAILING, ids=ids)
def test_failed_stream_keeps_what_arrived(scenario: Scenario, golden: Golden) -> None:
    """An exception event mid-stream (botocore raises EventStreamError for it) becomes one
    StreamErrorEvent, and the partial message keeps the text streamed before it."""
    assert scenario.stream_failure is not None
    with use_cassette(KIT.cassette_path(scenario)):
        response = KIT.sync_client().converse_stream(**KIT.project(scenario).request)
        message, events = fold(ADAPTER.stream(response))
    errors = [e for e in events if isinstance(e, StreamErrorEvent)]
    assert len(errors) == 1
    assert errors[0].error.code == "modelStreamErrorException"
    assert errors[0].error.provider == "bedrock"
    assert errors[0].error.retryable is scenario.stream_failure.retryable
    assert message.status == "error"
    assert message.parts == (TextPart(text=scenario.stream_failure.partial_text),)
    assert_one_completion_last(events)
    golden.check_json(KIT.golden_path(scenario, "partial"), stored_form(message))


@pytest.mark.parametrize("scenario", FAILING, ids=ids)
def test_failed_raw_stream_keeps_the_models_status(scenario: Scenario) -> None:
    """Read from the raw bytes, the exception event keeps what botocore's error drops: the
    model's own HTTP status (originalStatusCode)."""
    with use_cassette(KIT.cassette_path(scenario)):
        response = KIT.sync_client().converse_stream(**KIT.project(scenario).request)
        chunks = list(response["stream"]._raw_stream.stream(64))
    message, events = fold(ADAPTER.stream(chunks))
    errors = [e for e in events if isinstance(e, StreamErrorEvent)]
    assert [(e.error.code, e.error.status) for e in errors] == [("modelStreamErrorException", 529)]
    assert message.status == "error"
