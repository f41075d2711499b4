"""Writes ``tests/session/cassettes/agent.yaml``: the example agent's four calls, hand-written.

The responses below are written by hand from the wire references (``shared/wire/anthropic.md``,
``shared/wire/openai-chat.md``): real-looking ids, the documented event order, ``event:`` lines
on Anthropic's stream, ``[DONE]`` closing OpenAI's. Each request body is the one the example's
session builds for that turn, taken by running the example against stand-ins that hand back these
responses; the test then replays the cassette through the official SDK clients, which must send
exactly those bodies. Run ``python -m tests.session.make_agent_cassette`` after changing either.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from tests.harness.cassettes import Exchange, render_cassette

HERE = Path(__file__).resolve().parent
CASSETTE = HERE / "cassettes" / "agent.yaml"
EXAMPLE = HERE.parents[1] / "docs" / "examples" / "agent.py"
ANTHROPIC_URI = "https://api.anthropic.com/v1/messages"
OPENAI_URI = "https://api.openai.com/v1/chat/completions"
FIX = "def add(a, b):\n    return a + b\n"

ANTHROPIC_STREAM: list[dict[str, Any]] = [
    {"type": "message_start", "message": {
        "id": "msg_01Hq7dYpAq3nVZ2mWcR8tLkE", "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-6", "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 642, "cache_creation_input_tokens": 0,
                  "cache_read_input_tokens": 0, "output_tokens": 4}}},
    {"type": "ping"},
    {"type": "content_block_start", "index": 0,
     "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {
        "type": "thinking_delta", "thinking": "I need the implementation and the test. "}},
    {"type": "content_block_delta", "index": 0, "delta": {
        "type": "thinking_delta", "thinking": "Both reads are independent: do them at once."}},
    {"type": "content_block_delta", "index": 0, "delta": {
        "type": "signature_delta",
        "signature": "EqQBCkYIBxgCKkBX3pQx0mYtV8cW2rZK9sLhN4vTgJ1aPdEo6fQyRkUbHnMwC5iXjSzAeFlDtOqGrYv"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 1,
     "delta": {"type": "text_delta", "text": "I'll read the code and its test."}},
    {"type": "content_block_stop", "index": 1},
    {"type": "content_block_start", "index": 2, "content_block": {
        "type": "tool_use", "id": "toolu_01Vb9kXz2QmRt7YwNc4LpDsA", "name": "read_file",
        "input": {}}},
    {"type": "content_block_delta", "index": 2,
     "delta": {"type": "input_json_delta", "partial_json": "{\"path\": "}},
    {"type": "content_block_delta", "index": 2,
     "delta": {"type": "input_json_delta", "partial_json": "\"calc.py\"}"}},
    {"type": "content_block_stop", "index": 2},
    {"type": "content_block_start", "index": 3, "content_block": {
        "type": "tool_use", "id": "toolu_01Kf3sJw8TnYc2HqRb6ZmXeP", "name": "read_file",
        "input": {}}},
    {"type": "content_block_delta", "index": 3,
     "delta": {"type": "input_json_delta", "partial_json": "{\"path\": \"test_calc.py\"}"}},
    {"type": "content_block_stop", "index": 3},
    {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
     "usage": {"input_tokens": 642, "cache_creation_input_tokens": 0,
               "cache_read_input_tokens": 0, "output_tokens": 131}},
    {"type": "message_stop"},
]

OPENAI_WRITE: dict[str, Any] = {
    "id": "chatcmpl-CX1pR8mQa7Zt2Vn5Lk9Yh3Wd0Js4F", "object": "chat.completion",
    "created": 1764028800, "model": "gpt-4.1-2025-04-14",
    "choices": [{"index": 0, "message": {
        "role": "assistant", "content": None, "refusal": None, "annotations": [],
        "tool_calls": [{"id": "call_Qm4Zr8Tn2Vb6Xc1Lp9Hs3Kd", "type": "function", "function": {
            "name": "write_file",
            "arguments": json.dumps({"path": "calc.py", "content": FIX})}}]},
        "logprobs": None, "finish_reason": "tool_calls"}],
    "usage": {"prompt_tokens": 731, "completion_tokens": 38, "total_tokens": 769,
              "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
              "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                            "accepted_prediction_tokens": 0,
                                            "rejected_prediction_tokens": 0}},
    "service_tier": "default", "system_fingerprint": "fp_b3f1157249"}

_CHUNK = {"id": "chatcmpl-CX1qT3nLb8Yr5Wm2Zk7Hd4Vc9Pj6A", "object": "chat.completion.chunk",
          "created": 1764028860, "model": "gpt-4.1-2025-04-14", "service_tier": "default",
          "system_fingerprint": "fp_b3f1157249"}
_ARGS = json.dumps({"path": "calc.py", "content": FIX})
OPENAI_STREAM: list[dict[str, Any]] = [
    {**_CHUNK, "choices": [{"index": 0, "delta": {"role": "assistant", "content": "",
                                                  "refusal": None},
                            "logprobs": None, "finish_reason": None}]},
    {**_CHUNK, "choices": [{"index": 0, "delta": {"content": "The last write was cut off; "},
                            "logprobs": None, "finish_reason": None}]},
    {**_CHUNK, "choices": [{"index": 0, "delta": {"content": "writing the fix again."},
                            "logprobs": None, "finish_reason": None}]},
    {**_CHUNK, "choices": [{"index": 0, "delta": {"tool_calls": [{
        "index": 0, "id": "call_Wn7Kc2Xr9Tb4Zm6Qp1Ls8Hd", "type": "function",
        "function": {"name": "write_file", "arguments": ""}}]},
        "logprobs": None, "finish_reason": None}]},
    {**_CHUNK, "choices": [{"index": 0, "delta": {"tool_calls": [{
        "index": 0, "function": {"arguments": _ARGS[:20]}}]},
        "logprobs": None, "finish_reason": None}]},
    {**_CHUNK, "choices": [{"index": 0, "delta": {"tool_calls": [{
        "index": 0, "function": {"arguments": _ARGS[20:]}}]},
        "logprobs": None, "finish_reason": None}]},
    {**_CHUNK, "choices": [{"index": 0, "delta": {}, "logprobs": None,
                            "finish_reason": "tool_calls"}]},
]

OPENAI_DONE: dict[str, Any] = {
    "id": "chatcmpl-CX1rB6pWc3Ks9Tn4Ym8Hq2Zd5Lv7R", "object": "chat.completion",
    "created": 1764028920, "model": "gpt-4.1-2025-04-14",
    "choices": [{"index": 0, "message": {
        "role": "assistant", "content": "Fixed: calc.py's add now returns a + b.",
        "refusal": None, "annotations": []}, "logprobs": None, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 512, "completion_tokens": 14, "total_tokens": 526,
              "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
              "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                            "accepted_prediction_tokens": 0,
                                            "rejected_prediction_tokens": 0}},
    "service_tier": "default", "system_fingerprint": "fp_b3f1157249"}


def anthropic_sse(events: list[dict[str, Any]]) -> str:
    """Anthropic's stream: an ``event:`` line and a ``data:`` line per event."""
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def openai_sse(chunks: list[dict[str, Any]]) -> str:
    """OpenAI's stream: a ``data:`` line per chunk, then ``[DONE]``."""
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


