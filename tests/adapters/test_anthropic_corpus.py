"""The Anthropic adapter against every recorded Anthropic payload of the corpus.

The payloads are real traffic recorded by permissively licensed projects (provenance and
licences: ``tests/corpus/anthropic/README.md``). The tests read the copy committed under
``tests/corpus/anthropic``, or ``$PARTWIRE_CORPUS/anthropic`` when that variable points at
another copy (``../shared/corpus`` in the development checkout). A missing folder fails loudly.

- every non-error response parses with no ``unknown`` part;
- every error response raises a ``ProviderError`` naming the error;
- every stream, given as raw SSE bytes, as SSE cut into small chunks, and as parsed events,
  accumulates to the message ``from_wire`` gives for the SDK's own accumulation of it (the
  beta accumulator for streams holding beta-only blocks); tool arguments are compared as JSON
  values, since the stream keeps the model's exact text and a whole response only has the object;
- every request imports and re-exports equal.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path
from typing import Any

import httpx2
import pytest
from anthropic._streaming import SSEDecoder
from anthropic.lib.streaming._beta_messages import accumulate_event as beta_accumulate_event
from anthropic.lib.streaming._messages import accumulate_event

import partwire.adapters.anthropic as anthropic
from partwire import AssistantMessage, ToolCallPart, UnknownPart
from partwire._base import replace
from partwire._json import json_text
from partwire.adapters import ProviderError
from partwire.adapters.anthropic import _decode as anthropic_decode
from partwire.adapters.anthropic._request import _RequestReader
from partwire.streaming import accumulate
from tests.harness.neutral import neutral_dumps

_ROOT = os.environ.get("PARTWIRE_CORPUS")
CORPUS = (Path(_ROOT) if _ROOT else Path(__file__).parent.parent / "corpus") / "anthropic"
FILES = sorted(CORPUS.glob("*.json"))
# The corpus README counts 464 Anthropic files, plus the 6 and the 14 added for issue 23 (README,
# "Added for issue 23"); a copy with fewer is not the corpus.
EXPECTED_FILES = 484
# Block and delta types only the beta SDK types; their streams are checked against its accumulator.
BETA_BLOCKS = frozenset({"compaction", "mcp_tool_use", "mcp_tool_result", "fallback"})


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _files(keep: Any) -> list[Path]:
    """The corpus files ``keep`` selects; a sentinel that fails when the corpus is missing."""
    chosen = [p for p in FILES if keep(_load(p))]
    return chosen or [CORPUS / "MISSING-CORPUS.json"]


def _is_error(record: dict[str, Any]) -> bool:
    response = record["response"]
    return isinstance(response, dict) and response.get("type") == "error"


RESPONSES = _files(lambda r: r["response"] is not None and not _is_error(r))
ERRORS = _files(_is_error)
STREAMS = _files(lambda r: r["sse"] is not None or r["chunks"] is not None)
# A request the API refused (400) is not one it can express: the import law does not cover it.
REQUESTS = _files(lambda r: r["request"] is not None and r["status"] != 400)


def comparable(message: AssistantMessage) -> AssistantMessage:
    """The message with fresh ids made neutral and tool arguments in one spelling."""
    parts = tuple(
        replace(p, id=f"call-{i}", arguments_json=json_text(json.loads(p.arguments_json)))
        if isinstance(p, ToolCallPart) else p
        for i, p in enumerate(message.parts))
    return replace(message, id="m", created_at="2026-01-01T00:00:00Z", parts=parts)


def wire_events(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The stream's events as the SDK's own SSE decoder reads them (or the stored chunks)."""
    if record["sse"] is None:
        return list(record["chunks"])
    decoded = SSEDecoder().iter_bytes(iter([record["sse"].encode()]))
    return [sse.json() for sse in decoded if sse.event not in (None, "ping") and sse.data]


