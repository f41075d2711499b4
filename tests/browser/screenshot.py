"""``python -m tests.browser.screenshot``: the screenshots of docs/viewing.md, from the example.

Renders ``partwire example`` as the HTML page, opens it in the same headless Chromium as the
browser tests (offline) and writes ``docs/images/viewing-transcript.png`` and
``docs/images/viewing-projection.png``. Run it again when the page's look changes.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from partwire.cli._example import example_history
from partwire.render import to_html
from tests.browser.conftest import INSTALL, find_chromium

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "docs" / "images"


def main() -> int:
    from playwright.sync_api import sync_playwright

    chromium = find_chromium()
    if chromium is None:
        print(f"no Chromium: {INSTALL}", file=sys.stderr)
        return 1
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        page_file = Path(tmp) / "example.html"
        page_file.write_text(to_html(example_history()), encoding="utf-8")
        browser = playwright.chromium.launch(executable_path=chromium, headless=True)
        page = browser.new_context(offline=True, viewport={"width": 1000, "height": 1250}).new_page()
        page.goto(page_file.as_uri())
        # The second assistant turn: citations, a server tool and two tool results.
        page.locator("#e12").scroll_into_view_if_needed()
        page.evaluate("window.scrollBy(0, -110)")
        page.screenshot(path=str(IMAGES / "viewing-transcript.png"))
        page.click("#tab-projection")
        page.click("#adapters button:has-text('google ')")
        page.screenshot(path=str(IMAGES / "viewing-projection.png"))
        browser.close()
    for name in ("viewing-transcript.png", "viewing-projection.png"):
        print(IMAGES / name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
