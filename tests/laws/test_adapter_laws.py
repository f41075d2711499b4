"""partwire's own adapters judged by its pytest plugin: one :class:`partwire.testing.AdapterLaws`
suite per adapter and configuration (Chat's dialects, Responses' continuations), the same suite
a stranger's adapter runs.

Each suite gets what partwire has and a stranger may not: the kit's hypothesis strategies of the
API's responses, streams and request shapes, the corpus's recorded requests and streams, and
the SDKs' own request types as the validator. The laws between adapters (switch,
cross-provider, formats told apart, settings) stay in the other modules of ``tests/laws``.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from partwire.adapters import get_adapter
from partwire.conformance import API_NAMES
from partwire.messages import AssistantMessage
from partwire.testing import AdapterLaws
from tests.harness.corpus import CORPUS
from tests.harness.depth import examples
from tests.harness.laws import WireLaws
from tests.harness.providers import get_kit
from tests.harness.validity import request_errors
from tests.laws.test_corpus_laws import ADAPTERS, _requests, _wire_list
from tests.strategies import histories

# The suites draw hypothesis examples inside their tests: marked, so `nox -s deep` (`-m
# hypothesis`) runs them with its larger scale and fresh seeds.
pytestmark = pytest.mark.hypothesis


def _recorded_streams(name: str) -> list[tuple[str, Any, Any]]:
    """Every recorded stream's raw body: its SSE text, or (where the corpus keeps the decoded
    frames of a binary stream) those frames as the API's bytes (the kit's ``sse``)."""
    folder = CORPUS / name.replace("_", "-")
    encode = get_kit(name).laws().sse
    found: list[tuple[str, Any, Any]] = []
    for path in sorted(folder.glob("*.json")):
        record = json.loads(path.read_text())
        if isinstance(record.get("sse"), str) and record["sse"]:
            found.append((path.name, record["sse"].encode(), None))
        elif record.get("chunks") and encode is not None:
            found.append((path.name, encode(record["chunks"]), None))
    assert found, f"no recorded streams at {folder}"
    return found


@cache
def _corpus_requests(name: str) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """The adapter's recorded requests with the options each is read under (read once)."""
    return list(_requests(name))


def _suite(name: str, variant: str, first: bool) -> type[AdapterLaws]:
    """The plugin's suite for one adapter under one of its configurations (``first``: the one
    that also runs the adapter's recorded streams and generated request shapes)."""
    kit = get_kit(name)
    laws: WireLaws = kit.laws()
    options = laws.options(variant)
    own = laws.validator(variant)

    def validator(body: dict[str, Any]) -> list[str]:
        if not _wire_list(body):
            return []  # nothing to send: no API's request type is asked about it
        return request_errors(own or name, body if own else laws.strip(body, variant))

    # The adapter's own corpus folder goes to its first configuration; a dialect's folder
    # (Chat's mistral/) to that dialect.
    requests = [(f, r) for f, r, o in _corpus_requests(name) if o == options or (first and not o)]

    class Suite(AdapterLaws):
        adapter = get_adapter(name)
        model = laws.model
        request_model = "model"  # a recorded body without its model is written with this one
        projection_options = laws.projection_options
        # Generated histories hold raw blocks "elsewhere" issued: they are echoed, and must validate.
        accept_issuers = frozenset({"elsewhere"})
        max_examples = examples(60, "PARTWIRE_LAW_EXAMPLES")
        history_strategy = histories(max_turns=4)
        request_strategy = laws.requests if first else None
        stream_strategy = laws.streams(variant)
        message_strategy = laws.messages(variant)

        def response_for(self, message: AssistantMessage) -> dict[str, Any]:
            return laws.response_for(message, variant)

        def canonical_request(self, request: dict[str, Any]) -> dict[str, Any]:
            body: dict[str, Any] = kit.canonical_request(request)
            return body

        def sse(self, events: list[Any]) -> bytes | None:
            return laws.sse(events) if laws.sse is not None else None

        def sdk_final(self, events: list[Any]) -> Any:
            if laws.sdk_final is None or variant not in laws.sdk_variants:
                return None
            return laws.sdk_final(events)

    Suite.options = options
    Suite.validator = staticmethod(validator)
    Suite.requests = requests
    Suite.streams = _recorded_streams(name) if first else ()
    if not first or name not in API_NAMES:
        # The corpus's cases call the adapter with its default options: once per adapter, and
        # only for the APIs the conformance corpus covers.
        Suite.test_conformance_cases = None  # type: ignore[assignment]
    if not requests and Suite.request_strategy is None:
        Suite.test_requests_round_trip = None  # type: ignore[assignment]  # no bodies: not collected
    Suite.__name__ = Suite.__qualname__ = f"Test{name.title().replace('_', '')}{variant.title()}Laws"
    Suite.__doc__ = f"The adapter laws on {name}" + (f" ({variant})" if variant else "") + "."
    return Suite


for _name in ADAPTERS:
    for _k, _variant in enumerate(get_kit(_name).laws().variants):
        _class = _suite(_name, _variant, _k == 0)
        globals()[_class.__name__] = _class
