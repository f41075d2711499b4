"""The turn design Anthropic Messages and Bedrock Converse share, written once for both.

Both APIs alternate ``user`` and ``assistant`` turns of content blocks, send tool results as
blocks of a user turn, and have no developer role, so their encoders walk a history the same
way: consecutive tool results share one user turn, user content right after them joins it,
developer messages join the user or tool turn before them (:func:`default_joins`), and a mark an
imported request left (``turn``: ``new`` / ``join``, ``message``: its extra keys) overrides that
default. Their request readers track the same state to record only where a body differs from it
(:class:`TurnPlacement`). A tool call goes out under the id its accepted issuer gave it, else the
id it arrived with where the target's id rules admit it, else its canonical id
(:meth:`BlockEncoder.call_id`).

What differs is each adapter's: its blocks, its system prompt and its tool results.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar, Literal, Protocol, assert_never

from partwire._base import ProviderData
from partwire._json import parse_json
from partwire.adapters._calls import OrphanCheck, orphan_loss
from partwire.adapters._kernel import at_path
from partwire.adapters._losses import LossCollector
from partwire.adapters._provenance import accepted_issuers, data_of, first_accepted
from partwire.errors import WireFormatError
from partwire.history import History, HistoryEvent, NonMessageEvent
from partwire.messages import (
    AssistantMessage,
    DeveloperMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from partwire.parts import Part
from partwire.projection import LossAction

__all__ = [
    "BlockEncoder",
    "Role",
    "Turn",
    "TurnPlacement",
    "TurnWalk",
    "default_joins",
    "path",
    "read_messages",
]

Role = Literal["user", "assistant", "system"]


def path(i: int, j: int, suffix: str = "") -> str:
    """``history[i].parts[j]`` (``j < 0``: the message itself), made only when a loss is reported."""
    return f"history[{i}]{f'.parts[{j}]' if j >= 0 else ''}{suffix}"


def default_joins(kind: str, turn_role: str | None, last_kind: str | None) -> bool:
    """Whether a canonical message of ``kind`` goes into the current wire turn by default.

    Consecutive tool results share one user turn, and user content right after them joins it (the
    results first, as both APIs want them); developer messages join the user or tool turn before
    them. ``to_wire`` applies this, and ``from_wire_request`` records only where a request
    differs from it, so both directions agree by construction.
    """
    if turn_role != "user":
        return False
    if kind == "developer":
        return True
    return kind in ("tool", "user") and last_kind == "tool"


# -- reading requests -------------------------------------------------------------------------


class _Reader(Protocol):
    def message(self, message: dict[str, Any], i: int) -> list[HistoryEvent]: ...


def read_messages(reader: _Reader, messages: list[Any], history: list[HistoryEvent],
                  api: str) -> None:
    """Append what ``reader`` makes of each wire message to ``history``; an error says which
    message (``messages[i]``)."""
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise WireFormatError(api, "request", "not an object", f"messages[{i}]")
        try:
            history.extend(reader.message(message, i))
        except BaseException as exc:
            raise at_path(exc, api, "request", f"messages[{i}]")  # noqa: B904 (at_path chains it)


class TurnPlacement:
    """The turn state a request reader tracks, as the encoder will track it."""

    def __init__(self) -> None:
        self.turn_role: str | None = None
        """The role of the wire turn being read (``None`` before the first)."""
        self.last_kind: str | None = None
        """The kind of the last message read: ``user``, ``tool``, ``assistant``, ``system``."""

    def placed(self, kind: str, role: str, starts: bool, marks: dict[str, Any]) -> dict[str, Any]:
        """``marks`` with a ``turn`` mark where a message that ``starts`` a wire turn (or not)
        would be placed otherwise by default."""
        joins = default_joins(kind, self.turn_role, self.last_kind)
        if starts and joins:
            marks = {**marks, "turn": "new"}
        elif not starts and not joins:
            marks = {**marks, "turn": "join"}
        if starts:
            self.turn_role = role
        self.last_kind = kind
        return marks


# -- writing blocks ---------------------------------------------------------------------------


class BlockEncoder:
    """What both part encoders keep for one projection: the accepted issuers, the losses, and
    the id each tool call is sent under."""

    ISSUER: ClassVar[str]
    """The adapter's own issuer."""
    WIRE: ClassVar[str]
    """The API's name in a loss's reason (``Anthropic``, ``Converse``)."""
    TAKER: ClassVar[str]
    """Who takes only a JSON object as tool input, in a loss's reason."""

    def __init__(self, *, issuers: Collection[str], losses: LossCollector,
                 foreign_thinking: str = "drop", resolve_file: Any = None) -> None:
        # The adapter's own ids first, then the aliases in a stable order.
        self.issuers, self.issuer_order = accepted_issuers(issuers, self.ISSUER)
        self.only_own = self.issuer_order == (self.ISSUER,)
        self.losses = losses
        self.foreign_thinking = foreign_thinking
        self.resolve_file = resolve_file
        # Canonical call id -> the id sent for it, filled as calls go by (results come after).
        self.wire_ids: dict[str, str] = {}

    @staticmethod
    def admits_call_id(call_id: str) -> bool:
        """Whether the API's rules for tool-call ids admit ``call_id``."""
        raise NotImplementedError

    def lose(self, i: int, j: int, part_type: str, action: LossAction, reason: str,
             message_id: str, suffix: str = "") -> None:
        """Record a loss of part ``j`` of ``history[i]`` (``j < 0``: of the message)."""
        self.losses.add(path(i, j, suffix), part_type, action, reason, message_id)

    def own(self, issuer: str, part_type: str, i: int, j: int, message_id: str) -> bool:
        """Whether a provider-run tool block from ``issuer`` may be sent; a loss otherwise."""
        if issuer in self.issuers:
            return True
        self.lose(i, j, part_type, "dropped",
                  f"a server tool block from {issuer} can only be replayed to {issuer}", message_id)
        return False

    def call_id(self, ids: Mapping[str, str], canonical: str, i: int, j: int,
                message_id: str) -> str:
        """The id a tool call goes out under, remembered for its result: the accepted issuer's
        own, else one the API's id rules admit, else the canonical id (``id_mapped``)."""
        if not ids:
            wire_id = None
        elif self.only_own:
            wire_id = ids.get(self.ISSUER) or first_accepted(ids, (), self.admits_call_id)
        else:
            wire_id = first_accepted(ids, self.issuer_order, self.admits_call_id)
        if wire_id is None:
            wire_id = canonical
            if ids:
                self.lose(i, j, "tool_call", "id_mapped",
                          f"the call id from {', '.join(sorted(ids))} breaks {self.WIRE}'s id "
                          f"rules; the canonical id {canonical} is sent", message_id)
        self.wire_ids[canonical] = wire_id
        return wire_id

    def call_input(self, text: str, i: int, j: int, message_id: str) -> dict[str, Any]:
        """A tool call's arguments as the JSON object both APIs take; ``{}`` (``rewritten``) for
        text that is not one."""
        try:
            arguments = parse_json(text) if text else {}
        except ValueError:
            arguments = None
        if type(arguments) is not dict:
            if text:  # anything but the empty string is rewritten, whitespace included
                self.lose(i, j, "tool_call", "rewritten",
                          "the arguments are not a JSON object (truncated or malformed) and "
                          f"{self.TAKER} takes only an object; sent as {{}}", message_id)
            return {}
        return arguments