def sdk_final(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The final message the SDK's accumulator builds from ``events``, as the server's JSON."""
    beta = any(e.get("type") == "content_block_start" and e["content_block"].get("type") in BETA_BLOCKS
               for e in events)
    snapshot: Any = None
    bufs: dict[int, bytes] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the SDK dumps its unvalidated models
        for event in events:
            if beta:
                snapshot = beta_accumulate_event(event=event, current_snapshot=snapshot,  # type: ignore[arg-type]
                                                 json_bufs=bufs, request_headers=httpx2.Headers())
            else:
                snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=bufs)  # type: ignore[arg-type]
        final: dict[str, Any] = snapshot.to_dict(mode="json", warnings=False)
    return final


def test_the_corpus_is_present() -> None:
    """The corpus folder exists and holds every Anthropic file (a missing corpus fails, never skips)."""
    assert CORPUS.is_dir(), f"corpus folder {CORPUS} is missing (set PARTWIRE_CORPUS or restore tests/corpus)"
    assert len(FILES) == EXPECTED_FILES
    notes = [CORPUS / "README.md", CORPUS.parent / "README.md"]
    assert any(n.exists() for n in notes), "the provenance and licence note must stay beside the files"


@pytest.mark.parametrize("path", RESPONSES, ids=lambda p: p.stem)
def test_every_response_parses_without_unknown_parts(path: Path) -> None:
    """A recorded response becomes an assistant message in which every block was understood."""
    record = _load(path)
    message = anthropic.from_wire(record["response"])
    assert [p.original_type for p in message.parts if isinstance(p, UnknownPart)] == []
    assert len(message.parts) == len(record["response"]["content"])
    assert message.response_id == record["response"]["id"]
    assert message.stop_reason_raw == record["response"]["stop_reason"]
    assert message.stop_reason is not None


@pytest.mark.parametrize("path", ERRORS, ids=lambda p: p.stem)
def test_every_error_response_raises_a_clear_error(path: Path) -> None:
    """A recorded error body raises ProviderError with the error's type and message."""
    record = _load(path)
    with pytest.raises(ProviderError) as caught:
        anthropic.from_wire(record["response"])
    assert caught.value.code == record["response"]["error"]["type"]
    assert caught.value.message == record["response"]["error"]["message"]
    assert caught.value.message in str(caught.value)


@pytest.mark.parametrize("path", STREAMS, ids=lambda p: p.stem)
def test_every_stream_accumulates_to_the_sdks_final_message(path: Path) -> None:
    """SSE bytes (whole and in 13-byte chunks) and parsed events all give the SDK's final message."""
    record = _load(path)
    events = wire_events(record)
    expected = comparable(anthropic.from_wire(sdk_final(events)))
    assert comparable(accumulate(anthropic.stream(events))) == expected
    if record["sse"] is not None:
        raw = record["sse"].encode()
        assert comparable(accumulate(anthropic.stream(raw))) == expected
        chunks = [raw[i:i + 13] for i in range(0, len(raw), 13)]
        streamed = accumulate(anthropic.stream(chunks))
        assert comparable(streamed) == expected
        assert streamed.status == "complete"


@pytest.mark.parametrize("path", REQUESTS, ids=lambda p: p.stem)
def test_every_request_imports_and_reexports_equal(path: Path) -> None:
    """to_wire(from_wire_request(r)) == r, with nothing reported lost."""
    body = _load(path)["request"]
    imported = anthropic.from_wire_request(body)
    projection = anthropic.to_wire(imported.history, **imported.to_wire_kwargs())
    assert projection.request == body
    assert projection.losses == ()


@pytest.mark.parametrize("path", REQUESTS)
def test_the_fast_read_gives_what_the_full_read_gives(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's shortcuts (text-only messages, tool calls made without validation) change
    nothing in what it reads."""
    request = _load(path)["request"]
    fast = anthropic.from_wire_request(request).history
    monkeypatch.setattr(_RequestReader, "_text_only", lambda *args: None)
    monkeypatch.setattr(anthropic_decode, "build", lambda cls, fields: cls(**fields))
    assert neutral_dumps(anthropic.from_wire_request(request).history) == neutral_dumps(fast)
