"""``partwire store``: import histories into a session store, list, export, show, search, fork.

``--db`` takes a path, ``sqlite:///...`` or ``postgresql://...``; without it the store is
``$PARTWIRE_STORE``, else ``store.sqlite`` in the user's data directory. Errors (a torn file, a
newer schema, an unreachable server) end as one ``partwire: error: ...`` line, raised as
:class:`~partwire.errors.PartwireError` for ``partwire.cli`` to print.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import re
import sys
import urllib.parse
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import IO, Any

from partwire.cli._convert import SESSION_FILES, read_session_file
from partwire.cli._cost import parse_date
from partwire.cli._render import add_render_options, write_rendering
from partwire.codec import dumps, iter_records
from partwire.history import TaskMetadataEvent
from partwire.pricing import load_price_table
from partwire.render._text import printable
from partwire.store import Store, StoreError, open_store

__all__ = ["add_store_parser", "default_db", "make_progress", "run_store", "session_file_name"]

ENV_DB = "PARTWIRE_STORE"


def default_db() -> str:
    """``$PARTWIRE_STORE``, else ``store.sqlite`` in the platform's per-user data directory."""
    configured = os.environ.get(ENV_DB)
    if configured:
        return configured
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return str(base / "partwire" / "store.sqlite")


def add_store_parser(commands: Any) -> None:
    """Add the ``store`` command and its verbs to ``partwire``'s subcommands."""
    store = commands.add_parser(
        "store", help="keep histories in a SQLite or PostgreSQL session store and query them",
        description="Import JSONL histories into a session store (SQLite or PostgreSQL), and list, "
                    "export, show, search, fork them.",
    )
    store.add_argument("--db", metavar="URL", default=None,
                       help=f"a path, sqlite:///PATH or postgresql://... (default: ${ENV_DB}, else {default_db()})")
    verbs = store.add_subparsers(dest="verb", required=True, metavar="VERB")

    imp = verbs.add_parser("import", help="import JSONL files, one session each (re-running is a no-op)")
    imp.add_argument("files", metavar="FILE", nargs="+", help="history files (JSONL)")
    imp.add_argument("--from", dest="source", choices=("canonical", *SESSION_FILES), default="canonical",
                     help="the files' format: canonical histories (the default), or Claude Code or Codex "
                          "session files, imported first (the session id is theirs)")
    imp.add_argument("--session", metavar="ID",
                     help="the session id (one file only; default: the file's task_id, else its name)")
    imp.add_argument("--verbatim", action="store_true",
                     help="store a file even when no line of it is a readable event (each line kept "
                          "as an unknown event); without it such a file is refused")
    imp.set_defaults(store_run=_import)

    ls = verbs.add_parser("ls", help="list sessions, the most recently active first")
    ls.add_argument("--limit", type=int, default=None, help="at most this many")
    ls.set_defaults(store_run=_ls)

    export = verbs.add_parser(
        "export", help="print a session as JSONL, byte-identical to what was stored; or write many "
                       "sessions, one file each, into a folder (--out)")
    export.add_argument("sessions", metavar="SESSION_ID", nargs="*",
                        help="the sessions (one prints to standard output; several need --out)")
    export.add_argument("--all", action="store_true",
                        help="every session, the most recently active first (as ls lists them)")
    export.add_argument("--limit", type=int, default=None,
                        help="with --all: the N most recently active sessions (as ls --limit)")
    export.add_argument("--out", metavar="DIR",
                        help="write each session to DIR/<session>.jsonl (created if need be) in one run, "
                             "with a progress bar on a terminal")
    export.add_argument("--until", metavar="EVENT_ID", help="stop after this event (one session only)")
    export.set_defaults(store_run=_export)

    show = verbs.add_parser("show", help="print a readable transcript of a session (text, Markdown or HTML)")
    show.add_argument("session", metavar="SESSION_ID")
    show.add_argument("--until", metavar="EVENT_ID", help="stop after this event")
    add_render_options(show)
    show.set_defaults(store_run=_show)

    search = verbs.add_parser("search", help="full-text search over text parts and tool output")
    search.add_argument("text", metavar="TEXT")
    search.add_argument("--session", metavar="ID", help="search one session only")
    search.add_argument("--limit", type=int, default=20, help="at most this many hits (default 20)")
    search.set_defaults(store_run=_search)

    pending = verbs.add_parser("pending", help="tool calls no tool message has answered")
    pending.add_argument("--session", metavar="ID", help="one session only")
    pending.set_defaults(store_run=_pending)

    stats = verbs.add_parser("stats", help="usage and cost by model (and by session with --session)")
    stats.add_argument("--session", metavar="ID", help="one session only")
    stats.set_defaults(store_run=_stats)

    again = verbs.add_parser("reprice", help="recompute the stored costs in place (the lines stay as they are)")
    again.add_argument("--session", metavar="ID", help="one session only")
    again.add_argument("--prices", metavar="TABLE", help="a TOML or JSON price table that overrides genai-prices")
    again.add_argument("--at", metavar="DATE", type=parse_date,
                       help="use the prices of this date (YYYY-MM-DD) instead of each message's own")
    again.set_defaults(store_run=_reprice)

    index = verbs.add_parser("index", help="index for search the texts that large writes left for the next search")
    index.set_defaults(store_run=_index)

    fork = verbs.add_parser("fork", help="start a new session from a session's events up to EVENT_ID")
    fork.add_argument("session", metavar="SESSION_ID")
    fork.add_argument("event", metavar="EVENT_ID")
    fork.add_argument("--as", dest="new_id", metavar="NEW_ID", help="the new session's id")
    fork.set_defaults(store_run=_fork)

    store.set_defaults(run=run_store)


