"""The runner: an implementation started as a subprocess, judged case by case; and ``serve``.

The protocol is JSON lines: the runner writes one request per line to the implementation's
standard input and reads one reply line from its standard output before it sends the next.
A request is ``{"id", "operation", "api"?, "input"}``; a reply is ``{"id", "output"}`` or
``{"id", "error": {"kind", "message"?}}``. ``docs/contract.md`` describes every operation.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from partwire.conformance._cases import Case
from partwire.conformance._compare import CaseResult, judge
from partwire.conformance._operations import perform

__all__ = ["Report", "run", "serve"]


@dataclass(frozen=True)
class Report:
    """The verdicts of one run, in case order."""

    command: str
    """The implementation's command."""
    results: tuple[CaseResult, ...]
    """One result per case run."""

    def count(self, status: str) -> int:
        """How many cases have ``status`` (``passed``, ``failed``, ``skipped``)."""
        return sum(1 for r in self.results if r.status == status)

    @property
    def ok(self) -> bool:
        """Whether no case failed (skipped cases are not failures)."""
        return self.count("failed") == 0

    def to_json(self) -> dict[str, Any]:
        """The report as the ``--json`` option prints it."""
        return {"command": self.command, "passed": self.count("passed"),
                "failed": self.count("failed"), "skipped": self.count("skipped"),
                "results": [r.to_json() for r in self.results]}


# Whether processes have groups (POSIX): a hung implementation is stopped with everything its
# shell started, not the shell alone.
_GROUPS = hasattr(os, "killpg")


class _Implementation:
    """The subprocess, with a reader thread so that a silent implementation times out."""

    def __init__(self, command: str) -> None:
        # Run by the shell, as a user types it (``node impl.js``, ``FOO=1 ./impl``), in a process
        # group of its own where there are groups: stopping it stops what the shell started.
        # Bytes both ways: a reply that is not UTF-8 fails its case, saying so, rather than the
        # reader thread.
        self.process = subprocess.Popen(command, shell=True, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, start_new_session=_GROUPS)
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.silent: str | None = None
        """Why the cases after one left without a reply fail unasked (``None`` until then)."""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def ask(self, request: dict[str, Any], timeout: float) -> dict[str, Any] | str:
        """The reply to ``request``, or why there is none (a text)."""
        if self.silent is not None:
            return self.silent
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(_line(request))
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            return f"the implementation exited (status {self.process.poll()})"
        try:
            raw = self.lines.get(timeout=timeout)
        except queue.Empty:
            # A reply that comes later would be read as the next case's: the implementation is
            # taken as hung, and the remaining cases fail at once rather than each after a wait.
            self.silent = f"not asked: the implementation gave no reply to {request['id']!r} within {timeout:g} s"
            return f"no reply within {timeout:g} s"
        if raw is None:
            return f"the implementation exited (status {self.process.wait()}) before replying"
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return f"the reply is not UTF-8 ({exc.reason} at byte {exc.start}): {raw[:200]!r}"
        try:
            reply = json.loads(line)
        except ValueError:
            return f"the reply is not JSON: {line[:200]!r}"
        if not isinstance(reply, dict):
            return f"the reply is not a JSON object: {line[:200]!r}"
        if reply.get("id") != request["id"]:
            return f"the reply's id is {reply.get('id')!r}, not {request['id']!r}"
        return reply

    def close(self) -> None:
        assert self.process.stdin is not None
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        try:
            # An implementation that answered everything has until 5 s to end after its input
            # does; a hung one is stopped now.
            self.process.wait(timeout=5 if self.silent is None else 0)
        except subprocess.TimeoutExpired:
            if _GROUPS:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
            else:
                self.process.kill()
            self.process.wait()


def _line(request: dict[str, Any]) -> bytes:
    """A request as one line of UTF-8 JSON; a lone surrogate, which UTF-8 cannot hold, is sent
    as its JSON escape (with every other character outside ASCII)."""
    text = json.dumps(request, ensure_ascii=False)
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(request) + "\n").encode("ascii")


def run(command: str, cases: Sequence[Case], *, timeout: float = 30.0) -> Report:
    """Start ``command`` (by the shell), send it every case, and judge each reply.

    A reply that does not come within ``timeout`` seconds, is not JSON or names another case
    fails its case; once the implementation has exited, or has let a case go without a reply
    within ``timeout`` (it is then stopped), every remaining case fails without being asked.
    """
    implementation = _Implementation(command)
    results: list[CaseResult] = []
    try:
        for case in cases:
            reply = implementation.ask(case.request(), timeout)
            if isinstance(reply, str):
                results.append(CaseResult(case, "failed", reply))
            else:
                results.append(judge(case, reply))
    finally:
        implementation.close()
    return Report(command, tuple(results))


def serve(lines: Iterable[str] | None = None, out: IO[str] | None = None) -> int:
    """partwire's implementation of the protocol: answer each request line until input ends."""
    source = sys.stdin if lines is None else lines
    sink = sys.stdout if out is None else out
    for line in source:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            request = None
        if not isinstance(request, dict):
            reply: dict[str, Any] = {"id": None, "error": {"kind": "invalid_input",
                                                           "message": "a request is one JSON object per line"}}
        else:
            reply = {"id": request.get("id"), **perform(request)}
        sink.write(json.dumps(reply, ensure_ascii=False) + "\n")
        sink.flush()
    return 0
