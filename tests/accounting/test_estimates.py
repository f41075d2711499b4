"""Token estimates against the input usage providers reported for real recorded requests.

Each wire format's estimator runs on the recorded request body (the body ``to_wire`` would
send) and is compared with the usage the provider answered. The bounds (DESIGN §7) hold on the
held-back third of the corpus, which no constant was fitted on; the figures are printed at the
end of a run (tests/accounting/conftest.py), and in the message of a failure.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping
from typing import Any

import pytest

from partwire.adapters import _estimate
from partwire.caches import clear
from tests.accounting._corpus import PROVIDERS, Sample, samples
from tests.accounting.conftest import REPORT_KEY

ESTIMATORS: dict[str, Callable[[Mapping[str, Any]], int]] = {
    "anthropic": _estimate.estimate_anthropic_body,
    "openai-chat": _estimate.estimate_openai_chat_body,
    "openai-responses": _estimate.estimate_openai_responses_body,
    "google": _estimate.estimate_google_body,
}
MEDIAN_BOUND = 0.10
P90_BOUND = 0.25
# Fewer held-back requests than this would make the percentiles meaningless.
MIN_SAMPLES = 30


def error_distribution(provider: str, chosen: list[Sample]) -> dict[str, float]:
    """Median, 90th percentile and maximum of |estimate - real| / real over ``chosen``."""
    estimate = ESTIMATORS[provider]
    errors = sorted(abs(estimate(s.request) - s.real) / s.real for s in chosen)
    return {
        "n": len(errors),
        "median": statistics.median(errors),
        "p90": errors[round(0.9 * (len(errors) - 1))],
        "max": errors[-1],
    }


@pytest.mark.parametrize("provider", PROVIDERS)
def test_estimate_error_within_bounds_on_held_back_requests(
        provider: str, record_property: Callable[[str, object], None]) -> None:
    """On held-back real requests the median error is at most 10% and the p90 at most 25%."""
    held = samples(provider, held_back=True)
    stats = error_distribution(provider, held)
    report = (f"{provider}: n={stats['n']} median={stats['median']:.1%} "
              f"p90={stats['p90']:.1%} max={stats['max']:.1%}")
    record_property(REPORT_KEY, (provider, report))
    assert stats["n"] >= MIN_SAMPLES, report
    assert stats["median"] <= MEDIAN_BOUND, report
    assert stats["p90"] <= P90_BOUND, report


def test_the_real_tokenizer_is_used() -> None:
    """The test environment counts text with o200k_base, not the character fallback."""
    assert _estimate.tokenizer_name().startswith("o200k_base")
    assert _estimate.count_text("hello world") == 2


def test_fit_and_held_back_parts_do_not_overlap() -> None:
    """No held-back request is also in the part the constants were fitted on."""
    held = {s.name for s in samples("anthropic", held_back=True)}
    fit = {s.name for s in samples("anthropic", held_back=False)}
    assert held
    assert fit
    assert not held & fit


def test_without_the_tokenizer_text_is_counted_by_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    """With bpe-openai missing, counts fall back to 4 characters a token (1 for wide characters)."""
    from partwire.adapters._estimate import _text

    monkeypatch.setattr(_text, "_tokenizer", lambda: None)
    clear()
    try:
        assert _estimate.tokenizer_name() == "characters/4 (fallback)"
        assert _estimate.count_text("a" * 400) == 100
        assert _estimate.count_text("日本語のテキスト") == 8
    finally:
        clear()


@pytest.mark.parametrize("value", [
    {"name": "t", "response": {"output": "word " * 200}},
    [{"functionResponse": {"name": "t", "response": {"output": "line of output\n" * 40}}}],
    {"args": {"path": "a"}, "note": "x" * 300, "more": ["y " * 150]},
])
def test_long_strings_inside_json_are_counted(value: Any) -> None:
    """A tool output inside a function response counts at least its own tokens, warm or cold."""
    from partwire.adapters._estimate._text import Tally, count_text

    def longs(node: Any) -> list[str]:
        if isinstance(node, str):
            return [node] if len(node) >= 256 else []
        items = node.values() if isinstance(node, dict) else node if isinstance(node, list) else []
        return [s for item in items for s in longs(item)]

    floor = sum(count_text(s) for s in longs(value))
    assert floor > 0
    for _ in range(2):  # the first estimate, then the one that finds its shape remembered
        tally = Tally()
        tally.add_json(value)
        assert tally.text >= floor
    clear()
    cold = Tally()
    cold.add_json(value)
    assert cold.text >= floor


def test_a_gemini_signature_is_billed_as_reference_or_as_replayed_thinking() -> None:
    """A one-record signature costs a few tokens; a several-record one its replayed thinking."""
    import base64

    from partwire.adapters._estimate._google import signature_tokens

    def record(size: int) -> bytes:
        return b"\x0a" + bytes([0x80 | (size & 0x7F), size >> 7]) + bytes(size)

    reference = base64.b64encode(record(700)).decode()
    streamed = base64.b64encode(record(140) + record(280) + record(280)).decode()
    wrapped = base64.b64encode(b"\x12" + bytes([0x80 | (703 & 0x7F), 703 >> 7])
                               + record(700)).decode()
    assert signature_tokens(reference) < 20
    assert 120 < signature_tokens(streamed) < 160  # 700 bytes of thinking, about 140 tokens
    assert 120 < signature_tokens(wrapped) < 160
    body = {"contents": [
        {"role": "user", "parts": [{"text": "Look it up."}]},
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}},
                                     "thoughtSignature": streamed}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"x": 1}}}]}]}
    plain = {"contents": [*body["contents"][:1],
                          {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
                          body["contents"][2]]}
    grown = _estimate.estimate_google_body(body) - _estimate.estimate_google_body(plain)
    assert 120 < grown < 160
    assert signature_tokens("not base64!") > 0  # unreadable: counted by its size, not dropped


def test_gemini_counts_each_run_of_line_ends_as_a_token_of_its_own() -> None:
    """Gemini text: a newline run after punctuation is a token, not merged as o200k_base does."""
    from partwire.adapters._estimate._google import gemini_text

    assert _estimate.count_text("}\n" * 50) == 50  # o200k_base: "}\n" is one token
    assert gemini_text("}\n" * 50) == 100
    assert gemini_text("no line ends here") == _estimate.count_text("no line ends here")
    body = {"contents": [{"role": "user", "parts": [{"text": "}\n" * 50}]}]}
    flat = {"contents": [{"role": "user", "parts": [{"text": "} " * 50}]}]}
    assert _estimate.estimate_google_body(body) - _estimate.estimate_google_body(flat) >= 45


def test_bedrock_counts_the_published_tool_prompt_and_template_of_the_model() -> None:
    """Claude 3 models get Anthropic's per-model tool prompt; Llama 3.1+ Meta's dated template."""
    from partwire.adapters.bedrock._tokens import estimate_request_tokens

    tools = {"tools": [{"toolSpec": {"name": "f", "description": "d",
                                     "inputSchema": {"json": {"type": "object"}}}}]}
    body = {"messages": [{"role": "user", "content": [{"text": "Hi"}]}], "toolConfig": tools}

    def count(model: str, **extra: object) -> int:
        return estimate_request_tokens({**body, **extra, "modelId": model})

    haiku, sonnet = "anthropic.claude-3-haiku-20240307-v1:0", "anthropic.claude-3-sonnet-20240229-v1:0"
    assert count(haiku) - count(sonnet) == 264 - 159
    forced = {**tools, "toolChoice": {"any": {}}}
    assert count(haiku, toolConfig=forced) - count(haiku) == 340 - 264
    plain = {"messages": body["messages"]}
    llama_31 = estimate_request_tokens({**plain, "modelId": "meta.llama3-1-8b-instruct-v1:0"})
    llama_30 = estimate_request_tokens({**plain, "modelId": "meta.llama3-8b-instruct-v1:0"})
    assert llama_31 - llama_30 == 5 + 17  # the system block with its date lines


def test_nova_and_titan_count_numbers_digit_by_digit() -> None:
    """Nova and Titan bill a number digit by digit: "What is 4200 + 42?" is estimated at the 12
    tokens Nova Micro billed for it (o200k alone gives 9); Titan's two recorded questions come to
    the 17 it billed."""
    from partwire.adapters.bedrock._tokens import estimate_request_tokens

    def body(model: str, *texts: str) -> dict[str, Any]:
        return {"modelId": model, "messages": [{"role": "user", "content": [{"text": t}]} for t in texts]}

    question = "What is 4200 + 42?"
    nova = estimate_request_tokens(body("amazon.nova-micro-v1:0", question))
    assert nova == 12
    titan = estimate_request_tokens(body("amazon.titan-text-express-v1", "what is the capital of Italy?",
                                         "what is the capital of Japan?"))
    assert titan == 17
