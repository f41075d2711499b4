"""Decoding history lines: the fast path, the tolerant slow path, and the problems it reports.

Every line first goes through :data:`validate_line` (pydantic-core's own ``validate_json`` for
``EVENT_ADAPTER``) and nothing else: a valid current line costs one call into pydantic-core.
Only a line that fails takes the slow path, which parses it with :mod:`json`, migrates older
versions, and works out what it can keep.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any, Literal, cast

from pydantic import BaseModel, TypeAdapter, ValidationError

from partwire._base import json_kind
from partwire._limits import MAX_DEPTH, TooLong, exceeds_depth
from partwire.errors import DecodeError
from partwire.history import (
    EVENT_ADAPTER,
    EVENT_TYPES,
    NON_MESSAGE_CLASSES,
    HistoryEvent,
    UnknownEvent,
)
from partwire.ids import derive_id
from partwire.messages import FILLED_IN, MESSAGE_CLASSES, SCHEMA_VERSION
from partwire.parts import PART_ADAPTER, PART_TYPES, UnknownPart

from .migrations import MigrationContext, MigrationError, is_legacy, migrate

__all__ = [
    "LineDecoder",
    "Problem",
    "ProblemKind",
    "Record",
    "Source",
    "is_complete_line",
    "open_source",
    "validate_line",
]

ProblemKind = Literal[
    "torn_line",
    "invalid_json",
    "not_utf8",
    "unknown_event",
    "unknown_part",
    "future_version",
    "invalid_field",
    "too_long",
    "too_deep",
    "migrated",
    "missing_field",
]
"""What kind of problem a line had. ``migrated`` is reserved: migration is normal, not reported.

``too_long`` and ``too_deep`` are lines refused by a limit (``max_line_bytes``, ``max_depth``);
a ``too_long`` line was never read, so it cannot be written back: ``rewrite`` refuses it.
``missing_field``: a line without its ``v``, ``id`` or ``created_at``, read with the value filled
in the same way on every load (a strict read refuses it).
"""

Source = str | os.PathLike[str] | IO[bytes]
"""A path, or a binary file object opened for reading."""


@dataclass(frozen=True, slots=True)
class Problem:
    """Something the reader could not take at face value on one line, and what it did instead."""

    file: str | None
    """The file read, when there is one."""
    line: int
    """1-based line number."""
    message: str
    """What is wrong, naming the location inside the line when there is one."""
    path: str | None = None
    """Location inside the line, e.g. ``parts[2]`` or ``usage.input_tokens``."""
    kind: ProblemKind = "invalid_field"
    """What kind of problem it is."""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.file is not None else str(self.line)
        return f"{where}: {self.message}"


@dataclass(frozen=True, slots=True)
class Record:
    """One decoded line, with what it was on disk and how well it was understood."""

    line: int
    """1-based line number."""
    event: HistoryEvent
    """The decoded event; an ``UnknownEvent`` when the line could not be understood."""
    raw: bytes
    """The exact bytes of the line, without its newline."""
    understood: bool = True
    """False when any part of the line was kept as unknown (it is then written back from ``raw``)."""
    migrated: bool = False
    """Whether the line was of an older schema version and was migrated."""
    problems: tuple[Problem, ...] = ()
    """Everything reported about the line."""


@dataclass(slots=True)
class _Issue:
    kind: ProblemKind
    detail: str
    path: str | None = None
    cause: BaseException | None = None


@dataclass(slots=True)
class _Decoded:
    event: HistoryEvent
    issues: list[_Issue] = field(default_factory=list)
    migrated: bool = False


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# The fields a line must carry (DESIGN §6: ids are stored, never made up on load).
_REQUIRED_ORDER = ("v", "id", "created_at")
_REQUIRED = frozenset(_REQUIRED_ORDER)
_DATETIME: TypeAdapter[datetime] = TypeAdapter(datetime)

validate_line: Callable[[bytes], HistoryEvent] = EVENT_ADAPTER.validator.validate_json
"""One line's bytes to its event, or :class:`ValidationError`: the fast path.

