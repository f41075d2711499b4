"""Same-format request round trip against the fastest peers, on every real request of the corpus.

For each API both peers speak (Anthropic Messages, OpenAI Chat Completions), every request body
of the corpus (``../shared/corpus/<api>/``, else the repository's copy, ``tests/corpus``) goes through the round trip each library offers:

- partwire: ``from_wire_request`` then ``to_wire`` (losses recorded, logging off);
- ``martian-linguafranca`` (a Rust core with Python bindings): ``convert_request_json`` from
  the format to itself;
- ``llm-rosetta`` (pure Python): its converter's ``request_from_provider`` then
  ``request_to_provider``.

``roundtrip.<api>.vs_linguafranca`` is partwire's time over linguafranca's, timed alternately in
the same run (target <= 1.0); ``roundtrip.<api>.vs_rosetta`` likewise, for information. Each of
partwire's passes begins with its memos of values met emptied
(``partwire.caches.clear(values_only=True)``), as in ``bench_babel``: the passes repeat the same
requests, and a memo kept from the pass before would time a second meeting with each, which a
gateway reading each request once never has. What partwire worked out about its own classes is
kept, as a running gateway has it. Beside them, each library's exactness: how many of the
requests come back equal to the input, as JSON.
The peers are bench-only extras (``partwire[bench]``); a peer that is not installed is skipped.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from typing import Any

from partwire.adapters import get_adapter
from partwire.caches import clear
from tests.benchmarks._runner import Figure, Timed
from tests.harness.corpus import CORPUS as _CORPUS

__all__ = ["FIGURES"]

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


def _first_meeting(trip: Callable[[dict[str, Any]], Any],
                   bodies: list[dict[str, Any]]) -> Callable[[], object]:
    """One pass of ``trip`` over ``bodies`` with partwire's memos emptied first."""
    def run() -> object:
        clear(values_only=True)
        return [trip(body) for body in bodies]
    return run


@functools.cache
def _bodies(folder: str) -> list[dict[str, Any]]:
    bodies = _requests(folder)
    if not bodies:  # timing no requests would give a ratio of two empty loops
        raise SystemExit(f"bench_roundtrip: no requests under {_CORPUS / folder}; run from a "
                         "checkout that has shared/ beside it")
    return bodies


def _peer(name: str, peer: str) -> Callable[[dict[str, Any]], Any] | None:
    _, fmt, cls = _APIS[name]
    return _linguafranca(fmt) if peer == "linguafranca" else _rosetta(cls)


def _timed(name: str, peer: str) -> Timed:
    bodies = _bodies(_APIS[name][0])
    trip = _peer(name, peer)
    assert trip is not None
    return Timed(_first_meeting(_partwire(name), bodies), _over(_safe(trip), bodies), rounds=2,
                 detail={"requests": len(bodies)})


def _exact(name: str, library: str) -> tuple[int, dict[str, str]]:
    """How many of the requests ``library`` writes back equal to the input, as JSON."""
    bodies = _bodies(_APIS[name][0])
    trip = _partwire(name) if library == "partwire" else _peer(name, library)
    assert trip is not None
    same = 0
    for body in bodies:
        out = _safe(trip)(body)
        same += out is not None and json.dumps(out, sort_keys=True) == json.dumps(body, sort_keys=True)
    return same, {"unit": f"of {len(bodies)} equal"}


def _figures(name: str) -> list[Figure]:
    figures = [Figure(f"roundtrip.{name}.exact.partwire", "equal", read=functools.partial(_exact, name, "partwire"),
                      runs=1)]
    for peer, target in (("linguafranca", TARGET), ("rosetta", None)):
        if _peer(name, peer) is None:  # a bench-only extra that is not installed
            continue
        figures += [Figure(f"roundtrip.{name}.vs_{peer}", "x", peer, target,
                           timed=functools.partial(_timed, name, peer)),
                    Figure(f"roundtrip.{name}.exact.{peer}", "equal",
                           read=functools.partial(_exact, name, peer), runs=1)]
    return figures


# The peers log their repairs (orphaned calls) at INFO and WARNING; keep the table readable.
logging.getLogger("llm_rosetta").setLevel(logging.CRITICAL)
FIGURES = [figure for name in _APIS for figure in _figures(name)]
