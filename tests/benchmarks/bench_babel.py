"""Request round trip and cross-API translation against llm-babel, on every real request.

``llm-babel`` (import name ``llm_transform``; pure Python, the same job through one IR hub, eight
formats) is a bench-only peer (``partwire[bench]``); without it this module reports nothing.
Times are this process's CPU time (both libraries are pure computation): the bench machine is
shared, and wall time counted the other processes' turns on the CPU.

- ``roundtrip.<api>.vs_babel``: partwire's ``from_wire_request`` then ``to_wire`` over every
  request body of the corpus for that API, against babel's ``translate(fmt, fmt, body)``; the
  two timed alternately in the same run (target <= 1.0). Each of partwire's passes begins with
  its memos of values met emptied (``partwire.caches.clear``): the passes repeat the same
  requests, and a memo kept from the pass before would time a second meeting with each. Beside it each library's exactness: how
  many requests come back equal to the input, as JSON.
- ``translate.<src>.<dst>.vs_babel``: the same requests converted to another API (partwire's
  ``from_wire_request`` of one adapter, ``to_wire`` of the other with the request's tools,
  settings and token limit; babel's ``translate``, which converts those too), for every ordered
  pair of the four APIs (target <= 1.0). Requests either library refuses count as refused for
  it; the timing is over the requests both convert. Beside it, without a target,
  ``.history_only``: partwire converting the history alone (what this figure measured until
  2026-11-27, against babel's whole request).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any

from partwire.adapters import get_adapter
from partwire.adapters.requests import ImportedRequest
from partwire.caches import clear
from tests.benchmarks._timing import best_pair, quiet_losses
from tests.harness.corpus import CORPUS

__all__ = ["run"]

# adapter name -> (corpus folder, babel format, key of the conversation in a request body)
APIS = {"anthropic": ("anthropic", "anthropic-messages", "messages"),
        "openai_chat": ("openai-chat", "openai-chat", "messages"),
        "openai_responses": ("openai-responses", "openai-responses", "input"),
        "google": ("google", "gemini", "contents")}
TARGET = 1.0

Trip = Callable[[dict[str, Any]], Any]


def requests(api: str) -> list[dict[str, Any]]:
    """Every request body of the corpus for ``api`` that holds a conversation."""
    folder, _, key = APIS[api]
    found = []
    for path in sorted((CORPUS / folder).glob("*.json")):
        request = json.loads(path.read_text()).get("request")
        if isinstance(request, dict) and isinstance(request.get(key), list | str):
            found.append(request)
    return found


def _partwire(source: str, target: str, *, whole: bool = True) -> Trip:
    read, write = get_adapter(source), get_adapter(target)

    def trip(body: dict[str, Any]) -> Any:
        imported = read.from_wire_request(body)
        kwargs = imported.to_wire_kwargs() if source == target else _crossing(imported) if whole else {}
        kwargs["model"] = kwargs.get("model") or body.get("model") or "model"
        return write.to_wire(imported.history, **kwargs).request

    return trip


def _crossing(imported: ImportedRequest) -> dict[str, Any]:
    """What crosses to another API, as babel's ``translate`` converts it: the tools, the settings
    (tool choice included) and the token limit (the source API's own fields and options stay)."""
    kwargs: dict[str, Any] = {"tools": imported.tools, "settings": imported.settings}
    if isinstance(imported.tool_choice, str) and imported.settings.tool_choice is None:
        kwargs["tool_choice"] = imported.tool_choice
    if imported.max_tokens is not None and imported.settings.max_output_tokens is None:
        kwargs["max_tokens"] = imported.max_tokens
    return kwargs


def _babel(source: str, target: str) -> Trip | None:
    try:
        from llm_transform import registry
        from llm_transform.dsl.rt import materialize
    except ImportError:
        return None
    src, dst = APIS[source][1], APIS[target][1]

    def trip(body: dict[str, Any]) -> Any:
        return registry.translate(src, dst, body)

    trip.materialize = materialize  # type: ignore[attr-defined]
    return trip


def _works(trip: Trip, body: dict[str, Any]) -> Any:
    try:
        return trip(body)
    except Exception:  # a library that refuses a real request: counted, never timed
        return None


def _same(out: Any, body: dict[str, Any], materialize: Callable[[Any], Any] | None) -> bool:
    if out is None:
        return False
    if materialize is not None:
        out = materialize(out)
    return json.dumps(out, sort_keys=True, default=str) == json.dumps(body, sort_keys=True)


def _first_meeting(trip: Trip, bodies: list[dict[str, Any]]) -> None:
    """One pass of ``trip`` over ``bodies``, with partwire's memos of values met emptied first."""
    clear()
    for body in bodies:
        trip(body)


def run() -> dict[str, dict[str, Any]]:
    """Every babel comparison: ``{name: {"value", "unit", "target"?}}``."""
    results: dict[str, dict[str, Any]] = {}
    if _babel("anthropic", "anthropic") is None:
        return results
    corpus = {api: requests(api) for api in APIS}
    with quiet_losses():
        for source, bodies in corpus.items():
            for target in APIS:
                ours, peer = _partwire(source, target), _babel(source, target)
                assert peer is not None
                outs = [(_works(ours, b), _works(peer, b)) for b in bodies]
                both = [b for b, (o, p) in zip(bodies, outs, strict=True) if o is not None and p is not None]
                if not both:
                    continue
                # Each pass starts with partwire's memos empty: a pass meets every request once,
                # as a gateway does (the requests of one recorded conversation still share them).
                t_ours, t_peer = best_pair(functools.partial(_first_meeting, ours, both),
                                           lambda: [peer(b) for b in both],  # noqa: B023
                                           rounds=11, cpu=True)
                name = f"roundtrip.{source}" if source == target else f"translate.{source}.{target}"
                results[f"{name}.vs_babel"] = {
                    "value": round(t_ours / t_peer, 3), "unit": f"x ({len(both)} requests)",
                    "target": TARGET, "ours_ms": round(t_ours * 1e3, 2), "peer_ms": round(t_peer * 1e3, 2)}
                if source == target:
                    materialize = getattr(peer, "materialize", None)
                    results[f"{name}.vs_babel.exact.partwire"] = {
                        "value": sum(_same(o, b, None) for b, (o, _) in zip(bodies, outs, strict=True)),
                        "unit": f"of {len(bodies)} equal"}
                    results[f"{name}.vs_babel.exact.babel"] = {
                        "value": sum(_same(p, b, materialize) for b, (_, p) in zip(bodies, outs, strict=True)),
                        "unit": f"of {len(bodies)} equal"}
                else:
                    # The history alone, without the tools and settings babel converts too: what
                    # the figure measured before 2026-11-27 (no target; for comparison only).
                    alone = _partwire(source, target, whole=False)
                    t_alone, t_peer = best_pair(functools.partial(_first_meeting, alone, both),
                                                lambda: [peer(b) for b in both],  # noqa: B023
                                                rounds=11, cpu=True)
                    results[f"{name}.vs_babel.history_only"] = {
                        "value": round(t_alone / t_peer, 3), "unit": "x (no tools or settings)"}
                    refused = sum(o is None for o, _ in outs), sum(p is None for _, p in outs)
                    results[f"{name}.refused"] = {"value": f"{refused[0]}/{refused[1]}",
                                                  "unit": f"partwire/babel of {len(bodies)}"}
    return results
