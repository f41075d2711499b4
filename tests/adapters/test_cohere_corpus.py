"""The Cohere v2 adapter against every recorded ``/v2/chat`` payload of the corpus.

The payloads are real Cohere traffic recorded by permissively licensed projects
(``shared/corpus/README.md``, "Cohere v2 Chat": openllmetry's and langchain-cohere's cassettes:
Command, Command R, Command A and its reasoning and vision models). What must hold:

- every response and every stream parses with no ``unknown`` part;
- every stream, as raw SSE (whole and cut into 7-byte pieces) and as the SDK's own
  ``V2ChatStreamResponse`` objects parsed from the same events, folds to the same message; no
  recording holds one answer both whole and streamed, so stream and whole agree on the
  scenarios' hand-written pairs (``test_cohere_cassettes.py``) and in the wire laws;
- every request imports and re-exports equal, with nothing reported lost, and the re-export
  passes the SDK's request models wherever the recorded body did;
- citations arrive on the text part they cite from, with their sources.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cohere as cohere_sdk
import pytest
from cohere.core.pydantic_utilities import parse_obj_as

from partwire import DocumentCitation, DocumentPart, TextPart, ThinkingPart, UnknownPart
from partwire.adapters import cohere
from partwire.adapters._sse import SSEDecoder
from partwire.streaming import accumulate
from tests.harness.compare import comparable
from tests.harness.corpus import CORPUS
from tests.harness.validity import request_errors

FOLDER = CORPUS / "cohere"
FILES = sorted(FOLDER.glob("*.json"))
EXPECTED_FILES = 49  # the corpus README's count


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _files(keep: Any) -> list[Path]:
    chosen = [p for p in FILES if keep(_load(p))]
    return chosen or [FOLDER / "MISSING-CORPUS.json"]


RESPONSES = _files(lambda r: isinstance(r["response"], dict))
STREAMS = _files(lambda r: r["sse"] is not None)
REQUESTS = _files(lambda r: r["request"] is not None)


def _events(sse: str) -> list[dict[str, Any]]:
    """The JSON events of a recorded SSE body (``[DONE]`` left out)."""
    decoder = SSEDecoder()
    return [json.loads(e.data) for e in decoder.feed(sse) + decoder.flush() if e.data and e.data != "[DONE]"]


def test_the_corpus_is_all_there() -> None:
    """The corpus holds every recording its README counts."""
    assert len(FILES) == EXPECTED_FILES


@pytest.mark.parametrize("path", RESPONSES, ids=lambda p: p.name)
def test_every_response_parses_with_no_unknown_part(path: Path) -> None:
    """A recorded response reads whole: no unknown part, one part per content item, plan and call."""
    body = _load(path)["response"]
    message = cohere.from_wire(body)
    wire = body["message"]
    expected = len(wire.get("content") or ()) + bool(wire.get("tool_plan")) + len(wire.get("tool_calls") or ())
    assert not any(isinstance(p, UnknownPart) for p in message.parts)
    assert len(message.parts) == expected
    assert message.response_id == body["id"]
    assert message.usage is not None
    assert message.usage.input_tokens == body["usage"]["billed_units"]["input_tokens"]


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.name)
def test_every_stream_folds_alike_from_sse_pieces_and_sdk_events(path: Path) -> None:
    """A recorded stream folds to one message from its raw SSE (whole and in 7-byte pieces) and
    from the SDK's own event objects; no unknown part, and an error end keeps what arrived."""
    sse = _load(path)["sse"]
    whole = accumulate(cohere.stream(sse))
    raw = sse.encode()
    pieces = accumulate(cohere.stream([raw[i:i + 7] for i in range(0, len(raw), 7)]))
    model: Any = cohere_sdk.V2ChatStreamResponse  # a union the SDK's parser takes as a type
    sdk = accumulate(cohere.stream([parse_obj_as(model, e) for e in _events(sse)]))
    assert comparable(pieces) == comparable(whole) == comparable(sdk)
    assert not any(isinstance(p, UnknownPart) for p in whole.parts)
    assert whole.status == ("error" if '"error":"' in sse else "complete")
    assert whole.response_id == _events(sse)[0]["id"]


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.name)
def test_every_request_imports_and_re_exports_equal(path: Path) -> None:
    """A recorded request reads back and projects to itself, with no loss and no unknown part;
    the re-export passes the SDK's request models wherever the recording did."""
    body = _load(path)["request"]
    imported = cohere.from_wire_request(body)
    assert not any(isinstance(p, UnknownPart) for e in imported.history for p in getattr(e, "parts", ()))
    projection = cohere.to_wire(imported.history, **imported.to_wire_kwargs())
    assert projection.request == body
    assert projection.losses == ()
    sent = {k: v for k, v in body.items() if k != "stream"}
    assert request_errors("cohere", {k: v for k, v in projection.request.items() if k != "stream"}) \
        == request_errors("cohere", sent)


def test_recorded_requests_pass_the_sdk_models_but_the_schema_key_langchain_sends() -> None:
    """Every recorded request passes the SDK's closed request models, but langchain-cohere's
    ``response_format.schema``, which the API took and the SDK declares no field for."""
    failing = {p.name for p in REQUESTS
               if request_errors("cohere", {k: v for k, v in _load(p)["request"].items() if k != "stream"})}
    assert failing == {p.name for p in REQUESTS if "schema" in (_load(p)["request"].get("response_format") or {})}
    assert len(failing) == 2


def test_request_documents_read_as_a_user_message_of_documents() -> None:
    """The recorded request's documents (with ids) become document parts of one marked user
    message, their text and id kept; the answer's citation lands on its text with its source."""
    data = _load(FOLDER / "langchain-cohere__test_who_founded_cohere_with_custom_documents.json")
    history = cohere.from_wire_request(data["request"]).history
    documents = history[0]
    assert [p.source.text for p in documents.parts if isinstance(p, DocumentPart)] == [  # type: ignore[union-attr]
        "Langchain supports cohere RAG!", "The sky is a mixture of brown and purple!",
        "Barack Obama is the founder of Cohere!"]
    message = cohere.from_wire(data["response"])
    (text,) = message.parts
    assert isinstance(text, TextPart)
    (citation,) = text.citations
    assert isinstance(citation, DocumentCitation)
    assert text.text[citation.start:citation.end] == citation.cited_text == "Barack Obama."
    assert citation.document_index == 2
    assert citation.provider_data is not None
    kept: Any = citation.provider_data.data
    assert kept["citation"]["sources"][0]["id"] == "doc-2"


def test_reasoning_and_a_tool_call_read_in_order() -> None:
    """command-a-reasoning's answer: a thinking part, then the call, finish TOOL_CALL."""
    message = cohere.from_wire(_load(FOLDER / "langchain-cohere__test_command_a_reasoning_with_tool_call.json")["response"])
    assert [p.type for p in message.parts] == ["thinking", "tool_call"]
    assert isinstance(message.parts[0], ThinkingPart)
    assert message.parts[0].signature is None
    assert message.stop_reason == "tool_use"
