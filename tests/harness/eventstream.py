"""ConverseStream bodies for tests: event items written as AWS event stream bytes, and the
Converse response a stream stands for.

:func:`encode_events` writes the binary framing (``application/vnd.amazon.eventstream``) from
its published layout; botocore's own decoder reads it back in the tests, which is what makes
these bytes a reference for partwire's decoder. :func:`assemble` folds ConverseStream items into
the response ``converse`` would have given, written from the service model's shapes (boto3 has
no accumulator of its own).
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["assemble", "encode_events", "encode_message"]


def _header(name: str, value: str) -> bytes:
    raw_name = name.encode()
    raw = value.encode()
    return struct.pack(">B", len(raw_name)) + raw_name + b"\x07" + struct.pack(">H", len(raw)) + raw


def encode_message(headers: Mapping[str, str], payload: bytes) -> bytes:
    """One event stream message: prelude, its CRC, string headers, payload, message CRC."""
    head = b"".join(_header(k, v) for k, v in headers.items())
    total = 12 + len(head) + len(payload) + 4
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + head + payload
    return body + struct.pack(">I", zlib.crc32(body))


def encode_events(items: Iterable[Mapping[str, Any]]) -> bytes:
    """ConverseStream items (``{"messageStart": {...}}``, an exception member...) as the body."""
    out = []
    for item in items:
        ((member, body),) = item.items()
        payload = json.dumps(body).encode()
        if member.endswith("Exception"):
            headers = {":message-type": "exception", ":exception-type": member,
                       ":content-type": "application/json"}
        else:
            headers = {":event-type": member, ":content-type": "application/json",
                       ":message-type": "event"}
        out.append(encode_message(headers, payload))
    return b"".join(out)


def assemble(items: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The Converse response a stream stands for: blocks by index, with their deltas joined."""
    blocks: dict[int, dict[str, Any]] = {}
    response: dict[str, Any] = {}
    for item in items:
        ((member, body),) = item.items()
        body = {k: v for k, v in body.items() if k != "p"}
        if member == "contentBlockStart":
            start = body["start"]
            if "toolUse" in start:
                blocks[body["contentBlockIndex"]] = {"toolUse": {**start["toolUse"], "input": ""}}
        elif member == "contentBlockDelta":
            index, delta = body["contentBlockIndex"], body["delta"]
            block = blocks.setdefault(index, {})
            if "text" in delta:
                if "citationsContent" in block:
                    block["citationsContent"]["content"][0]["text"] += delta["text"]
                else:
                    block["text"] = block.get("text", "") + delta["text"]
            elif "toolUse" in delta:
                block["toolUse"]["input"] += delta["toolUse"]["input"]
            elif "reasoningContent" in delta:
                reasoning = block.setdefault("reasoningContent", {})
                part = delta["reasoningContent"]
                if "redactedContent" in part:
                    reasoning["redactedContent"] = part["redactedContent"]
                else:
                    text_block = reasoning.setdefault("reasoningText", {"text": ""})
                    text_block["text"] += part.get("text", "")
                    if "signature" in part:
                        text_block["signature"] = part["signature"]
            elif "citation" in delta:
                if "citationsContent" not in block:
                    block["citationsContent"] = {"content": [{"text": block.pop("text", "")}],
                                                 "citations": []}
                block["citationsContent"]["citations"].append(delta["citation"])
        elif member == "messageStop":
            response["stopReason"] = body["stopReason"]
            response.update({k: v for k, v in body.items() if k != "stopReason"})
        elif member == "metadata":
            response.update(body)
    content = []
    for index in sorted(blocks):
        block = blocks[index]
        if "toolUse" in block:
            text = block["toolUse"]["input"]
            block["toolUse"]["input"] = json.loads(text) if text else {}
        content.append(block)
    return {"output": {"message": {"role": "assistant", "content": content}}, **response}