def run_store(args: argparse.Namespace) -> int:
    """Open the store named by ``--db`` and run the verb."""
    url = args.db or default_db()
    if args.db is None and "://" not in url:
        Path(url).parent.mkdir(parents=True, exist_ok=True)
    verb: Callable[[Store, argparse.Namespace], int] = args.store_run
    with open_store(url) as store:
        return verb(store, args)


# -- verbs ------------------------------------------------------------------------------------


def _reprice(store: Store, args: argparse.Namespace) -> int:
    table = load_price_table(args.prices) if args.prices else None
    count = store.reprice(args.session, table=table, at=args.at)
    print(f"{count} message(s) repriced")
    return 0


def _index(store: Store, args: argparse.Namespace) -> int:
    print(f"{store.index()} event(s) indexed")
    return 0


def _import(store: Store, args: argparse.Namespace) -> int:
    if args.session is not None and len(args.files) > 1:
        raise StoreError("--session names one session: give one FILE with it")
    for name in args.files:
        if os.path.isdir(name):
            raise StoreError(f"{name} is a directory, not a history file")
        if not os.path.exists(name):
            raise StoreError(f"{name}: no such file")
        if args.source != "canonical":
            result = _import_session_file(store, name, args.source, args.session)
            for problem in result.problems:
                print(f"{problem} (stored verbatim)", file=sys.stderr)
            print(f"{name}: session {result.session_id}: {result.added} event(s) added, "
                  f"{result.skipped} already stored")
            continue
        if not args.verbatim:
            _check_readable(name)
        bar = make_progress(sys.stderr, os.path.getsize(name), os.path.basename(name))
        try:
            result = store.import_file(name, args.session, progress=bar.update if bar else None)
        finally:
            if bar is not None:
                bar.close()
        for problem in result.problems:
            print(f"{problem} (stored verbatim)", file=sys.stderr)
        print(f"{name}: session {result.session_id}: {result.added} event(s) added, "
              f"{result.skipped} already stored")
    return 0


# What a line is when nothing of it could be read as an event: the reader kept its bytes only.
_UNREADABLE = frozenset({"torn_line", "invalid_json", "not_utf8", "too_long", "too_deep"})


