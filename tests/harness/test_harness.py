"""The harness itself: secrets are filtered, bodies match as JSON, goldens and scenarios behave."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from vcr.request import Request
from vcr.serializers import yamlserializer

from partwire import (
    AssistantMessage,
    Opaque,
    RefusalPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
)
from partwire.history import EVENT_ADAPTER
from tests.harness.cassettes import Exchange, render_cassette
from tests.harness.compare import comparable, neutral
from tests.harness.debian import apt_ensure
from tests.harness.golden import Golden
from tests.harness.kit import CASSETTES
from tests.harness.providers import KIT_NAMES, get_kit
from tests.harness.replay import before_record_request, json_body_matcher
from tests.scenarios import SCENARIO_NAMES, build_scenarios

SECRET = "sk-live-0123456789abcdef"


def _request(uri: str, body: object, headers: dict[str, str] | None = None) -> Request:
    return Request("POST", uri, json.dumps(body), headers or {})


def test_record_filter_drops_every_credential() -> None:
    """Credential headers and key query parameters never survive the record filter; the rest does."""
    request = _request(
        f"https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse&key={SECRET}",
        {"a": 1},
        {
            "Authorization": f"Bearer {SECRET}",
            "x-api-key": SECRET,
            "x-goog-api-key": SECRET,
            "api-key": SECRET,
            "anthropic-version": "2026-10-21",
        },
    )
    scrubbed = before_record_request()(request)
    assert {k.lower() for k in scrubbed.headers} == {"anthropic-version"}
    assert SECRET not in scrubbed.uri
    assert "alt=sse" in scrubbed.uri


def test_rendered_cassette_holds_no_credential() -> None:
    """A cassette written from a request with credential headers does not contain them."""
    text = render_cassette([Exchange(
        uri=f"https://api.example.com/v1/x?key={SECRET}",
        request_body={"q": 1},
        request_headers={"authorization": f"Bearer {SECRET}", "content-type": "application/json"},
        status=200,
        response_body="{}",
        response_headers={"content-type": "application/json"},
    )])
    assert SECRET not in text
    assert "authorization" not in text.lower()


def test_rendered_cassette_loads_back_byte_exact() -> None:
    """vcrpy's own loader reads a rendered cassette back with bodies exactly as written."""
    sse = 'event: ping\ndata: {"type": "ping"}   \n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n'
    body = {"text": "°C × ünïcode", "n": [1, 2]}
    text = render_cassette([
        Exchange(uri="https://api.example.com/v1/x", request_body=body, status=529,
                 response_body='{"type": "error"}\n', response_headers={"content-type": "application/json"}),
        Exchange(uri="https://api.example.com/v1/x", request_body={**body, "stream": True}, status=200,
                 response_body=sse, response_headers={"content-type": "text/event-stream"}),
    ])
    loaded = yamlserializer.deserialize(text)
    first, second = loaded["interactions"]
    assert json.loads(first["request"]["body"]) == body
    assert first["response"]["status"]["code"] == 529
    assert first["response"]["body"]["string"] == '{"type": "error"}\n'
    assert second["response"]["body"]["string"] == sse
    assert second["response"]["headers"]["content-type"] == ["text/event-stream"]


def test_json_body_matcher_ignores_layout_but_not_content() -> None:
    """Bodies equal as JSON match whatever their key order and spacing; any other change does not."""
    recorded = Request("POST", "https://x/y", '{\n  "a": 1,\n  "b": [{"c": "d"}]\n}', {})
    json_body_matcher(Request("POST", "https://x/y", '{"b":[{"c":"d"}],"a":1}', {}), recorded)
    with pytest.raises(AssertionError, match=r"\$\.b\[0\]\.c: cassette has \"d\", request has \"e\""):
        json_body_matcher(Request("POST", "https://x/y", '{"b":[{"c":"e"}],"a":1}', {}), recorded)
    with pytest.raises(AssertionError, match=r"\$\.stream: not in the cassette"):
        json_body_matcher(_request("https://x/y", {"a": 1, "b": [{"c": "d"}], "stream": True}), recorded)
    with pytest.raises(AssertionError, match=r"\$\.a: cassette has 1, request has 1.0"):
        json_body_matcher(_request("https://x/y", {"a": 1.0, "b": [{"c": "d"}]}), recorded)


def test_golden_compares_and_updates(tmp_path: Path) -> None:
    """A golden check fails on a missing or different file, names the difference, and rewrites on update."""
    path = tmp_path / "g" / "x.request.json"
    with pytest.raises(AssertionError, match="missing"):
        Golden(update=False).check_json(path, {"a": 1})
    Golden(update=True).check_json(path, {"a": 1})
    assert json.loads(path.read_text()) == {"a": 1}
    Golden(update=False).check_json(path, {"a": 1})
    with pytest.raises(AssertionError, match=r"\$\.a: golden file has 1, value has 2"):
        Golden(update=False).check_json(path, {"a": 2})
    text_path = tmp_path / "c.yaml"
    Golden(update=True).check_text(text_path, "one\ntwo\n")
    with pytest.raises(AssertionError, match="line 2"):
        Golden(update=False).check_text(text_path, "one\nthree\n")


