"""The HTML page in a real headless Chromium, opened from a file with no network: what a person sees."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from partwire import AssistantMessage, HistoryEvent, ThinkingPart
from partwire.adapters import ADAPTER_NAMES, get_adapter
from partwire.adapters._kernel import dry_run
from partwire.cli._example import example_history
from partwire.codec import context_messages
from partwire.render import to_html
from tests.benchmarks.agent_history import agent_history
from tests.browser.conftest import Opened
from tests.render.test_render import HOSTILE, example_texts

pytestmark = pytest.mark.browser

EXAMPLE = example_history()
PAGE = to_html(EXAMPLE)
Open = Callable[..., Opened]


def _lines(texts: list[str]) -> list[str]:
    """The lines a reader sees: Markdown code marks (backticks) are shown as code, not as marks."""
    lines = (" ".join(line.replace("`", "").split()) for text in texts for line in text.splitlines())
    return [line for line in lines if line]


def _shown(opened: Opened, selector: str = "#transcript") -> str:
    return " ".join(opened.page.inner_text(selector).replace("`", "").split())


def _thinking(history: list[HistoryEvent]) -> list[str]:
    return [p.text for e in history if isinstance(e, AssistantMessage) for p in e.parts
            if isinstance(p, ThinkingPart) and p.text]


def test_the_commands_page_is_the_example_page(open_page: Open, tmp_path: Path) -> None:
    """``partwire example | partwire show - --format html > h.html``, run as programs, writes the
    page these tests open; it shows the example and both views."""
    command = f"{sys.executable} -m partwire example | {sys.executable} -m partwire show - --format html > h.html"
    done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=tmp_path, capture_output=True,
                          text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "h.html").read_text(encoding="utf-8")
    assert html == PAGE
    opened = open_page(html, name="h.html")
    assert "Fix the UTC offset bug in parse_date" in _shown(opened)
    opened.page.click("#tab-projection")
    assert json.loads(opened.page.inner_text("#body"))["messages"]
    opened.assert_quiet()


def test_every_message_of_the_example_is_on_the_page(open_page: Open) -> None:
    """Every text of every message and event is shown; thinking is collapsed until opened."""
    opened = open_page(PAGE)
    shown = _shown(opened)
    thinking = _lines(_thinking(EXAMPLE))
    missing = [line for line in _lines(example_texts(EXAMPLE)) if line not in shown and line not in thinking]
    assert not missing
    assert thinking
    assert not any(line in shown for line in thinking)
    assert opened.page.locator("details.thinking[open]").count() == 0
    for summary in opened.page.locator("details.thinking > summary").all():
        summary.click()
    shown = _shown(opened)
    assert all(line in shown for line in thinking)
    assert "Thinking (signed by anthropic)" in shown
    opened.assert_quiet()


def test_events_and_turn_facts_are_shown(open_page: Open) -> None:
    """Errors, retries, the compaction, the model switch, interrupts, the subtask and the unknown
    event are there, and each assistant turn shows its model, usage and cost with its price version."""
    shown = _shown(open_page(PAGE))
    for expected in ("Error overloaded_error (anthropic, HTTP 529, retryable): Overloaded",
                     "Retry: attempt 2 after 2,000 ms", "Compaction: 11 messages summarised, 48,210 \u2192 1,630 tokens",
                     "Model switch: anthropic:claude-sonnet-4-6 \u2192 openai:gpt-5",
                     "Interrupted: the user stopped this answer", "Interrupted: the user stopped this tool call",
                     "Subtask sess_tidydates_43 (reviewer):", "Unknown event 'checkpoint', kept verbatim",
                     "cost $0.021165 (pricing 2026-05-08)", "Refusal", "remote, not loaded: https://ci.example.com"):
        assert expected in shown, expected


def test_the_focused_toggle_hides_tool_output_and_brings_it_back(open_page: Open) -> None:
    """Focused hides every tool output (messages stay); unticked, the outputs are back."""
    opened = open_page(PAGE)
    page = opened.page
    outputs = page.locator(".tool-output")
    assert outputs.count() >= 7
    assert page.locator(".tool-output:visible").count() == outputs.count()
    page.check("#focused")
    assert page.locator(".tool-output:visible").count() == 0
    shown = _shown(opened)
    assert "wrote 2 lines to src/tidydates/parse.py" not in shown
    assert "I'll patch the parser and run the whole suite." in shown
    page.uncheck("#focused")
    assert page.locator(".tool-output:visible").count() == outputs.count()
    opened.assert_quiet()


def _expected(history: list[HistoryEvent], event: int | None, adapter: str, model: str) -> Any:
    context = context_messages(history if event is None else history[:event])
    with dry_run():
        return get_adapter(adapter).to_wire(context, model=model)


def _model(opened: Opened) -> str:
    note = opened.page.inner_text("#model-note")
    return note.removeprefix("model ").split(" ")[0]


def test_the_projection_tab_shows_each_adapters_body_and_losses(open_page: Open) -> None:
    """For the next call, each adapter's tab shows exactly its ``to_wire`` body and one line per
    loss, and marks the lost parts in the transcript; a loss's link goes to its part."""
    opened = open_page(PAGE)
    page = opened.page
    page.click("#tab-projection")
    assert page.is_visible("#projection")
    assert not page.is_visible("#transcript")
    for name in ADAPTER_NAMES:
        page.click(f"#adapters button:has-text('{name} ')")
        projection = _expected(EXAMPLE, None, name, _model(opened))
        assert json.loads(page.inner_text("#body")) == projection.request
        items = page.locator("#losses li")
        assert items.count() == max(1, len(projection.losses))
        listed = _shown(opened, "#losses")
        for loss in projection.losses:
            assert loss.reason in listed
        assert page.locator("#transcript .lossy").count() >= (1 if projection.losses else 0)
        assert f"{name} \u00b7 {len(projection.losses)} lost" in _shown(opened, "#adapters")
    page.locator("#losses li a").first.click()
    assert page.is_visible("#transcript")
    target = page.locator(".flash")
    assert target.count() == 1
    assert target.is_visible()
    assert "google:" in target.inner_text()
    opened.assert_quiet()