def _check_readable(name: str) -> None:
    """Refuse a file none of whose lines is a history event (random bytes, another format).

    The scan stops at the first readable line, the first line of any partwire file, so it costs
    one line's read; the store would otherwise keep every line verbatim as an unknown event.
    """
    seen = 0
    for record in iter_records(name):
        seen += 1
        if not any(problem.kind in _UNREADABLE for problem in record.problems):
            return
    why = "it is empty" if seen == 0 else f"none of its {seen} line(s) is a JSON history event"
    raise StoreError(f"{name}: not a history file: {why}; nothing was stored (pass --verbatim to "
                     "store it all the same, each line kept as an unknown event)")


def _import_session_file(store: Store, name: str, source: str, session: str | None) -> Any:
    """Import an agent's session file: its history, as the canonical lines the store keeps."""
    history = read_session_file(name, source)
    first = history[0] if history else None
    if session is None:
        task = first.task_id if isinstance(first, TaskMetadataEvent) else None
        session = task or Path(name).stem
    return store.import_records(session, iter_records(io.BytesIO(dumps(history))))


def _ls(store: Store, args: argparse.Namespace) -> int:
    rows: list[tuple[str, ...]] = [("SESSION", "UPDATED", "MODEL", "MSGS", "IN", "OUT", "COST", "TITLE")]
    for s in store.sessions(limit=args.limit):
        updated = s.updated_at.strftime("%Y-%m-%d %H:%M:%S") if s.updated_at else "-"
        rows.append((s.session_id, updated, s.model or "-", str(s.message_count), str(s.input_tokens),
                     str(s.output_tokens), _cost(s.cost, s.uncosted), s.title or ""))
    _table(rows)
    return 0


def _export(store: Store, args: argparse.Namespace) -> int:
    ids = _export_ids(store, args)
    if args.out is None:
        out = _stdout_bytes()
        for line in store.export(ids[0], until=args.until):
            out.write(line)
        out.flush()
        return 0
    folder = Path(args.out)
    if folder.exists() and not folder.is_dir():
        raise StoreError(f"--out {args.out}: not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    bar = make_progress(sys.stderr, len(ids), "export", unit="session")
    written = 0
    try:
        for session_id in ids:
            target = folder / session_file_name(session_id)
            partial = target.with_name(target.name + ".part")
            # Written aside and renamed: an interrupted run leaves no truncated history behind.
            with open(partial, "wb") as out:
                for line in store.export(session_id, until=args.until):
                    out.write(line)
                    written += len(line)
            os.replace(partial, target)
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    print(f"{len(ids)} session(s) exported to {folder} ({written:,} bytes)", file=sys.stderr)
    return 0


def _export_ids(store: Store, args: argparse.Namespace) -> list[str]:
    """The sessions ``store export`` writes: those named, or ``--all`` (``--limit`` of them)."""
    if args.all and args.sessions:
        raise StoreError("give SESSION_IDs or --all, not both")
    if args.limit is not None and not args.all:
        raise StoreError("--limit chooses among all sessions: add --all")
    if args.all:
        ids = [s.session_id for s in store.sessions(limit=args.limit)]
    elif args.sessions:
        ids = list(dict.fromkeys(args.sessions))
        for session_id in ids:
            store.session(session_id)  # NotFoundError, before anything is written
    else:
        raise StoreError("nothing to export: give a SESSION_ID, several with --out, or --all --out DIR")
    if args.out is None and (args.all or len(ids) > 1):
        raise StoreError("several sessions go to files: add --out DIR (one session prints to "
                         "standard output)")
    if args.until is not None and len(ids) != 1:
        raise StoreError("--until names an event of one session: give one SESSION_ID")
    return ids


_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,200}")