pydantic-core's method, not ``TypeAdapter.validate_json``, whose Python wrapper costs about 0.2 us
a line (2-4% of a load) and does nothing here that the defaults don't.
"""


def is_complete_line(raw: bytes) -> bool:
    """Whether ``raw`` holds a whole JSON object (a final line without newline that is not is torn)."""
    try:
        return isinstance(json.loads(raw.decode("utf-8")), dict)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False


@contextmanager
def open_source(source: Source) -> Iterator[tuple[IO[bytes], str | None]]:
    """Open a path for binary reading (or take a file object as is) and name it for problems."""
    if isinstance(source, str | os.PathLike):
        path = os.fspath(source)
        with open(path, "rb") as handle:
            yield handle, path
    else:
        name = getattr(source, "name", None)
        yield source, name if isinstance(name, str) else None


class LineDecoder:
    """Decodes the lines of one file in order, carrying the migration context between them."""

    def __init__(self, *, file: str | None = None, strict: bool = False, max_depth: int = MAX_DEPTH) -> None:
        self.file = file
        """The file read, named in problems and errors."""
        self.strict = strict
        """Raise :class:`DecodeError` on the first problem instead of reporting it."""
        self.max_depth = max_depth
        """Lines nested deeper than this are refused before they are parsed."""
        self.check_depth = max_depth < MAX_DEPTH
        """Whether even the fast path must scan for depth: pydantic-core's parser stops near
        ``MAX_DEPTH`` on its own, so only a lower limit needs a scan of every line."""
        self.context = MigrationContext(file=file)
        """State carried between lines for migrations."""

    def record(self, chunk: bytes | TooLong, line_no: int) -> Record | None:
        """Decode one line as read from the file (newline included); ``None`` for a blank line."""
        if isinstance(chunk, TooLong):
            return self.too_long(chunk, line_no)
        has_newline = chunk.endswith(b"\n")
        raw = chunk[:-1] if has_newline else chunk
        if self.check_depth and exceeds_depth(raw, self.max_depth):
            return self.slow(raw, line_no, final=not has_newline)
        filled = FILLED_IN[0]
        try:
            event = validate_line(chunk)
        except ValidationError:
            return self.slow(raw, line_no, final=not has_newline)
        if FILLED_IN[0] != filled:  # the line lacks its v, id or created_at: see _required
            return self.slow(raw, line_no, final=not has_newline)
        return Record(line_no, event, raw)

    def too_long(self, item: TooLong, line_no: int) -> Record:
        """The record of a line over the size limit: an ``UnknownEvent`` saying so, nothing read."""
        issue = _Issue("too_long", item.describe())
        if self.strict:
            raise DecodeError(issue.detail, file=self.file, line=line_no)
        event = UnknownEvent(
            id=derive_id("too_long", str(line_no), str(item.size)),
            created_at=_EPOCH,
            raw=None,
            problem=issue.detail,
        )
        return Record(line_no, event, b"", False, False, (self._problem(issue, line_no),))

    def slow(self, raw: bytes, line_no: int, *, final: bool = False) -> Record | None:
        """Decode a line the fast path refused; ``final`` marks a last line with no newline."""
        if not raw.strip():
            return None
        decoded = self._decode(raw, line_no, final)
        problems = tuple(self._problem(issue, line_no) for issue in decoded.issues)
        if self.strict and decoded.issues:
            first = decoded.issues[0]
            raise DecodeError(first.detail, file=self.file, line=line_no, path=first.path) from first.cause
        return Record(line_no, decoded.event, raw, not decoded.issues, decoded.migrated, problems)

    def _problem(self, issue: _Issue, line_no: int) -> Problem:
        message = f"{issue.detail} at {issue.path}" if issue.path else issue.detail
        return Problem(self.file, line_no, message, issue.path, issue.kind)

    def _decode(self, raw: bytes, line_no: int, final: bool) -> _Decoded:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            kind: ProblemKind = "torn_line" if final else "not_utf8"
            detail = f"not UTF-8: {exc.reason} at byte {exc.start}"
            return self._unreadable(raw, line_no, _Issue(kind, _torn(detail, final), cause=exc))
        if exceeds_depth(raw, self.max_depth):
            detail = (f"JSON nested deeper than {self.max_depth} levels (raise max_depth, or --max-depth "
                      f"on the command line, to read it)")
            return self._unreadable(raw, line_no, _Issue("too_deep", detail))
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError) as exc:
            kind = "torn_line" if final else "invalid_json"
            if isinstance(exc, json.JSONDecodeError):
                # Some messages end in "at" already ("Unterminated string starting at").
                at = "" if exc.msg.endswith(" at") else " at"
                detail = f"invalid JSON: {exc.msg}{at} column {exc.colno}"
            else:
                detail = f"invalid JSON: {exc}"
            return self._unreadable(raw, line_no, _Issue(kind, _torn(detail, final), cause=exc))
        if not isinstance(obj, dict):
            kind = "torn_line" if final else "invalid_json"
            issue = _Issue(kind, _torn(f"a JSON {json_kind(obj)}, not an object", final))
            return self._unreadable(raw, line_no, issue)
        try:
            return self._decode_object(obj, raw, line_no)
        except (ValidationError, RecursionError) as exc:
            # Only a value nested deeper than pydantic-core walks gets here (as an unknown
            # part's or event's raw JSON): the line is kept as text.
            detail = "nested too deeply to keep as JSON; kept as text"
            return self._unreadable(raw, line_no, _Issue("too_deep", detail, cause=exc))

    def _unreadable(self, raw: bytes, line_no: int, issue: _Issue) -> _Decoded:
        text = raw.decode("utf-8", "replace")
        event = UnknownEvent(
            id=derive_id("unreadable", str(line_no), text),
            created_at=_EPOCH,
            original_type=None,
            raw=text,
            problem=issue.detail,
        )
        return _Decoded(event, [issue])

    def _decode_object(self, obj: dict[str, Any], raw: bytes, line_no: int) -> _Decoded:
        version = self._version(obj)
        if isinstance(version, _Issue):
            return self._kept(obj, raw, line_no, [version])
        if version > SCHEMA_VERSION:
            issue = _Issue("future_version", f"schema version {version} is newer than {SCHEMA_VERSION}",
                           path="v")
            return self._kept(obj, raw, line_no, [issue])
        migrated = version < SCHEMA_VERSION
        line = obj
        if migrated:
            self.context.line, self.context.raw = line_no, raw
            try:
                line = migrate(obj, version, self.context)
            except MigrationError as exc:
                failure = _Issue("invalid_field", f"cannot migrate version {version}: {exc.message}",
                                 exc.path, exc)
                return self._kept(obj, raw, line_no, [failure])
        model, refusal = self._model(line)
        if refusal is not None:
            return self._kept(obj, raw, line_no, [refusal])
        assert model is not None
        issues: list[_Issue] = []
        if not migrated and not line.keys() >= _REQUIRED:
            line = self._required(line, raw, line_no, issues)
        if isinstance(line.get("parts"), list) and model in MESSAGE_CLASSES.values():
            line = {**line, "parts": [self._part(p, i, issues) for i, p in enumerate(line["parts"])]}
        try:
            event = cast("HistoryEvent", model.model_validate(line))
        except RecursionError as exc:
            return self._kept(obj, raw, line_no, [_Issue("too_deep", f"invalid {_label(line)}: nested too deeply",
                                                          cause=exc)])
        except ValidationError as exc:
            issues.extend(
                _Issue("invalid_field", f"invalid {_label(line)}: {err['msg']}", _path(err["loc"], line), exc)
                for err in exc.errors(include_url=False)
            )
            return self._kept(obj, raw, line_no, issues)
        return _Decoded(event, issues, migrated)

    def _required(self, line: dict[str, Any], raw: bytes, line_no: int, issues: list[_Issue]) -> dict[str, Any]:
        """``line`` with its missing ``v``, ``id`` or ``created_at`` filled in, each reported.

        The same line always gets the same values: the id is derived from the line's number and
        bytes, the time is the epoch, the version the current one. A strict read refuses the line.
        """
        filled = dict(line)
        for name in _REQUIRED_ORDER:
            if name in line:
                continue
            if name == "v":
                filled["v"], fill = SCHEMA_VERSION, f"read as version {SCHEMA_VERSION}"
            elif name == "id":
                filled["id"] = derive_id("missing_id", str(line_no), raw.decode("utf-8", "replace"))
                fill = f"given the id {filled['id']}, derived from the line, the same on every load"
            else:
                filled["created_at"], fill = _EPOCH, "given the time 1970-01-01T00:00:00Z"
            issues.append(_Issue("missing_field", f"{_label(line)} has no {name} (required); {fill}", name))
        return filled

    def _version(self, obj: dict[str, Any]) -> int | _Issue:
        if is_legacy(obj):
            return 0
        v = obj.get("v", SCHEMA_VERSION)
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            return _Issue("invalid_field", f"schema version must be a non-negative integer, not {_short(v)}",
                          path="v")
        return v

    def _model(self, obj: dict[str, Any]) -> tuple[type[BaseModel] | None, _Issue | None]:
        tag = obj.get("type")
        if not isinstance(tag, str):
            return None, _Issue("invalid_field", f"event type must be a string, not {_short(tag)}", path="type")
        if tag not in EVENT_TYPES:
            return None, _Issue("unknown_event", f"unknown event type {_short(tag)}", path="type")
        if tag != "message":
            return NON_MESSAGE_CLASSES[tag], None
        role = obj.get("role")
        if not isinstance(role, str):
            return None, _Issue("invalid_field", f"message role must be a string, not {_short(role)}", path="role")
        if role not in MESSAGE_CLASSES:
            return None, _Issue("unknown_event", f"unknown message role {_short(role)}", path="role")
        return MESSAGE_CLASSES[role], None

    def _part(self, part: Any, index: int, issues: list[_Issue]) -> Any:
        where = f"parts[{index}]"
        if not isinstance(part, dict):
            issues.append(_Issue("invalid_field", f"part is a JSON {json_kind(part)}, not an object", where))
            return UnknownPart(original_type=None, raw=part)
        tag = part.get("type")
        if not isinstance(tag, str) or tag not in PART_TYPES:
            issues.append(_Issue("unknown_part", f"unknown part type {_short(tag)}", where))
            return UnknownPart(original_type=tag if isinstance(tag, str) else None, raw=part)
        try:
            return PART_ADAPTER.validate_python(part)
        except RecursionError:
            issues.append(_Issue("too_deep", f"invalid {tag} part (nested too deeply)", where))
            return UnknownPart(original_type=tag, raw=None)
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            inner = _path(err["loc"], part, tagged=True)
            detail = f"invalid {tag} part ({inner}: {err['msg']})" if inner else f"invalid {tag} part ({err['msg']})"
            issues.append(_Issue("invalid_field", detail, where, exc))
            return UnknownPart(original_type=tag, raw=part)

    def _kept(self, obj: dict[str, Any], raw: bytes, line_no: int, issues: list[_Issue]) -> _Decoded:
        """The whole line as an UnknownEvent holding the parsed object, id and time kept if usable."""
        event_id = obj.get("id")
        if not isinstance(event_id, str):
            event_id = derive_id("unknown", str(line_no), raw.decode("utf-8", "replace"))
        try:
            created_at = _DATETIME.validate_python(obj.get("created_at"))
        except ValidationError:
            created_at = _EPOCH
        claimed = obj.get("type") if isinstance(obj.get("type"), str) else obj.get("role")
        fields: dict[str, Any] = {
            "id": event_id,
            "created_at": created_at,
            "original_type": claimed if isinstance(claimed, str) else None,
            "problem": "; ".join(_describe(i) for i in issues),
        }
        try:
            event = UnknownEvent(raw=obj, **fields)
        except (ValidationError, RecursionError):
            # Nested deeper than pydantic-core walks: keep the line's text, which always fits.
            event = UnknownEvent(raw=raw.decode("utf-8", "replace"), **fields)
        return _Decoded(event, issues)


def _short(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut short: a problem message must stay readable whatever the line holds."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _torn(detail: str, final: bool) -> str:
    return f"torn final line ({detail})" if final else detail


def _describe(issue: _Issue) -> str:
    return f"{issue.detail} at {issue.path}" if issue.path else issue.detail


def _label(obj: dict[str, Any]) -> str:
    tag = obj.get("type")
    return f"{obj.get('role')} message" if tag == "message" else f"{tag} event"


def _path(loc: tuple[int | str, ...], data: Any, *, tagged: bool = False) -> str:
    """``loc`` as ``a.b[2].c``, without the union tags pydantic puts in it.

    pydantic names the member of a tagged union by its tag (``('source', 'url', 'url')`` for a
    URL source's ``url``); the data tells a tag from a field: a tag equals the object's ``type``.
    ``tagged`` says whether ``loc`` itself starts with a tag (validation through a union).
    """
    out = ""
    current: Any = data
    check_tag = tagged
    for item in loc:
        if check_tag and isinstance(current, dict) and item == current.get("type"):
            check_tag = False
            continue
        check_tag = True
        if isinstance(item, int):
            out += f"[{item}]"
            current = current[item] if isinstance(current, list) and 0 <= item < len(current) else None
        else:
            out += f".{item}" if out else str(item)
            current = current.get(item) if isinstance(current, dict) else None
    return out
