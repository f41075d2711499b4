"""Same-format request round trip against the fastest peers, on every real request of the corpus.

For each API both peers speak (Anthropic Messages, OpenAI Chat Completions), every request body
of the corpus (``../shared/corpus/<api>/``, else the repository's copy, ``tests/corpus``) goes through the round trip each library offers:

- partwire: ``from_wire_request`` then ``to_wire`` (losses recorded, logging off);
- ``martian-linguafranca`` (a Rust core with Python bindings): ``convert_request_json`` from
  the format to itself;
- ``llm-rosetta`` (pure Python): its converter's ``request_from_provider`` then
  ``request_to_provider``.

``roundtrip.<api>.vs_linguafranca`` is partwire's time over linguafranca's, timed alternately in
the same run (target <= 1.0); ``roundtrip.<api>.vs_rosetta`` likewise, for information. Beside
them, each library's exactness: how many of the requests come back equal to the input, as JSON.
The peers are bench-only extras (``partwire[bench]``); a peer that is not installed is skipped.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from partwire.adapters import get_adapter
from tests.benchmarks._timing import best_pair, quiet_losses
from tests.harness.corpus import CORPUS as _CORPUS

__all__ = ["run"]

_APIS = {"anthropic": ("anthropic", "ANTHROPIC_MESSAGES", "AnthropicConverter"),
         "openai_chat": ("openai-chat", "OPENAI_CHAT_COMPLETIONS", "OpenAIChatConverter")}
TARGET = 1.0


def _requests(folder: str) -> list[dict[str, Any]]:
    found = []
    for path in sorted((_CORPUS / folder).glob("*.json")):
        request = json.loads(path.read_text()).get("request")
        if isinstance(request, dict) and isinstance(request.get("messages"), list):
            found.append(request)
    return found


def _partwire(name: str) -> Callable[[dict[str, Any]], Any]:
    adapter = get_adapter(name)

    def trip(body: dict[str, Any]) -> Any:
        imported = adapter.from_wire_request(body)
        kwargs = imported.to_wire_kwargs()
        kwargs["model"] = kwargs["model"] or "model"
        return adapter.to_wire(imported.history, **kwargs).request

    return trip


def _linguafranca(fmt: str) -> Callable[[dict[str, Any]], Any] | None:
    try:
        import linguafranca as lf
    except ImportError:
        return None
    name = getattr(lf.FormatName, fmt)

    def trip(body: dict[str, Any]) -> Any:
        return lf.convert_request_json(body, source_format=name, target_format=name).value

    return trip


def _rosetta(cls: str) -> Callable[[dict[str, Any]], Any] | None:
    try:
        import llm_rosetta
    except ImportError:
        return None
    converter = getattr(llm_rosetta, cls)()

    def trip(body: dict[str, Any]) -> Any:
        out = converter.request_to_provider(converter.request_from_provider(body))
        return out[0] if isinstance(out, tuple) else out

    return trip


def _safe(trip: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], Any]:
    def call(body: dict[str, Any]) -> Any:
        try:
            return trip(body)
        except Exception:  # a peer that refuses a real request: counted as inexact
            return None
    return call


def _over(trip: Callable[[dict[str, Any]], Any],
          bodies: list[dict[str, Any]]) -> Callable[[], object]:
    return lambda: [trip(body) for body in bodies]


def _exact(trip: Callable[[dict[str, Any]], Any], bodies: list[dict[str, Any]]) -> int:
    same = 0
    for body in bodies:
        out = _safe(trip)(body)
        same += out is not None and json.dumps(out, sort_keys=True) == json.dumps(body, sort_keys=True)
    return same


def run() -> dict[str, dict[str, Any]]:
    """Every round-trip benchmark: ``{name: {"value", "unit", "target"?}}``."""
    results: dict[str, dict[str, Any]] = {}
    # The peers log their repairs (orphaned calls) at INFO and WARNING; keep the table readable.
    logging.getLogger("llm_rosetta").setLevel(logging.CRITICAL)
    with quiet_losses():
        for name, (folder, fmt, cls) in _APIS.items():
            bodies = _requests(folder)
            if not bodies:  # timing no requests would give a ratio of two empty loops
                raise SystemExit(f"bench_roundtrip: no requests under {_CORPUS / folder}; run from a "
                                 "checkout that has shared/ beside it")
            ours = _partwire(name)
            results[f"roundtrip.{name}.exact.partwire"] = {
                "value": _exact(ours, bodies), "unit": f"of {len(bodies)} equal"}
            for peer_name, peer in (("linguafranca", _linguafranca(fmt)), ("rosetta", _rosetta(cls))):
                if peer is None:
                    continue
                t_ours, t_peer = best_pair(_over(ours, bodies), _over(_safe(peer), bodies),
                                           rounds=5)
                row: dict[str, Any] = {"value": round(t_ours / t_peer, 3), "unit": "x",
                                       "ours_ms": round(t_ours * 1e3, 2),
                                       "peer_ms": round(t_peer * 1e3, 2)}
                if peer_name == "linguafranca":
                    row["target"] = TARGET
                results[f"roundtrip.{name}.vs_{peer_name}"] = row
                results[f"roundtrip.{name}.exact.{peer_name}"] = {
                    "value": _exact(peer, bodies), "unit": f"of {len(bodies)} equal"}
    return results


if __name__ == "__main__":
    for key, value in run().items():
        print(key, value)