def test_each_turn_shows_the_request_that_produced_it(open_page: Open) -> None:
    """A turn's button opens its request; every turn of every adapter equals ``to_wire`` of the
    messages before it (compaction applied)."""
    opened = open_page(PAGE)
    page = opened.page
    turns = [i for i, e in enumerate(EXAMPLE) if isinstance(e, AssistantMessage)]
    page.locator("button[data-turn]").first.click()
    assert page.is_visible("#projection")
    assert page.input_value("#turn") == "0"
    for n, event in enumerate(turns):
        page.select_option("#turn", str(n))
        for name in ADAPTER_NAMES:
            page.click(f"#adapters button:has-text('{name} ')")
            expected = _expected(EXAMPLE, event, name, _model(opened))
            assert json.loads(page.inner_text("#body")) == expected.request, (n, name)
    opened.assert_quiet()


def test_history_text_never_runs_and_remote_media_are_not_fetched(open_page: Open) -> None:
    """A history holding scripts, handlers, a javascript: URL and a tracking pixel opens with no
    dialog, no request and the text shown as text."""
    opened = open_page(to_html(HOSTILE), name="hostile.html")
    shown = _shown(opened)
    assert '<script>alert(1)</script><img src=x onerror="alert(2)">' in shown
    assert "fine </script><script>alert(4)</script>" in shown
    opened.page.click("#tab-projection")
    assert "alert(4)" in opened.page.inner_text("#body")
    opened.assert_quiet()


def test_a_long_session_is_paged(open_page: Open) -> None:
    """A long session shows one page at a time: next, the last page, and show-all all work, and
    the projection of its last turn opens."""
    history = agent_history(1200)
    opened = open_page(to_html(history, page_size=100), name="long.html")
    page = opened.page
    info = page.inner_text("#page-info")
    assert info.startswith("page 1 of ")
    count = int(info.rsplit(" ", 1)[1])
    assert count > 5
    assert page.locator(".page:visible").count() == 1
    first_text = page.locator(".page").nth(0).locator(".msg").first.inner_text()
    page.click("#next")
    assert page.inner_text("#page-info") == f"page 2 of {count}"
    assert page.locator(".page").nth(1).is_visible()
    assert not page.locator(".page").nth(0).is_visible()
    for _ in range(count):
        page.click("#next")
    assert page.inner_text("#page-info") == f"page {count} of {count}"
    last = history[-1]
    assert page.locator(f"#e{len(history) - 1}").is_visible(), last.type
    page.click("#show-all")
    assert page.locator(".page:visible").count() == count
    assert first_text in page.inner_text("#transcript")
    page.click("#tab-projection")
    context = context_messages(history)
    with dry_run():
        expected = get_adapter(ADAPTER_NAMES[0]).to_wire(context, model=_model(opened)).request
    wire = expected["messages"]
    assert len(wire) > 100
    assert page.inner_text("#body-note") == f"Showing the last 100 of the {len(wire)} items of \u201cmessages\u201d."
    assert json.loads(page.inner_text("#body")) == {**expected, "messages": wire[-100:]}
    page.click("#whole-body")
    assert json.loads(page.inner_text("#body")) == expected
    assert not page.is_visible("#whole-body")
    opened.assert_quiet()