def session_file_name(session_id: str) -> str:
    """The file a session is exported to: ``<id>.jsonl``, the id percent-encoded where it holds
    anything but letters, digits, ``.``, ``_`` and ``-`` (a ``/`` or a leading dot), so every
    session has its own file and ``store import`` of it gets the same id back only when the id
    was plain (else pass ``--session``)."""
    if _SAFE_NAME.fullmatch(session_id):
        return session_id + ".jsonl"
    return urllib.parse.quote(session_id, safe="")[:240] + ".jsonl"


def _show(store: Store, args: argparse.Namespace) -> int:
    write_rendering(store.load(args.session, until=args.until), args, title=args.session)
    return 0


def _search(store: Store, args: argparse.Namespace) -> int:
    for hit in store.search(args.text, session_id=args.session, limit=args.limit):
        where = f"{hit.session_id} {hit.event_id}"
        where += " tool output" if hit.part_index < 0 else f" parts[{hit.part_index}] {hit.part_type}"
        print(f"{where}: {printable(' '.join(hit.snippet.split()))}")
    return 0


def _pending(store: Store, args: argparse.Namespace) -> int:
    rows: list[tuple[str, ...]] = [("SESSION", "CALL_ID", "TOOL", "CALLED_AT", "MESSAGE")]
    for call in store.pending_tool_calls(args.session):
        rows.append((call.session_id, call.call_id, call.name,
                     call.created_at.strftime("%Y-%m-%d %H:%M:%S"), call.message_id))
    _table(rows)
    return 0


def _stats(store: Store, args: argparse.Namespace) -> int:
    totals = store.usage(args.session)
    rows: list[tuple[str, ...]] = [("SESSION", "MODEL", "CALLS", "IN", "CACHED", "OUT", "REASONING", "COST")]
    by_model: dict[str | None, list[Any]] = {}
    for u in totals:
        rows.append((u.session_id, u.model or "-", str(u.messages), str(u.input_tokens),
                     str(u.cache_read_tokens), str(u.output_tokens), str(u.reasoning_tokens),
                     _cost(u.cost, u.uncosted)))
        acc = by_model.setdefault(u.model, [0, 0, 0, 0, 0, None, 0])
        for i, value in enumerate((u.messages, u.input_tokens, u.cache_read_tokens, u.output_tokens,
                                   u.reasoning_tokens)):
            acc[i] += value
        if u.cost is not None:
            acc[5] = u.cost if acc[5] is None else acc[5] + u.cost
        acc[6] += u.uncosted
    for model, acc in sorted(by_model.items(), key=lambda kv: kv[0] or ""):
        rows.append(("(all)", model or "-", *(str(v) for v in acc[:5]), _cost(acc[5], acc[6])))
    _table(rows)
    return 0


def _fork(store: Store, args: argparse.Namespace) -> int:
    print(store.fork(args.session, args.event, args.new_id))
    return 0


# -- output -----------------------------------------------------------------------------------


def make_progress(stream: IO[str], total: int, desc: str, *, unit: str = "B") -> Any | None:
    """A progress bar on ``stream`` (of bytes, or of ``unit``) when it is a terminal and ``tqdm``
    (the ``progress`` extra) is installed; ``None`` otherwise (plain output: the summary line
    alone)."""
    if not stream.isatty():
        return None
    try:
        tqdm = importlib.import_module("tqdm")
    except ImportError:
        return None
    return tqdm.tqdm(total=total, unit=unit, unit_scale=unit == "B", desc=desc, file=stream,
                     leave=False)


def _cost(cost: Decimal | None, uncosted: int) -> str:
    if cost is None:
        return "-" if not uncosted else f"? ({uncosted} unpriced)"
    text = f"${cost:.6f}".rstrip("0").rstrip(".")
    return f"{text} (+{uncosted} unpriced)" if uncosted else text


def _table(rows: list[tuple[str, ...]]) -> None:
    shown = [[printable(cell) for cell in row] for row in rows]
    widths = [max(len(r[i]) for r in shown) for i in range(len(shown[0]))]
    for row in shown:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def _stdout_bytes() -> IO[bytes]:
    sys.stdout.flush()
    return sys.stdout.buffer
