"""A chat back end for the AI SDK's ``useChat``, on Starlette: partwire reads the UI's messages
and streams the answer back as the UI message stream.

``POST /api/chat`` takes what the SDK's ``DefaultChatTransport`` sends (``{"messages": [...]}``,
``UIMessage`` objects), reads them into a canonical history, and answers with the provider's
stream turned into UI message stream chunks, framed as server-sent events with the protocol's
headers. Here the provider's stream is a recorded one (a corpus file of partwire's test suite, or
any ``{"provider": ..., "sse": ...}`` file), so the example runs with no key and no network; a
real server sends ``to_wire(history)``'s request with the provider's client and hands the
client's stream to the same ``stream`` call.

Run it with the ``ui-server`` extra (``pip install 'partwire[ui-server]'``)::

    python docs/examples/chat_server.py RECORDED.json

and point ``useChat`` (or ``new DefaultChatTransport({api})``) at http://127.0.0.1:8000/api/chat.
The tests serve a recorded conversation to the AI SDK's own client under node
(``tests/ui/test_chat_server.py``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from partwire import PartwireError
from partwire.adapters import get_adapter
from partwire.history import HistoryEvent
from partwire.streaming import StreamEvent
from partwire.ui import ai_sdk, ai_sdk_stream


def provider_stream(history: list[HistoryEvent], recorded: dict[str, Any]) -> Iterator[StreamEvent]:
    """The answer to ``history`` as canonical stream events: here, a recorded provider stream.

    A real server would send the request instead, e.g. for Anthropic::

        projection = anthropic.to_wire(history, model="anthropic:claude-sonnet-4-6")
        chunks = client.messages.create(**projection.request, stream=True)
        return anthropic.stream(chunks)
    """
    adapter = get_adapter(recorded["provider"].replace("-", "_"))
    source = recorded["sse"].encode() if recorded.get("sse") else recorded["chunks"]
    return adapter.stream(source)


def create_app(recorded: dict[str, Any]) -> Starlette:
    """The app: one route, ``POST /api/chat``, answering with the recorded provider stream."""

    async def chat(request: Request) -> Response:
        body = await request.json()
        try:
            history = ai_sdk.from_wire(body.get("messages")).value
        except PartwireError as error:  # the UI sent something that is not UI messages
            return JSONResponse({"error": str(error)}, status_code=400)
        chunks = ai_sdk_stream.to_stream(provider_stream(list(history), recorded))
        return StreamingResponse(ai_sdk_stream.sse(chunks), headers=dict(ai_sdk_stream.HEADERS))

    return Starlette(routes=[Route("/api/chat", chat, methods=["POST"])])


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(create_app(json.loads(Path(sys.argv[1]).read_text())), host="127.0.0.1", port=8000)
