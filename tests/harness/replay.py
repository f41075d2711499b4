"""vcrpy set up for replay only: requests match on their parsed JSON body, and secrets never land.

Cassettes are replayed with ``record_mode="none"``: a request that no interaction matches fails
the test, so any drift in what an adapter sends (a key, a value, an order of blocks) is caught by
the real SDK client's own request. Bodies are compared as parsed JSON, so whitespace and key order
(which the SDKs do not promise) do not matter, and the failure message says where they differ.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import vcr
from vcr.cassette import Cassette
from vcr.errors import CannotOverwriteExistingCassetteException
from vcr.request import Request

__all__ = [
    "MATCH_ON",
    "SECRET_HEADERS",
    "SECRET_QUERY_PARAMETERS",
    "before_record_request",
    "json_body_matcher",
    "json_difference",
    "scrub_request",
    "use_cassette",
]

SECRET_HEADERS: tuple[str, ...] = (
    "authorization",
    "x-api-key",
    "x-goog-api-key",
    "api-key",
    "anthropic-api-key",
    "openai-api-key",
    "proxy-authorization",
    "cookie",
    "set-cookie",
)
"""Headers that may carry a credential (Anthropic, OpenAI, Azure, Gemini); never recorded."""

SECRET_QUERY_PARAMETERS: tuple[str, ...] = ("key", "api_key", "api-key", "access_token")
"""Query parameters that may carry a credential (Gemini's ``?key=``); never recorded."""

RECORDING: bool = os.environ.get("PARTWIRE_RECORD") == "1"
"""Set by ``nox -s record`` only: talk to the live API and overwrite cassettes (needs real keys)."""

MATCH_ON: tuple[str, ...] = ("method", "scheme", "host", "port", "path", "query", "json_body")
"""What a replayed request must share with the recorded one."""


def scrub_request(request: Request) -> Request:
    """The request without credential headers or query parameters (applied before any record)."""
    for name in list(request.headers):
        if name.lower() in SECRET_HEADERS:
            del request.headers[name]
    parts = urlsplit(request.uri)
    if parts.query:
        kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                if k.lower() not in SECRET_QUERY_PARAMETERS]
        request.uri = urlunsplit(parts._replace(query=urlencode(kept)))
    return request


def _parsed_body(request: Request) -> Any:
    body = request.body
    if body is None or body == b"":
        return None
    if isinstance(body, bytes):
        body = body.decode("utf-8")
    try:
        return json.loads(body)
    except (TypeError, json.JSONDecodeError):
        return body


def json_difference(
    expected: Any, actual: Any, path: str = "$", *, names: tuple[str, str] = ("cassette", "request")
) -> str | None:
    """Where two JSON values first differ (a JSONPath and both values), or ``None`` if equal.

    ``names`` say what the two sides are in the message (the cassette and the request, by default).
    """
    ours, theirs = names
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(expected.keys() | actual.keys()):
            if key not in actual:
                return f"{path}.{key}: missing from the {theirs} ({ours} has {_short(expected[key])})"
            if key not in expected:
                return f"{path}.{key}: not in the {ours} ({theirs} has {_short(actual[key])})"
            found = json_difference(expected[key], actual[key], f"{path}.{key}", names=names)
            if found:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for index, (e, a) in enumerate(zip(expected, actual, strict=False)):
            found = json_difference(e, a, f"{path}[{index}]", names=names)
            if found:
                return found
        if len(expected) != len(actual):
            return f"{path}: {ours} has {len(expected)} items, {theirs} has {len(actual)}"
        return None
    if expected != actual or type(expected) is not type(actual):
        return f"{path}: {ours} has {_short(expected)}, {theirs} has {_short(actual)}"
    return None


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


def json_body_matcher(live: Request, recorded: Request) -> None:
    """vcrpy matcher: the two bodies are equal as parsed JSON; raises with the first difference.

    vcrpy passes the request being made first and the recorded one second.
    """
    difference = json_difference(_parsed_body(recorded), _parsed_body(live))
    if difference is not None:
        raise AssertionError(f"request body differs from the cassette: {difference}")


_VCR = vcr.VCR(
    record_mode="none",
    match_on=MATCH_ON,
    filter_headers=SECRET_HEADERS,
    filter_query_parameters=SECRET_QUERY_PARAMETERS,
    before_record_request=scrub_request,
    decode_compressed_response=True,
)
_VCR.register_matcher("json_body", json_body_matcher)


def _normalizing_vcr(sdk_defaults: Callable[[Any], Any]) -> vcr.VCR:
    """The replay setup, its body matcher first taking ``sdk_defaults`` out of the live body."""
    def matcher(live: Request, recorded: Request) -> None:
        difference = json_difference(_parsed_body(recorded), sdk_defaults(_parsed_body(live)))
        if difference is not None:
            raise AssertionError(f"request body differs from the cassette: {difference}")

    replay = vcr.VCR(record_mode="none", match_on=MATCH_ON, filter_headers=SECRET_HEADERS,
                     filter_query_parameters=SECRET_QUERY_PARAMETERS,
                     before_record_request=scrub_request, decode_compressed_response=True)
    replay.register_matcher("json_body", matcher)
    return replay


def before_record_request() -> Any:
    """The request filter vcrpy applies before recording (and before matching) with this setup."""
    return _VCR.get_merged_config()["before_record_request"]


@contextmanager
def use_cassette(path: Path, *, sdk_defaults: Callable[[Any], Any] | None = None) -> Iterator[Cassette]:
    """Replay ``path`` (never record); fails when the cassette is missing or a request is unmatched.

    ``sdk_defaults`` takes out of the body an SDK sends what it writes in by itself (default
    values of its request model the body never held), so the rest is matched as strictly.

    The SDKs wrap transport failures in their own connection errors, which would bury vcrpy's
    explanation of an unmatched request; it is brought back to the surface as the test failure.
    """
    if RECORDING:
        # Live re-recording: every interaction is sent for real and written through the same
        # secret filters; replays match on the body, so review the new cassette before committing.
        with _VCR.use_cassette(str(path), record_mode="all") as cassette:
            yield cassette
        return
    if not path.is_file():
        raise FileNotFoundError(f"no cassette at {path}; write it with tests/harness/make_cassettes.py")
    # One cassette serves the sync, async and helper-based calls of a scenario.
    recorder = _VCR if sdk_defaults is None else _normalizing_vcr(sdk_defaults)
    with recorder.use_cassette(str(path), allow_playback_repeats=True) as cassette:
        try:
            yield cassette
        except Exception as exc:
            unmatched = _unmatched_request(exc)
            if unmatched is None:
                raise
            raise AssertionError(f"the SDK sent a request the cassette does not hold: {unmatched}") from exc


def _unmatched_request(exc: BaseException) -> CannotOverwriteExistingCassetteException | None:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, CannotOverwriteExistingCassetteException):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None