@pytest.mark.parametrize("path", sorted(CASSETTES.rglob("*.yaml")), ids=lambda p: str(p.relative_to(CASSETTES)))
def test_committed_cassette_holds_no_credential(path: Path) -> None:
    """No committed cassette carries a credential header, a key parameter or a real-looking key."""
    text = path.read_text(encoding="utf-8")
    cassette = yamlserializer.deserialize(text)
    for interaction in cassette["interactions"]:
        headers = {k.lower() for k in interaction["request"]["headers"]}
        assert not headers & {"authorization", "x-api-key", "x-goog-api-key", "api-key"}
        assert not re.search(r"[?&](key|api_key|access_token)=", interaction["request"]["uri"])
    assert not re.search(r"sk-(ant-)?[A-Za-z0-9_-]{8,}|Bearer |AIza[0-9A-Za-z_-]{20}", text)


def test_every_kit_has_a_cassette_per_scenario() -> None:
    """Each provider kit has one committed cassette for every scenario."""
    for name in KIT_NAMES:
        kit = get_kit(name)
        missing = [s.name for s in kit.scenarios() if not kit.cassette_path(s).is_file()]
        assert not missing, f"{name}: no cassette for {missing}"


def test_scenarios_are_deterministic_and_complete() -> None:
    """Building the scenarios twice gives the same histories, ids and times; every name is built once."""
    origin = get_kit("anthropic").origin

    def dump(scenarios: tuple[object, ...]) -> list[list[object]]:
        return [[json.loads(EVENT_ADAPTER.dump_json(e)) for e in s.history] for s in scenarios]  # type: ignore[attr-defined]

    first, second = build_scenarios(origin), build_scenarios(origin)
    assert dump(first) == dump(second)
    assert tuple(s.name for s in first) == SCENARIO_NAMES


def test_scenarios_are_coherent() -> None:
    """Tool results answer calls of the history; only failing calls lack a reply; aborts cut the reply."""
    for scenario in build_scenarios(get_kit("anthropic").origin):
        calls = {p.id for e in scenario.history if isinstance(e, AssistantMessage)
                 for p in e.parts if isinstance(p, ToolCallPart)}
        results = {e.call_id for e in scenario.history if isinstance(e, ToolMessage)}
        assert results == calls, scenario.name
        assert (scenario.reply is None) == (scenario.stream_failure is not None), scenario.name
        if scenario.abort_after_text is not None:
            assert scenario.reply is not None
            assert scenario.reply.text.startswith(scenario.abort_after_text)
            assert scenario.reply.text != scenario.abort_after_text


def test_comparable_renames_only_local_identity() -> None:
    """comparable equates two decodings that differ only in local ids and time, and nothing else."""
    a = AssistantMessage(["hi", ToolCallPart.create("f", {"x": 1}, provider_ids={"p": "call_1"})])
    b = AssistantMessage(["hi", ToolCallPart.create("f", {"x": 1}, provider_ids={"p": "call_1"})])
    assert a != b
    assert comparable(a) == comparable(b)
    c = AssistantMessage(["hi", ToolCallPart.create("f", {"x": 1}, provider_ids={"p": "call_2"})])
    assert comparable(a) != comparable(c)


def test_neutral_ignores_echo_state_but_not_content() -> None:
    """neutral drops signatures' values and ids but keeps text, arguments and whether reasoning is signed."""
    signed = ThinkingPart(text="t", signature=Opaque(value="s1", issuer="anthropic"))
    resigned = ThinkingPart(text="t", signature=Opaque(value="s2", issuer="openai"))
    a = AssistantMessage([signed, ToolCallPart.create("f", {"x": 1})], stop_reason="tool_use")
    b = AssistantMessage([resigned, ToolCallPart.create("f", {"x": 1})], stop_reason="tool_use")
    assert neutral(a) == neutral(b)
    assert neutral(a) != neutral(AssistantMessage([ThinkingPart(text="t"), ToolCallPart.create("f", {"x": 1})],
                                                  stop_reason="tool_use"))
    assert neutral(a) != neutral(AssistantMessage([signed, ToolCallPart.create("f", {"x": 2})],
                                                  stop_reason="tool_use"))
    assert neutral(AssistantMessage([TextPart(text="a")])) != neutral(AssistantMessage([TextPart(text="b")]))


def test_neutral_equates_refusal_text_and_refusal_parts() -> None:
    """Under stop_reason refusal, refusal words in a text part or a refusal part look the same."""
    as_text = AssistantMessage([TextPart(text="I can't help with that.")], stop_reason="refusal")
    as_refusal = AssistantMessage([RefusalPart(text="I can't help with that.")], stop_reason="refusal")
    assert neutral(as_text) == neutral(as_refusal)
    assert neutral(AssistantMessage([TextPart(text="No.")], stop_reason="stop")) != neutral(
        AssistantMessage([RefusalPart(text="No.")], stop_reason="stop"))


def test_a_debian_package_present_is_not_installed_again() -> None:
    """``apt_ensure`` does nothing when what it checks for is there."""
    asked: list[bool] = []

    def present() -> bool:
        asked.append(True)
        return True

    apt_ensure(("nodejs", "npm"), present, "these tests")
    assert asked == [True]


def test_a_missing_debian_package_fails_with_how_to_install_it_where_apt_is_not_ours(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Not root: no install is tried; the test fails, naming the packages and the command."""
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    with pytest.raises(pytest.fail.Exception) as failed:
        apt_ensure(("nodejs", "npm"), lambda: False, "the chat-UI tests")
    assert str(failed.value) == ("the chat-UI tests need nodejs, npm, which this machine does not have: "
                                 "apt-get install -y nodejs npm (as root; run apt-get update first)")
