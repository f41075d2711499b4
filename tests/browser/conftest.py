"""A real headless Chromium for the HTML page's tests, driven by Playwright, with no network.

The browser is Debian's ``chromium`` package: ``$PARTWIRE_CHROMIUM`` when set, else the one
installed, else installed with apt-get where the tests may (``tests.harness.debian``); otherwise
the tests fail and say how to install it. They never skip: a page nobody opened is not tested.
Playwright never downloads a browser here (``executable_path`` points at the system one).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.harness.debian import apt_ensure

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, Request, Route

# Debian's /usr/bin/chromium is a shell wrapper; the binary behind it is started directly.
CANDIDATES = ("/usr/lib/chromium/chromium", "chromium", "chromium-browser")
INSTALL = "apt-get install -y chromium (as root; run apt-get update first)"


def find_chromium() -> str | None:
    """The Chromium to drive: ``$PARTWIRE_CHROMIUM``, else Debian's, else ``None``."""
    configured = os.environ.get("PARTWIRE_CHROMIUM")
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    for name in CANDIDATES:
        found = name if os.access(name, os.X_OK) else shutil.which(name)
        if found:
            return found
    return None


def chromium_or_fail() -> str:
    """The Chromium path; installed first when missing and the tests run as root; else the test fails."""
    configured = os.environ.get("PARTWIRE_CHROMIUM")
    if not configured:
        apt_ensure(("chromium",), lambda: find_chromium() is not None, "the HTML page's browser tests")
    found = find_chromium()
    if found is None:
        pytest.fail(f"the HTML page's browser tests need headless Chromium: $PARTWIRE_CHROMIUM={configured} "
                    f"is not an executable. Install it: {INSTALL}, or set PARTWIRE_CHROMIUM to its binary")
    if importlib.util.find_spec("playwright") is None:
        pytest.fail("the browser tests drive Chromium with Playwright: pip install -e '.[dev]' "
                    "(never 'playwright install': the system Chromium is used)")
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One headless Chromium per test module. Not per session: Playwright's synchronous API
    keeps an event loop running in the thread while it is open, and asyncio.run() in any later
    test would fail."""
    from playwright.sync_api import sync_playwright

    path = chromium_or_fail()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=path, headless=True,
            args=["--disable-background-networking", "--no-first-run", "--disable-component-update"],
        )
        yield launched
        launched.close()


@dataclass
class Opened:
    """A page opened from a file, and what it did: console messages, requests, dialogs."""

    page: Page
    url: str
    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def assert_quiet(self) -> None:
        """No console error, no uncaught exception, no dialog, no request but the file itself."""
        assert not self.errors, self.errors
        assert not self.dialogs, self.dialogs
        assert not self.blocked, self.blocked
        assert self.requests == [self.url], self.requests


@pytest.fixture
def open_page(browser: Browser, tmp_path: Path) -> Iterator[Callable[..., Opened]]:
    """Opens HTML text as a file in a fresh offline context; every request but the file is
    recorded and refused. Each page must have stayed quiet by the end of the test."""
    opened: list[Opened] = []
    contexts: list[Any] = []

    def open_(html: str, *, name: str = "page.html", width: int = 1100, height: int = 900) -> Opened:
        path = tmp_path / name
        path.write_text(html, encoding="utf-8")
        context = browser.new_context(offline=True, viewport={"width": width, "height": height})
        contexts.append(context)
        page = context.new_page()
        result = Opened(page, path.as_uri())

        def route(route: Route) -> None:
            if route.request.url != result.url:
                result.blocked.append(route.request.url)
                route.abort()
            else:
                route.continue_()

        def console(message: ConsoleMessage) -> None:
            result.console.append(f"{message.type}: {message.text}")
            if message.type in ("error", "warning"):
                result.errors.append(f"{message.type}: {message.text}")

        def request(request: Request) -> None:
            result.requests.append(request.url)

        def dialog(dialog: Dialog) -> None:
            result.dialogs.append(dialog.message)
            dialog.dismiss()

        context.route("**/*", route)
        page.on("console", console)
        page.on("pageerror", lambda exc: result.errors.append(f"uncaught: {exc}"))
        page.on("request", request)
        page.on("dialog", dialog)
        page.goto(result.url, wait_until="load")
        opened.append(result)
        return result

    yield open_
    for context in contexts:
        context.close()
    for result in opened:
        result.assert_quiet()
