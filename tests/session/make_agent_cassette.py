"""Writes ``tests/session/cassettes/agent.yaml``: the example agent's four calls, hand-written.

The responses below are written by hand from the wire references (``shared/wire/anthropic.md``,
``shared/wire/openai-chat.md``): real-looking ids, the documented event order, ``event:`` lines
on Anthropic's stream, ``[DONE]`` closing OpenAI's. Each request body is the one the example's
session builds for that turn, taken by running the example against stand-ins that hand back these
responses; the test then replays the cassette through the official SDK clients, which must send
exactly those bodies (Gemini's as the API reads them: the google-genai SDK writes its own JSON). Run ``python -m tests.session.make_agent_cassette`` after changing either.
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
RESPONSES_URI = "https://api.openai.com/v1/responses"
GEMINI_URI = ("https://generativelanguage.googleapis.com/v1beta/models/"
              "gemini-2.5-flash:generateContent")
SYSTEM_TEXT = "You are a coding agent. Read before you write; keep fixes minimal."
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

RESPONSES_READ: dict[str, Any] = {
    "id": "resp_68a1f3c2b7e4819d9a0c5e2f7b3d6a1c0e4f8b2d9c7a5e31", "object": "response",
    "created_at": 1764028920, "status": "completed", "background": False, "error": None,
    "incomplete_details": None, "instructions": SYSTEM_TEXT, "max_output_tokens": 2048,
    "model": "gpt-5-2025-08-07",
    "output": [
        {"id": "rs_68a1f3c4d2b8819da7e1f0c3b5a9d7e2", "type": "reasoning", "summary": [],
         "encrypted_content": "gAAAAABowR3kZ9vQx2LmN8pT4sW1yB6cF0hJ3kL7nP9rU2xA5dG8jM1qS4vY7zC0eH3"},
        {"id": "fc_68a1f3c5e9a4819db2c7d4f1a8e6b3c9", "type": "function_call",
         "status": "completed", "arguments": "{\"path\":\"calc.py\"}",
         "call_id": "call_Zp5Rt8Wm3Kx1Vc7Nq4Bs9Hd2", "name": "read_file"},
    ],
    "parallel_tool_calls": True, "previous_response_id": None, "prompt_cache_key": "agent-example",
    "reasoning": {"effort": "medium", "summary": None}, "service_tier": "default", "store": False,
    "temperature": 1.0, "text": {"format": {"type": "text"}, "verbosity": "medium"},
    "tool_choice": "auto", "tools": [], "top_p": 1.0, "truncation": "disabled",
    "usage": {"input_tokens": 604, "input_tokens_details": {"cached_tokens": 0},
              "output_tokens": 214, "output_tokens_details": {"reasoning_tokens": 192},
              "total_tokens": 818},
    "user": None, "metadata": {}}

GEMINI_DONE: dict[str, Any] = {
    "candidates": [{"content": {"role": "model", "parts": [
        {"text": "Fixed: calc.py's add now returns a + b, and the file reads back as written."}]},
        "finishReason": "STOP", "index": 0}],
    "usageMetadata": {"promptTokenCount": 688, "candidatesTokenCount": 19,
                      "totalTokenCount": 707,
                      "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 688}]},
    "modelVersion": "gemini-2.5-flash", "responseId": "kL3xaJ2fC5qv7dwPq9mT4Aw"}


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
        self.responses = self
        self.models = self

    def generate_content(self, *, model: str, contents: Any, config: dict[str, Any]) -> Any:
        """Gemini: the REST body the SDK will send for these arguments."""
        top = {"system_instruction": "systemInstruction", "tools": "tools",
               "tool_config": "toolConfig", "safety_settings": "safetySettings"}
        body: dict[str, Any] = {"contents": contents}
        generation = {k: v for k, v in config.items() if k not in top}
        body.update({top[k]: v for k, v in config.items() if k in top})
        if generation:
            body["generationConfig"] = generation
        assert GEMINI_URI.endswith(f"/{model}:generateContent")
        return self.create(**body)

    def create(self, **body: Any) -> Any:
        uri, reply = self.replies.pop(0)
        streamed = isinstance(reply, list)
        if uri == GEMINI_URI:
            text = json.dumps(reply, indent=2)
            headers = {"x-gemini-service-tier": "standard"}
        elif uri == ANTHROPIC_URI:
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
                       (OPENAI_URI, OPENAI_STREAM), (RESPONSES_URI, RESPONSES_READ),
                       (GEMINI_URI, GEMINI_DONE)])
    with tempfile.TemporaryDirectory() as scratch:
        workdir = Path(scratch)
        (workdir / "calc.py").write_text("def add(a, b):\n    return a - b\n")
        log = workdir / "session.jsonl"
        with contextlib.suppress(agent.Crash):
            agent.start(log, workdir, client, client)
        agent.resume(log, workdir, client, client)
    CASSETTE.write_text(render_cassette(client.exchanges), encoding="utf-8")


if __name__ == "__main__":
    write()
