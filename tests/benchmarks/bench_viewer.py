"""The HTML page of a 10,000-event session: its size, the time to render it, and the time Chromium
takes to open it, turn a page and show the last turn's request (docs/viewing.md). No targets: one
pass (Chromium's start and a 10,000-event render take most of a minute)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from partwire.render import to_html
from tests.benchmarks._runner import Pass
from tests.benchmarks.agent_history import agent_history
from tests.browser.conftest import INSTALL, find_chromium

EVENTS = 10_000


def _measure() -> dict[str, dict[str, float | str]]:
    from playwright.sync_api import sync_playwright

    history = agent_history(EVENTS)
    start = time.perf_counter()
    page_text = to_html(history)
    render = time.perf_counter() - start
    start = time.perf_counter()
    plain = to_html(history, adapters=())
    render_plain = time.perf_counter() - start
    chromium = find_chromium()
    if chromium is None:
        raise SystemExit(f"bench_viewer needs Chromium: {INSTALL}")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        path = Path(tmp) / "long.html"
        path.write_text(page_text, encoding="utf-8")
        browser = playwright.chromium.launch(executable_path=chromium, headless=True)
        page = browser.new_context(offline=True).new_page()
        page.goto(path.as_uri(), wait_until="load", timeout=300_000)
        load_ms = page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
        start = time.perf_counter()
        page.click("#next")
        page.wait_for_selector(".page[data-page='1']", state="visible")
        next_page = time.perf_counter() - start
        start = time.perf_counter()
        page.click("#tab-projection")
        page.wait_for_function("document.getElementById('body').textContent.length > 0")
        projection = time.perf_counter() - start
        browser.close()
    n = f"{EVENTS // 1000}k"
    return {
        f"viewer_{n}_page_size": {"value": round(len(page_text.encode()) / 1e6, 1), "unit": "MB"},
        f"viewer_{n}_page_size_no_projections": {"value": round(len(plain.encode()) / 1e6, 1), "unit": "MB"},
        f"viewer_{n}_render": {"value": round(render, 1), "unit": "s (to_html)"},
        f"viewer_{n}_render_no_projections": {"value": round(render_plain, 1), "unit": "s (adapters=())"},
        f"viewer_{n}_chromium_load": {"value": round(load_ms / 1000, 2), "unit": "s (to the load event)"},
        f"viewer_{n}_next_page": {"value": round(next_page, 2), "unit": "s"},
        f"viewer_{n}_last_request": {"value": round(projection, 2), "unit": "s (projection tab)"},
    }


FIGURES = [Pass(_measure, runs=1)]
