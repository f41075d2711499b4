"""Cassettes written from a request body and a hand-written response, in vcrpy's own format.

A cassette here is not recorded: its request body is the golden request of the scenario (what
``to_wire`` must produce) and its response is a body or an SSE stream written by hand from the
provider's wire reference. The request still goes through the same filter vcrpy applies when it
records, so a cassette can never hold a credential. Multi-line bodies are written as YAML block
scalars, so a cassette reads like the HTTP exchange it stands for.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

# types-PyYAML is not among the dev dependencies; the ignore stays harmless if it is added.
import yaml  # type: ignore[import-untyped, unused-ignore]
from vcr.request import Request

from tests.harness.replay import before_record_request

__all__ = ["Exchange", "render_cassette"]


@dataclass(frozen=True)
class Exchange:
    """One HTTP request and the response the provider gives to it."""

    uri: str
    """The full request URL (no credential in it)."""
    request_body: Mapping[str, Any]
    """The JSON request body."""
    status: int
    """HTTP status of the response."""
    response_body: str | bytes
    """The response body exactly as the provider sends it (JSON text, SSE text, or the bytes of
    a binary stream such as AWS event stream)."""
    response_headers: Mapping[str, str]
    """Response headers (``content-type``, request id, ...)."""
    request_headers: Mapping[str, str] = field(default_factory=dict)
    """Request headers worth keeping for a reader (credentials are dropped regardless)."""
    method: str = "POST"
    """HTTP method."""


class _BlockDumper(yaml.SafeDumper):  # type: ignore[misc, unused-ignore]
    """Writes multi-line strings as literal blocks, so bodies stay readable in review."""


def _str(dumper: Any, value: str) -> Any:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _str)


def _request_dict(exchange: Exchange) -> dict[str, Any]:
    body = json.dumps(exchange.request_body, indent=2, ensure_ascii=False)
    request = before_record_request()(
        Request(exchange.method, exchange.uri, body, dict(exchange.request_headers))
    )
    assert request is not None, "the record filter dropped the whole request"
    recorded: dict[str, Any] = request._to_dict()
    recorded["body"] = body
    return recorded


def _response_dict(exchange: Exchange) -> dict[str, Any]:
    return {
        "status": {"code": exchange.status, "message": HTTPStatus(exchange.status).phrase
                   if exchange.status in HTTPStatus._value2member_map_ else ""},
        "headers": {name: [value] for name, value in exchange.response_headers.items()},
        "body": {"string": exchange.response_body},
    }


def render_cassette(exchanges: Sequence[Exchange]) -> str:
    """The YAML text of a vcrpy cassette holding ``exchanges`` in order."""
    cassette = {
        "interactions": [
            {"request": _request_dict(e), "response": _response_dict(e)} for e in exchanges
        ],
        "version": 1,
    }
    text: str = yaml.dump(
        cassette, Dumper=_BlockDumper, allow_unicode=True, sort_keys=False, width=100
    )
    return text