# -- the walk ---------------------------------------------------------------------------------


class Turn:
    """One wire message being built."""

    __slots__ = ("blocks", "message", "origin", "role")

    def __init__(self, role: Role, origin: int) -> None:
        self.role = role
        self.origin = origin  # the index of the history message that opened it
        self.blocks: list[Any] = []
        # The wire message itself; an encoder may replace "content" when it closes the turn.
        self.message: dict[str, Any] = {"role": role, "content": self.blocks}


class TurnWalk(BlockEncoder):
    """The walk over a history both encoders make, with the turn state of :func:`default_joins`.

    A subclass writes ``tool_message``, ``system_message`` and ``parts``, and ``push`` (what opening a turn does
    to the turn before it); ``run`` walks with :meth:`walk` and then closes the last turn.
    """

    NAME: ClassVar[str]
    """The adapter's name in a loss's reason (``Anthropic``, ``Bedrock``)."""
    EMPTY_ASSISTANT: ClassVar[str]
    """Why an aborted or failed assistant message with no parts is not sent."""
    turn_class: ClassVar[type[Turn]] = Turn

    def start(self, history: History) -> None:
        """Set up the walk over ``history``."""
        self.history = history
        self.orphan = OrphanCheck(history)
        self.current: Turn | None = None  # the turn being written
        self.opened = 0  # turns opened so far
        self.last_kind: str | None = None
        self.at = -1  # the index of the history event being encoded

    def walk(self) -> None:
        """Encode every event of the history, in order."""
        for i, event in enumerate(self.history):
            self.at = i
            # The commonest classes by identity first: a missed isinstance on a pydantic class
            # goes through ABCMeta and costs more than mapping a whole part.
            kind = type(event)
            if kind is ToolMessage:
                self.tool_message(event, i)  # type: ignore[arg-type]
                continue
            if kind is AssistantMessage:
                self.assistant_message(event, i)  # type: ignore[arg-type]
                continue
            if kind is UserMessage:
                self.user_message(event, i)  # type: ignore[arg-type]
                continue
            if kind is SystemMessage:
                self.system_message(event, i)  # type: ignore[arg-type]
                continue
            if kind is DeveloperMessage:  # Responses' instructions in its input, among others
                self.developer_message(event, i)  # type: ignore[arg-type]
                continue
            match event:
                case ToolMessage():
                    self.tool_message(event, i)
                case AssistantMessage():
                    self.assistant_message(event, i)
                case UserMessage():
                    self.user_message(event, i)
                case SystemMessage():
                    self.system_message(event, i)
                case DeveloperMessage():
                    self.developer_message(event, i)
                case NonMessageEvent():
                    continue  # records for the application and for replay; never sent
                case _:
                    assert_never(event)

    # -- turns --------------------------------------------------------------------------------

    def turn(self, kind: str, role: Role, pd: ProviderData | None) -> Turn:
        """The turn a message of ``kind`` goes into: the current one when it joins it (by
        default or by its ``turn`` mark), else a new one."""
        current = self.current
        if pd is None:
            if kind == "tool" and self.last_kind == "tool":
                assert current is not None
                return current  # another result of the same batch: the commonest join
            if kind == "assistant" or current is None or current.role != "user":
                self.last_kind = kind  # nothing to join (only user turns are joined)
                return self.open_turn(role, None)
        joins = default_joins(kind, current.role if current is not None else None, self.last_kind)
        marks = data_of(pd, self.issuers) if pd is not None else None
        if marks:
            placed = marks.get("turn")
            if placed == "new":
                joins = False
            elif placed == "join":
                joins = True
        self.last_kind = kind
        if joins and current is not None and current.role == role:
            return current
        return self.open_turn(role, marks)

    def open_turn(self, role: Role, marks: Mapping[str, Any] | None) -> Turn:
        """A new turn, opened after the current one."""
        turn = self.turn_class(role, self.at)
        if marks:
            self.marked(turn, marks)
            extra = marks.get("message")
            if isinstance(extra, dict):
                # Keys of a wire message beyond role and content, kept from an import.
                turn.message = {**extra, **turn.message}
        self.push(turn)
        self.current = turn
        self.opened += 1
        return turn

    def marked(self, turn: Turn, marks: Mapping[str, Any]) -> None:
        """Apply the adapter's own marks of an imported turn (none by default)."""

    def push(self, turn: Turn) -> None:
        """Keep ``turn``, the one opened after :attr:`current`."""
        raise NotImplementedError

    # -- messages ---------------------------------------------------------------------------

    def user_message(self, message: UserMessage, i: int) -> None:
        """A user message: its parts in a user turn."""
        self.parts(self.turn("user", "user", message.provider_data), message.parts, i, message.id)

    def assistant_message(self, message: AssistantMessage, i: int) -> None:
        """An assistant message: its parts in an assistant turn; none when it has no parts
        because it was aborted or failed (a loss)."""
        fields = message.__dict__
        parts = fields["parts"]
        if not parts and fields["status"] in ("aborted", "error"):
            self.lose(i, -1, "assistant_message", "dropped",
                      f"an {message.status} message with no content; {self.EMPTY_ASSISTANT}",
                      message.id)
            return
        self.parts(self.turn("assistant", "assistant", fields["provider_data"]), parts, i,
                   fields["id"])

    def developer_message(self, message: DeveloperMessage, i: int) -> None:
        """A developer message: its parts join the user or tool turn before it, else open a
        user turn (either way a loss: neither API has a developer role)."""
        before = self.opened
        turn = self.turn("developer", "user", message.provider_data)
        if self.opened == before:
            self.lose(i, -1, "developer_message", "attached",
                      f"{self.WIRE} has no developer role; its parts join the user or tool turn "
                      "before it", message.id)
        else:
            self.lose(i, -1, "developer_message", "downgraded",
                      f"{self.WIRE} has no developer role; sent as a user turn", message.id)
        self.parts(turn, message.parts, i, message.id)

    def orphaned(self, call_id: str, i: int, message_id: str) -> bool:
        """Whether the tool result ``history[i]`` answers no call of the history (a loss).
        Callers ask only for a call not sent yet (``call_id not in self.wire_ids``), the rare
        case, so the common one costs no call."""
        if call_id not in self.wire_ids and self.orphan(call_id):
            orphan_loss(self.losses, i, call_id, message_id, self.NAME)
            return True
        return False

    def tool_message(self, message: ToolMessage, i: int) -> None:
        """A tool result, as the API takes it."""
        raise NotImplementedError

    def system_message(self, message: SystemMessage, i: int) -> None:
        """A system message, as the API takes it."""
        raise NotImplementedError

    def parts(self, turn: Turn, parts: Sequence[Part], i: int, message_id: str,
              system: bool = False) -> None:
        """A message's parts as blocks of ``turn``."""
        raise NotImplementedError
