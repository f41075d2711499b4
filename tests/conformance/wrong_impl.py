"""A deliberately wrong implementation of the conformance protocol, for the runner's tests.

It answers like partwire, then breaks two things a careless implementation breaks: it drops
every reasoning signature (``signature``, ``thoughtSignature``, ``encrypted_content``) and it
renumbers tool-call ids (``call_1``, ``call_2``, ... in order of appearance).
Run: ``python -m tests.conformance.wrong_impl``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from partwire.conformance import perform

SIGNATURES = frozenset({"signature", "thoughtSignature", "encrypted_content"})
ID_KEYS = frozenset({"tool_use_id", "toolUseId", "call_id", "tool_call_id"})
CALLS = frozenset({"tool_use", "tool_call", "function_call", "function_call_output",
                   "server_tool_use", "toolUse", "functionCall", "functionResponse"})


def spoil(node: Any, ids: dict[str, str], holder: str | None = None) -> Any:
    """``node`` without signatures and with tool-call ids renumbered."""
    if isinstance(node, list):
        return [spoil(item, ids, holder) for item in node]
    if not isinstance(node, dict):
        return node
    kind = node.get("type")
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in SIGNATURES and value:
            continue
        is_id = key in ID_KEYS or (key == "id" and (kind in CALLS or holder in CALLS))
        if is_id and isinstance(value, str) and value:
            out[key] = ids.setdefault(value, f"call_{len(ids) + 1}")
        elif key == "provider_ids" and isinstance(value, dict):
            out[key] = {k: ids.setdefault(v, f"call_{len(ids) + 1}") for k, v in value.items()}
        else:
            out[key] = spoil(value, ids, key)
    return out


def main() -> None:
    """Answer each request on stdin, wrongly."""
    for line in sys.stdin:
        request = json.loads(line)
        reply = perform(request)
        if "output" in reply:
            reply["output"] = spoil(reply["output"], {})
        print(json.dumps({"id": request["id"], **reply}), flush=True)


if __name__ == "__main__":
    main()
