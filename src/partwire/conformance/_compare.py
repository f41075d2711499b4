"""Judging one reply against its case: the comparison rules and the readable diff.

The rules (``docs/contract.md`` states them for implementers):

- a request body is compared exactly, as JSON;
- losses are compared as a set of ``(path, action)`` pairs: their order and reasons are free;
- a canonical object (a message, a history line) is compared with ``null`` and absent treated
  alike, and with the values an implementation generates itself (message ids, ``created_at``,
  canonical ``tu_`` tool-call ids) replaced by placeholders numbered in order of first
  appearance, so a tool message must still point at the call it answers;
- an expected error matches a reply with the same error kind.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from partwire.conformance._cases import Case

__all__ = ["CaseResult", "Status", "judge", "normalise"]

Status = Literal["passed", "failed", "skipped"]
"""A case's verdict; ``skipped`` when the implementation answered ``unsupported``."""

_MAX_DIFF_LINES = 60
# Keys whose values an implementation makes up itself when it decodes: nobody else can predict
# them, so only their pattern of reuse is compared. Canonical tool-call ids are generated only
# when a provider id does not already serve (they carry the ``tu_`` prefix).
_GENERATED_KEYS = frozenset({"id", "parent_id", "call_id"})
_GENERATED_ID = re.compile(r"^(tu_)?[0-9A-HJKMNP-TV-Z]{26}$")


@dataclass(frozen=True)
class CaseResult:
    """The verdict on one case."""

    case: Case
    """The case judged."""
    status: Status
    """``passed``, ``failed`` or ``skipped``."""
    diff: str = ""
    """Why it failed: a unified diff of expected and actual, or the error met; empty otherwise."""

    @property
    def passed(self) -> bool:
        """Whether the implementation gave the expected answer."""
        return self.status == "passed"

    def to_json(self) -> dict[str, Any]:
        """The result as a line of the ``--json`` report."""
        return {"id": self.case.id, "status": self.status, "operation": self.case.operation,
                "api": self.case.api, "covers": list(self.case.covers), "diff": self.diff}


def normalise(operation: str, output: Any) -> Any:
    """``output`` in the form it is compared in for ``operation`` (see the module's rules)."""
    if not isinstance(output, dict):
        return output
    if operation == "to_wire":
        losses = output.get("losses")
        if isinstance(losses, list):
            pairs = sorted({(str(loss.get("path")), str(loss.get("action")))
                            for loss in losses if isinstance(loss, dict)})
            return {"request": output.get("request"),
                    "losses": [{"path": p, "action": a} for p, a in pairs]}
        return output
    placeholders: dict[str, str] = {}
    return _canonical(output, placeholders, generated=operation in ("from_wire", "read_request"))


def _canonical(node: Any, placeholders: dict[str, str], *, generated: bool) -> Any:
    if isinstance(node, list):
        return [_canonical(item, placeholders, generated=generated) for item in node]
    if not isinstance(node, dict):
        return node
    result: dict[str, Any] = {}
    for key in sorted(node):
        value = node[key]
        if value is None:
            continue
        if generated and key == "created_at" and isinstance(value, str):
            value = "<time>"
        elif generated and key in _GENERATED_KEYS and isinstance(value, str) and _GENERATED_ID.match(value):
            value = placeholders.setdefault(value, f"<generated {len(placeholders) + 1}>")
        else:
            value = _canonical(value, placeholders, generated=generated)
        result[key] = value
    return result


def judge(case: Case, reply: dict[str, Any]) -> CaseResult:
    """The verdict on ``reply`` (a protocol reply, without its ``id``) for ``case``."""
    error = reply.get("error")
    if isinstance(error, dict) and error.get("kind") == "unsupported":
        return CaseResult(case, "skipped", str(error.get("message", "")))
    expected_error = case.expected.get("error")
    if expected_error is not None:
        if isinstance(error, dict) and error.get("kind") == expected_error:
            return CaseResult(case, "passed")
        got = f"error kind {error.get('kind')!r}" if isinstance(error, dict) else "an output"
        return CaseResult(case, "failed", f"expected error kind {expected_error!r}, got {got}"
                          + _error_text(error))
    if error is not None or "output" not in reply:
        return CaseResult(case, "failed", "expected an output, got "
                          + (f"error kind {error.get('kind')!r}" + _error_text(error)
                             if isinstance(error, dict) else f"a reply without one: {_short(reply)}"))
    want = normalise(case.operation, case.expected["output"])
    got = normalise(case.operation, reply["output"])
    if want == got:
        return CaseResult(case, "passed")
    return CaseResult(case, "failed", diff(want, got))


def diff(expected: Any, actual: Any) -> str:
    """A unified diff of two JSON values, pretty-printed with sorted keys, cut to a readable length."""
    lines = list(difflib.unified_diff(_pretty(expected), _pretty(actual), "expected", "actual",
                                      n=2, lineterm=""))
    if len(lines) > _MAX_DIFF_LINES:
        lines = [*lines[:_MAX_DIFF_LINES], f"... ({len(lines) - _MAX_DIFF_LINES} more diff lines)"]
    return "\n".join(lines)


def _pretty(value: Any) -> list[str]:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False).splitlines()


def _error_text(error: Any) -> str:
    if isinstance(error, dict) and error.get("message"):
        return f": {error['message']}"
    return ""


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 200 else text[:200] + "..."
