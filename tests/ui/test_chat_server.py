"""The example chat server (docs/examples/chat_server.py) streams a recorded conversation to the
AI SDK's own client: ``DefaultChatTransport`` under node posts the UI messages, and
``readUIMessageStream`` reads the answer."""

from __future__ import annotations

import importlib.util
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import uvicorn

from partwire import ThinkingPart, UserMessage
from partwire.adapters import anthropic
from partwire.ui import ai_sdk
from tests.harness.corpus import CORPUS
from tests.harness.streams import fold
from tests.ui.conftest import Node

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "chat_server.py"
# A recorded Anthropic stream with signed thinking, then text: what a chat UI shows and replays.
RECORDED = CORPUS / "anthropic" / "llm-anthropic__test_anthropic--test_stream_events_thinking.json"


def _example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("partwire_example_chat_server", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def server() -> Iterator[str]:
    """The example app served by uvicorn on a free local port, for the length of one test."""
    recorded = json.loads(RECORDED.read_text())
    port = _free_port()
    config = uvicorn.Config(_example().create_app(recorded), host="127.0.0.1", port=port,
                            log_level="warning", lifespan="off")
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not instance.started:
        assert time.monotonic() < deadline, "the example server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/api/chat"
    instance.should_exit = True
    thread.join(timeout=10)


def test_the_example_server_streams_a_recorded_conversation_to_the_sdks_client(
        server: str, node: Node) -> None:
    """The SDK's client gets the recorded answer: the same reasoning (with its signature under
    Anthropic's key), the same text, partwire's message id and usage."""
    question = ai_sdk.to_wire([UserMessage("How many r's are in strawberry?")]).value
    [result] = node("chat-client", [{"url": server, "messages": question}])
    assert result["ok"], result.get("error")
    record: dict[str, Any] = json.loads(RECORDED.read_text())
    expected, _ = fold(anthropic.stream(record["sse"].encode() if record.get("sse") else record["chunks"]))
    ui = result["message"]
    thinking = next(p for p in expected.parts if isinstance(p, ThinkingPart))
    reasoning = next(p for p in ui["parts"] if p["type"] == "reasoning")
    assert reasoning["text"] == thinking.text
    assert thinking.signature is not None
    assert reasoning["providerMetadata"]["anthropic"]["signature"] == thinking.signature.value
    texts = [p["text"] for p in ui["parts"] if p["type"] == "text"]
    assert texts == [getattr(p, "text", None) for p in expected.parts if p.type == "text"]
    # the UI's message has partwire's message id, and its usage rides in the message metadata
    assert ui["id"] == ui["metadata"]["partwire"]["id"]
    assert expected.usage is not None
    assert ui["metadata"]["partwire"]["usage"]["output_tokens"] == expected.usage.output_tokens


def test_the_example_server_refuses_what_is_not_ui_messages(server: str) -> None:
    """A body whose messages are not UI messages gets a 400 naming the place, not a stream."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(server, data=json.dumps({"messages": [{"id": 1}]}).encode(),
                                     headers={"content-type": "application/json"}, method="POST")
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=10)
    assert caught.value.code == 400
    assert "messages[0].id" in json.loads(caught.value.read())["error"]
