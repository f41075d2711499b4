"""The projection data of a page decoded in Python, as the page's script decodes it."""

from __future__ import annotations

from typing import Any


def unpool(value: Any, strings: list[str]) -> Any:
    """``value`` with every pooled string (NUL and its index) put back."""
    if isinstance(value, str):
        return strings[int(value[1:])] if value.startswith("\0") else value
    if isinstance(value, dict):
        return {k: unpool(v, strings) for k, v in value.items()}
    if isinstance(value, list):
        return [unpool(v, strings) for v in value]
    return value


def decode(records: list[dict[str, Any]], strings: list[str]) -> list[tuple[dict[str, Any] | None, list[Any]]]:
    """Each turn's ``(body, losses)``, applying every record to the one before (``None`` for a
    turn that could not be projected)."""
    out: list[tuple[dict[str, Any] | None, list[Any]]] = []
    body: dict[str, Any] = {}
    losses: list[Any] = []
    for record in records:
        if "error" in record:
            body, losses = {}, []
            out.append((None, []))
            continue
        body = dict(body)
        for key in record.get("drop", []):
            del body[key]
        body.update(record["set"])
        for key, change in record.get("lists", {}).items():
            body[key] = body.get(key, [])[: change["keep"]] + change["tail"]
        losses = losses[: record["losses"]["keep"]] + record["losses"]["tail"]
        out.append((unpool(body, strings), losses))
    return out
