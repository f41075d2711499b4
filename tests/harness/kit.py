"""What one provider brings to the shared harness, and the steps built on it.

The scenarios are provider-neutral; a :class:`ProviderKit` holds the provider-specific pieces:
where its adapter, golden files, cassettes and hand-written responses live, which endpoint the
SDK posts to, how a scenario's neutral settings become ``to_wire`` options, and the SDK clients.
A new adapter adds a module under ``tests/harness/providers/`` that builds one kit, plus its
responses under ``tests/harness/responses/<name>/``; nothing else in the harness changes.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from partwire.ids import deterministic_sources, use_sources
from tests.harness.cassettes import Exchange, render_cassette
from tests.harness.laws import WireLaws, json_default
from tests.harness.validity import assert_valid_request
from tests.scenarios import Origin, Scenario, build_scenarios

__all__ = ["CASSETTES", "GOLDEN", "RESPONSES", "ProviderKit"]

_ROOT = Path(__file__).resolve().parents[2]
CASSETTES = _ROOT / "cassettes"
"""Root of the cassette tree: ``cassettes/<provider>/<scenario>.yaml``."""
GOLDEN = _ROOT / "tests" / "golden"
"""Root of the golden files: ``tests/golden/<adapter>/<scenario>.<kind>.json``."""
RESPONSES = Path(__file__).resolve().parent / "responses"
"""Hand-written response bodies: ``responses/<provider>/<scenario>.json`` and ``.sse``."""


@dataclass(frozen=True)
class ProviderKit:
    """The provider-specific half of the cassette and golden tests of one adapter."""

    name: str
    """Adapter module name under ``partwire.adapters``; also the folder name of its files."""
    origin: Origin
    """Echo state of earlier turns, shaped like this provider's."""
    model: str
    """The ``model`` passed to ``to_wire``."""
    endpoint: str
    """URL the SDK posts a non-streaming request to."""
    options: Callable[[Scenario], dict[str, Any]]
    """``to_wire`` keyword options for a scenario (output budget, reasoning settings)."""
    sync_client: Callable[[], Any]
    """A new synchronous SDK client with a fake key and no retries."""
    async_client: Callable[[], Any]
    """A new asynchronous SDK client with a fake key and no retries."""
    stream_request: Callable[[Mapping[str, Any]], dict[str, Any]]
    """The body the SDK sends when the same request is streamed."""
    response_headers: Callable[[Scenario, bool], dict[str, str]]
    """Headers of the hand-written response to a scenario (streamed or not)."""
    stream_endpoint: str | None = None
    """URL of a streaming request, when it differs from ``endpoint`` (Gemini)."""
    request_headers: Mapping[str, str] = field(default_factory=dict)
    """Non-secret request headers kept in cassettes for the reader."""
    error_status: Mapping[str, int] = field(default_factory=dict)
    """HTTP status of the non-streamed response for scenarios whose call fails."""
    canonical_request: Callable[[Any], Any] = field(default=lambda body: body)
    """A stored request as the adapter writes it back (Gemini: every key in camelCase); the
    import law compares the re-export with this."""
    http_body: Callable[[Mapping[str, Any]], dict[str, Any]] = field(default=lambda body: dict(body))
    """The HTTP body the SDK sends for a request (Bedrock: without ``modelId``, which is in the
    URL, and binary fields as base64 text)."""
    stream_file: str = "sse"
    """The suffix of a scenario's hand-written stream (``sse``; Bedrock: ``events.json``)."""
    stream_body: Callable[[str], str | bytes] = field(default=lambda text: text)
    """The streamed response body as the provider sends it, from the stream file's text
    (Bedrock: its events as AWS event stream bytes)."""

    # -- derived locations ------------------------------------------------------------------

    def golden_path(self, scenario: Scenario, kind: str) -> Path:
        """The golden file of ``kind`` (``request``, ``message``, ``partial``) for a scenario."""
        return GOLDEN / self.name / f"{scenario.name}.{kind}.json"

    def cassette_path(self, scenario: Scenario) -> Path:
        """The cassette replaying a scenario."""
        return CASSETTES / self.name / f"{scenario.name}.yaml"

    def response_text(self, scenario: Scenario, *, stream: bool) -> str:
        """The hand-written response body of a scenario: JSON text, or SSE text when streamed."""
        path = RESPONSES / self.name / f"{scenario.name}.{self.stream_file if stream else 'json'}"
        return path.read_text(encoding="utf-8")

    def response_json(self, scenario: Scenario) -> Any:
        """The hand-written non-streamed response body, parsed."""
        return json.loads(self.response_text(scenario, stream=False))

    # -- the adapter ------------------------------------------------------------------------

    def scenarios(self) -> tuple[Scenario, ...]:
        """Every canonical scenario, with this provider's echo state in earlier turns."""
        return build_scenarios(self.origin)

    def answered(self) -> list[Scenario]:
        """The scenarios the provider answers (a reply)."""
        return [s for s in self.scenarios() if s.reply is not None]

    def interrupted(self) -> list[Scenario]:
        """The scenarios whose stream the caller stops after some text."""
        return [s for s in self.scenarios() if s.abort_after_text is not None]

    def failing(self) -> list[Scenario]:
        """The scenarios whose stream fails part-way."""
        return [s for s in self.scenarios() if s.stream_failure is not None]

    def non_streamed(self, scenario: Scenario) -> Any:
        """from_wire of the scenario's hand-written response body: what every path must agree with."""
        return self.decode(self.response_json(scenario))

    def laws(self) -> WireLaws:
        """The wire-law half of the kit: ``tests/harness/wire/<name>.py``'s ``LAWS``."""
        laws: WireLaws = importlib.import_module(f"tests.harness.wire.{self.name}").LAWS
        return laws

    def adapter(self) -> ModuleType:
        """The adapter module under test."""
        return importlib.import_module(f"partwire.adapters.{self.name}")

    def project(self, scenario: Scenario) -> Any:
        """``to_wire`` of the scenario (a Projection), its request checked against the SDK types."""
        projection = self.adapter().to_wire(
            scenario.history, model=self.model, tools=scenario.tools, **self.options(scenario)
        )
        assert_valid_request(self.name, projection.request)
        assert_valid_request(self.name, self.stream_request(projection.request), stream=True)
        return projection

    def request(self, scenario: Scenario) -> dict[str, Any]:
        """The JSON request body ``to_wire`` makes for the scenario (JSON round-tripped)."""
        body: dict[str, Any] = json.loads(json.dumps(self.project(scenario).request,
                                                     default=json_default))
        return body

    def decode(self, response: Any) -> Any:
        """``from_wire`` of a response under fresh deterministic sources (stable ids and times)."""
        ids, clock = deterministic_sources()
        with use_sources(ids=ids, clock=clock):
            return self.adapter().from_wire(response)

    # -- cassettes --------------------------------------------------------------------------

    def exchanges(self, scenario: Scenario, request: Mapping[str, Any]) -> list[Exchange]:
        """The non-streamed and the streamed exchange of a scenario, for the given request body."""
        return [
            Exchange(
                uri=self.endpoint,
                request_body=self.http_body(request),
                request_headers=self.request_headers,
                status=self.error_status.get(scenario.name, 200),
                response_headers=self.response_headers(scenario, False),
                response_body=self.response_text(scenario, stream=False),
            ),
            Exchange(
                uri=self.stream_endpoint or self.endpoint,
                request_body=self.http_body(self.stream_request(request)),
                request_headers=self.request_headers,
                status=200,
                response_headers=self.response_headers(scenario, True),
                response_body=self.stream_body(self.response_text(scenario, stream=True)),
            ),
        ]

    def cassette_text(self, scenario: Scenario, request: Mapping[str, Any]) -> str:
        """The cassette of a scenario whose request body is ``request``."""
        return render_cassette(self.exchanges(scenario, request))