class _StandIn:
    """Takes the place of both SDK clients while the cassette is written: records each request
    body and hands back the next hand-written response (parsed, as the session accepts it)."""

    def __init__(self, replies: list[tuple[str, Any]]) -> None:
        self.replies = replies
        self.exchanges: list[Exchange] = []
        self.messages = self
        self.chat = self
        self.completions = self

    def create(self, **body: Any) -> Any:
        uri, reply = self.replies.pop(0)
        streamed = isinstance(reply, list)
        if uri == ANTHROPIC_URI:
            text = anthropic_sse(reply) if streamed else json.dumps(reply, indent=2)
            headers = {"request-id": f"req_011CX{len(self.exchanges)}Rk7Pq2Wn9Tb4Zm6Hc1Ls"}
        else:
            text = openai_sse(reply) if streamed else json.dumps(reply, indent=2)
            headers = {"x-request-id": f"req_5c1e9a7b3d2f4e6a8b0c{len(self.exchanges)}d2e4f6a8b"}
        headers["content-type"] = "text/event-stream" if streamed else "application/json"
        self.exchanges.append(Exchange(uri=uri, request_body=body, status=200,
                                       response_body=text, response_headers=headers))
        return reply


def example() -> ModuleType:
    """The example agent, imported from its file."""
    spec = importlib.util.spec_from_file_location("partwire_example_agent", EXAMPLE)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write() -> None:
    """Run the example against the stand-ins and write the cassette."""
    agent = example()
    client = _StandIn([(ANTHROPIC_URI, ANTHROPIC_STREAM), (OPENAI_URI, OPENAI_WRITE),
                       (OPENAI_URI, OPENAI_STREAM), (OPENAI_URI, OPENAI_DONE)])
    with tempfile.TemporaryDirectory() as scratch:
        workdir = Path(scratch)
        (workdir / "calc.py").write_text("def add(a, b):\n    return a - b\n")
        log = workdir / "session.jsonl"
        with contextlib.suppress(agent.Crash):
            agent.start(log, workdir, client, client)
        agent.resume(log, workdir, client)
    CASSETTE.write_text(render_cassette(client.exchanges), encoding="utf-8")


if __name__ == "__main__":
    write()
