"""Writes ``tests/session/cassettes/bedrock_cache.yaml``: two Converse calls of a Bedrock session.

The responses are written by hand from botocore's ``bedrock-runtime`` service model and the
Converse reference (a tool call that writes the prompt cache, then an answer that reads it). Each
request body is the one the session builds for that turn (``http_body`` of its request: what
boto3 serialises); the test replays the cassette through boto3's real client, which must send
exactly those bodies, cache points included. Run ``python -m tests.session.make_bedrock_cache_cassette``
after changing the session's placement.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tests.harness.cassettes import Exchange, render_cassette
from tests.harness.providers.bedrock import HOST, MODEL, http_body

HERE = Path(__file__).resolve().parent
CASSETTE = HERE / "cassettes" / "bedrock_cache.yaml"
URI = f"{HOST}/model/{quote(MODEL, safe='')}/converse"
REQUEST_IDS = ("5c1d9e2a-7f3b-4a6c-8d0e-2b4f6a8c0e1f", "8e3f1a4c-9b5d-4c7e-a1f3-4d6b8e0a2c4e")

TURN_1: dict[str, Any] = {
    "output": {"message": {"role": "assistant", "content": [
        {"text": "I'll read the failing test first."},
        {"toolUse": {"toolUseId": "tooluse_Vx3QpL8sR2mN7kJ4hG1fDa", "name": "read_file",
                     "input": {"path": "tests/test_calc.py"}}}]}},
    "stopReason": "tool_use",
    "usage": {"inputTokens": 12, "outputTokens": 41, "totalTokens": 2109,
              "cacheReadInputTokens": 0, "cacheWriteInputTokens": 2056},
    "metrics": {"latencyMs": 1532},
}
TURN_2: dict[str, Any] = {
    "output": {"message": {"role": "assistant", "content": [
        {"text": "The test expects add(2, 2) == 4; calc.add subtracts. Change `-` to `+`."}]}},
    "stopReason": "end_turn",
    "usage": {"inputTokens": 31, "outputTokens": 24, "totalTokens": 2152,
              "cacheReadInputTokens": 2056, "cacheWriteInputTokens": 41},
    "metrics": {"latencyMs": 988},
}


def session_requests() -> list[dict[str, Any]]:
    """The two request bodies (``client.converse`` arguments) the session test builds."""
    from tests.session.test_session_bedrock_cache import answer_the_call, start

    session = start()
    first = session.request().request
    session.receive(TURN_1)
    answer_the_call(session)
    return [first, session.request().request]


def exchanges() -> list[Exchange]:
    """The two calls, in order."""
    return [Exchange(uri=URI, request_body=http_body(request), status=200,
                     response_body=json.dumps(response, indent=2) + "\n",
                     response_headers={"content-type": "application/json",
                                       "x-amzn-requestid": request_id},
                     request_headers={"content-type": "application/json"})
            for request, response, request_id in zip(session_requests(), (TURN_1, TURN_2),
                                                     REQUEST_IDS, strict=True)]


if __name__ == "__main__":
    CASSETTE.write_text(render_cassette(exchanges()))
    print(f"wrote {CASSETTE}")
