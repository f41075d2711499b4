"""``partwire conformance``: judge an implementation of the format against the shipped corpus.

``conformance run --cmd CMD`` starts CMD (by the shell) and sends it every case over the
JSON-lines protocol of ``docs/contract.md``; it prints ``PASS``/``FAIL``/``SKIP`` per case, a diff
under each failure and a summary, and exits 1 when a case failed. ``--cases`` keeps the cases
whose id matches one of its glob patterns; ``--json`` prints the report as one JSON object.
``conformance serve`` is partwire's own implementation of the protocol; ``conformance list``
prints the case ids.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from typing import Any

from partwire.cli._io import CommandError

__all__ = ["add_conformance_parser"]


def add_conformance_parser(commands: Any) -> None:
    """Add ``conformance`` (``run``, ``serve``, ``list``) to ``partwire``'s subcommands."""
    cmd = commands.add_parser("conformance", help="judge an implementation of the format against "
                                                  "the conformance corpus; serve partwire's own")
    verbs = cmd.add_subparsers(dest="verb", required=True, metavar="VERB")
    run = verbs.add_parser("run", help="run the corpus against an implementation (a subprocess)")
    run.add_argument("--cmd", required=True, metavar="COMMAND",
                     help="the implementation's command line, run by the shell; it speaks the "
                          "protocol on stdin/stdout")
    _add_filter(run)
    run.add_argument("--json", action="store_true", help="print the report as one JSON object")
    run.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS",
                     help="how long to wait for each reply (default 30)")
    run.set_defaults(run=_run)
    serve = verbs.add_parser("serve", help="partwire's own implementation of the protocol "
                                           "(requests on stdin, replies on stdout)")
    serve.set_defaults(run=_serve)
    listing = verbs.add_parser("list", help="print the id of every case")
    _add_filter(listing)
    listing.set_defaults(run=_list)


def _add_filter(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cases", action="append", default=[], metavar="PATTERN",
                        help="only the cases whose id matches this glob (thinking_*/anthropic, "
                             "*/google, validate_*); repeatable, or comma-separated")


def _selected(patterns: list[str]) -> list[Any]:
    from partwire.conformance import load_cases

    cases = load_cases()
    wanted = [p.strip() for item in patterns for p in item.split(",") if p.strip()]
    if not wanted:
        return cases
    chosen = [c for c in cases if any(fnmatch.fnmatchcase(c.id, p) for p in wanted)]
    if not chosen:
        raise CommandError(f"no case matches {', '.join(wanted)} ('partwire conformance list' "
                           "prints the ids)")
    return chosen


def _run(args: argparse.Namespace) -> int:
    from partwire.conformance import run

    report = run(args.cmd, _selected(args.cases), timeout=args.timeout)
    args.exit_status = 0 if report.ok else 1
    if args.json:
        print(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
        return int(args.exit_status)
    for result in report.results:
        print(f"{result.status.upper()[:4]:4} {result.case.id}")
        if result.status == "failed":
            print("\n".join(f"     {line}" for line in result.diff.splitlines()))
    print(f"{report.count('passed')} passed, {report.count('failed')} failed, "
          f"{report.count('skipped')} skipped of {len(report.results)} cases")
    return int(args.exit_status)


def _serve(args: argparse.Namespace) -> int:
    from partwire.conformance import serve

    return serve(sys.stdin, sys.stdout)


def _list(args: argparse.Namespace) -> int:
    for case in _selected(args.cases):
        print(case.id)
    return 0
