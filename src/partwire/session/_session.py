"""The agent loop's bookkeeping: a history, a target, a sink, and the request for the next call."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import (
    AsyncGenerator,
    Callable,
    Generator,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal

from partwire import history as _history
from partwire import messages as _messages
from partwire import streaming as _streaming
from partwire.adapters import get_adapter
from partwire.adapters._kernel import resolve_options
from partwire.codec import Writer, context_messages, load
from partwire.errors import ArgumentError, LossError
from partwire.ids import new_message_id
from partwire.parts import ToolCallPart
from partwire.projection import Loss, Projection, log_losses
from partwire.session._cache import mark_anthropic, mark_bedrock
from partwire.session._projector import Projector
from partwire.session._target import Target
from partwire.settings import RequestSettings
from partwire.switch import check_switch
from partwire.toolstate import tool_call_states

if TYPE_CHECKING:
    from partwire.adapters import Adapter, ToolChoice, ToolSpec
    from partwire.store import Store

__all__ = ["DERIVED_KEY", "CacheMode", "Session", "Target"]

CacheMode = Literal["auto", "manual", "off"]
"""Prompt caching: placed by the session, only where asked (``request(cache_at=...)``), or none."""

DERIVED_KEY = "partwire_derived"
"""The metadata key marking a message the session made up (``interrupted_tool_call``)."""

_HISTORY_PATH = re.compile(r"history\[(\d+)\]")
_MESSAGES = (_messages.SystemMessage, _messages.DeveloperMessage, _messages.UserMessage,
             _messages.AssistantMessage, _messages.ToolMessage)
INTERRUPTED_OUTPUT = "The tool call was interrupted before it returned a result."


class Session:
    """A conversation in progress: its history, where the next request goes, and where it is kept.

    ``append`` adds events (and writes them to the sink); ``request()`` gives the
    :class:`~partwire.projection.Projection` for the next call, reusing the wire messages of the
    previous turns; ``stream``/``astream``/``receive`` fold the provider's answer in. The HTTP
    calls and the tools stay the caller's. See ``docs/session.md``.
    """

    def __init__(
        self,
        target: str | Target,
        *,
        history: Iterable[_history.HistoryEvent] = (),
        tools: Sequence[ToolSpec] | None = None,
        options: Any = None,
        tool_choice: ToolChoice | None = None,
        max_tokens: int | None = None,
        params: Mapping[str, Any] | None = None,
        settings: RequestSettings | Mapping[str, Any] | None = None,
        sink: str | os.PathLike[str] | Writer | None = None,
        store: Store | None = None,
        session_id: str | None = None,
        cache: CacheMode = "auto",
        cache_key: str | None = None,
        summary_role: Literal["user", "system"] = "user",
        context_window: int | None = None,
        strict: bool = False,
        incremental: bool = True,
    ) -> None:
        if cache not in ("auto", "manual", "off"):
            raise ArgumentError("cache", f"expected 'auto', 'manual' or 'off', not {cache!r}",
                                function="Session")
        if store is not None and session_id is None:
            raise ArgumentError("session_id", "a store sink needs session_id=", function="Session")
        self.target = Target.parse(target, tools=tools, options=options, tool_choice=tool_choice,
                                   max_tokens=max_tokens, params=params, settings=settings)
        """Where the next request goes: adapter, model, tools and the rest (:meth:`switch` moves it)."""
        self._events: list[_history.HistoryEvent] = list(history)
        self._writer: Writer | None = None
        self._own_writer = False
        if isinstance(sink, Writer):
            self._writer = sink
        elif sink is not None:
            self._writer = Writer(sink)
            self._own_writer = True
        self._store = store
        self._session_id = session_id
        self._fallback_id: str | None = None
        self.cache: CacheMode = cache
        """Prompt caching: ``auto``, ``manual`` or ``off``."""
        self._cache_key = cache_key
        self.summary_role: Literal["user", "system"] = summary_role
        """The role a compaction's summary is sent with."""
        self.context_window = context_window
        """The model's context window when given (see :meth:`window`)."""
        self.strict = strict
        """Raise :class:`~partwire.errors.LossError` instead of sending a request with losses."""
        self.incremental = incremental
        """Reuse the previous turns' wire messages (off: project the whole context each turn)."""
        self._logged: set[tuple[Any, ...]] = set()
        self._marked_last: int | None = None
        self._context: list[_messages.Message] = []
        # The history index of each context message (a compaction's summary: the compaction's),
        # so losses name what the user holds rather than positions in the context.
        self._at: list[int] = []
        self._shifted = False  # whether some context message is not at its own history index
        self._rebuild_context()
        self._projector = self._make_projector()

    # -- identity and state ---------------------------------------------------------------------

    @property
    def id(self) -> str:
        """The session's id: the store's ``session_id``, else its first event's id (stable across a
        resume), else one made up until there is an event."""
        if self._session_id is not None:
            return self._session_id
        if self._events:
            return self._events[0].id
        if self._fallback_id is None:
            self._fallback_id = new_message_id()
        return self._fallback_id

    @property
    def history(self) -> tuple[_history.HistoryEvent, ...]:
        """Every event, in order (a copy)."""
        return tuple(self._events)

    @property
    def context(self) -> tuple[_messages.Message, ...]:
        """The messages the next request is made of: compaction applied, other events left out."""
        return tuple(self._context)

    @property
    def adapter(self) -> Adapter:
        """The target's adapter module."""
        return get_adapter(self.target.adapter)

    @property
    def full_projections(self) -> int:
        """How many requests projected the whole history (the rest reused earlier turns)."""
        return self._projector.full_projections

    def __len__(self) -> int:
        return len(self._events)

    def __repr__(self) -> str:
        sink = (f" sink={self._writer.path!r}" if self._writer is not None else "") + \
            (f" store={self._store!r}" if self._store is not None else "")
        return f"<Session {self.target} id={self.id!r} events={len(self._events)}{sink}>"

    def close(self) -> None:
        """Close the JSONL writer the session opened (a writer passed in stays open)."""
        if self._writer is not None and self._own_writer:
            self._writer.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- appending ------------------------------------------------------------------------------

    def append(self, *events: _history.HistoryEvent) -> None:
        """Add events to the history and write them to the sink, in order."""
        if not events:
            return
        self._write(events)
        start = len(self._events)
        self._events.extend(events)
        if any(type(e) is _history.CompactionEvent for e in events):
            self._rebuild_context()
            self._projector.reset()
            self._marked_last = None
        else:
            for k, event in enumerate(events, start):
                if isinstance(event, _MESSAGES):
                    self._context.append(event)
                    self._at.append(k)
                    if k != len(self._at) - 1:
                        self._shifted = True

    def _write(self, events: Sequence[_history.HistoryEvent]) -> None:
        if self._writer is not None:
            self._writer.extend(events)
        if self._store is not None:
            assert self._session_id is not None
            last = self._events[-1].id if self._events else None
            self._store.append(self._session_id, events, expect_last=last)

    def _rebuild_context(self) -> None:
        self._context = context_messages(self._events, summary_role=self.summary_role)
        where = {id(e): k for k, e in enumerate(self._events)}
        compaction = max((k for k, e in enumerate(self._events) if type(e) is _history.CompactionEvent),
                         default=-1)
        self._at = [where.get(id(m), compaction) for m in self._context]
        self._shifted = any(k != j for j, k in enumerate(self._at))

    # -- the request ----------------------------------------------------------------------------

    def _kwargs(self) -> dict[str, Any]:
        t = self.target
        params = dict(t.params or {})
        if self.cache != "off" and "prompt_cache_key" not in params and self._takes_cache_key():
            params["prompt_cache_key"] = self._cache_key or self.id
        return {"model": t.model, "tools": t.tools, "tool_choice": t.tool_choice,
                "max_tokens": t.max_tokens, "params": params or None, "settings": t.settings,
                "options": t.options, "session": self.id}

    def _takes_cache_key(self) -> bool:
        name = self.target.adapter
        if name == "openai_responses":
            return True
        if name == "openai_chat":
            opts = resolve_options(self.adapter.Options, self.target.options)
            return getattr(opts, "dialect", None) == "openai"
        return False

    def _make_projector(self) -> Projector:
        incremental = self.incremental
        if self.target.adapter == "openai_responses":
            opts = resolve_options(self.adapter.Options, self.target.options)
            # Chained continuation sends only what follows the last response: nothing to reuse.
            incremental = incremental and getattr(opts, "continuation", "stateless") != "chained"
        # The cache key is fixed for the projector's life (the session id may only become known
        # at the first append, so the kwargs are read again after a reset).
        return Projector(self.adapter, self._kwargs(), incremental=incremental,
                         relocate=self._relocate)

    def request(self, *, cache_at: Sequence[int] | None = None,
                settings: RequestSettings | Mapping[str, Any] | None = None) -> Projection:
        """The :class:`Projection` for the next call: ``to_wire`` of the context, with prompt-cache
        markers (Anthropic: ``cache_control``; Bedrock: ``cachePoint`` blocks, for the models
        that take them; automatic unless ``cache="off"``; ``cache_at`` names wire message indexes
        to mark by hand). ``settings`` override the target's settings
        for this request only, field by field. Each loss is logged once per session."""
        if "session" in self._projector.kwargs and self._projector.kwargs["session"] != self.id:
            self._projector = self._make_projector()
        if settings is None:
            projection = self._projector.project(self._context)
        else:
            own = settings if isinstance(settings, RequestSettings) else RequestSettings.model_validate(settings)
            base = self._projector.kwargs
            # Settings change the body's fields, never its wire messages: the kept turns still hold.
            self._projector.kwargs = {**base, "settings": (self.target.settings or own).merged(own)}
            try:
                projection = self._projector.project(self._context)
            finally:
                self._projector.kwargs = base
        losses = projection.losses  # the projector relocates them into the history
        self._log(self._projector.take_recent())
        if self.strict and losses:
            raise LossError(losses, self.target.adapter)
        request = projection.request
        if self.target.adapter in ("anthropic", "bedrock") and self.cache != "off":
            request = self._mark(request, cache_at)
        elif cache_at:
            raise ArgumentError("cache_at", f"{self.target.adapter} has no cache markers; its "
                                "prompt cache follows the stable prefix by itself",
                                function="Session.request")
        if request is projection.request and losses is projection.losses:
            return projection
        return Projection(request=request, losses=losses)

    def _relocate(self, loss: Loss) -> Loss:
        """``loss`` with its path into :attr:`history`: the projection counts the context's
        messages (compaction applied, other events left out), the user holds the history. The
        projector calls this once per new loss; a kept message's history index never moves
        until the context is rebuilt, and then the projector starts over."""
        if not self._shifted:
            return loss
        found = _HISTORY_PATH.match(loss.path)
        if found is None:
            return loss
        k = int(found.group(1))
        if 0 <= k < len(self._at) and self._at[k] != k:
            return dataclasses.replace(loss, path=f"history[{self._at[k]}]{loss.path[found.end():]}")
        return loss

    def _in_history(self, losses: Sequence[Loss]) -> tuple[Loss, ...]:
        """The losses with paths into :attr:`history` (see :meth:`_relocate`)."""
        return tuple(map(self._relocate, losses))

    def _mark(self, request: dict[str, Any], cache_at: Sequence[int] | None) -> dict[str, Any]:
        messages = request.get("messages")
        n = len(messages) if isinstance(messages, list) else 0
        if cache_at is not None:
            wanted = list(cache_at)
        elif self.cache == "manual" or n == 0:
            wanted = []
        else:
            wanted = [n - 1]
            if self._marked_last is not None and self._marked_last < n - 1:
                wanted.append(self._marked_last)
        in_messages = self._projector.marks(messages if isinstance(messages, list) else [])
        # Marked in place, not in a copy of the whole list (a copy per turn grows with the
        # history): the projector puts the replaced messages back before it reuses its list; a
        # list it does not keep is the request's alone.
        replaced = self._projector.patches if messages is self._projector.before_src else {}
        if self.target.adapter == "bedrock":
            body, marked = mark_bedrock(request, wanted, in_messages=in_messages,
                                        any_model=cache_at is not None, replaced=replaced)
        else:
            body, marked = mark_anthropic(request, wanted, in_messages=in_messages,
                                          replaced=replaced)
        if cache_at is None and self.cache == "auto" and marked:
            self._marked_last = marked[-1]
        return body

    def _log(self, losses: Sequence[Loss]) -> None:
        fresh = []
        for loss in losses:
            at = loss.path.find("]")
            key = (loss.adapter, loss.message_id, loss.part_type, loss.action, loss.reason,
                   loss.path[at:] if loss.message_id else loss.path)
            if key not in self._logged:
                self._logged.add(key)
                fresh.append(loss)
        if fresh:
            log_losses(fresh, session=self.id)

    # -- answers --------------------------------------------------------------------------------

    def receive(self, response: Any) -> _messages.AssistantMessage:
        """A whole response (body or SDK object), decoded, appended and returned."""
        message = self.adapter.from_wire(response, options=self.target.options)
        self.append(message)
        return message

    def stream(self, chunks: Any) -> Generator[_streaming.StreamEvent, None, None]:
        """The adapter's stream events for the UI; the completed message is appended when the
        complete event arrives. A stream that breaks appends the partial message (``error``,
        with an :class:`~partwire.history.ErrorEvent`); one the caller stops reading (``close()``
        or leaving the loop) appends it ``aborted``."""
        with self._recording() as record:
            for event in self.adapter.stream(chunks, options=self.target.options):
                record(event)
                yield event

    async def astream(self, chunks: Any) -> AsyncGenerator[_streaming.StreamEvent, None]:
        """:meth:`stream` over an asynchronous source (the async SDK stream)."""
        with self._recording() as record:
            async for event in self.adapter.astream(chunks, options=self.target.options):
                record(event)
                yield event

    @contextmanager
    def _recording(self) -> Iterator[Callable[[_streaming.StreamEvent], None]]:
        """What :meth:`stream` and :meth:`astream` feed each event to: the completed message is
        appended when its event arrives; if the stream breaks before, the partial message
        (``error``); if the caller stops reading (``GeneratorExit`` at its ``yield``), the partial
        message ``aborted``."""
        acc = _streaming.Accumulator()
        done = False

        def record(event: _streaming.StreamEvent) -> None:
            nonlocal done
            acc.feed(event)
            if type(event) is _streaming.MessageCompleteEvent:
                done = True
                self._finish(event.message, acc)

        try:
            yield record
        except GeneratorExit:
            if not done:
                self.append(acc.abort())
            raise
        except Exception as exc:
            if not done:
                self._broken(acc, exc)
            raise

    def _finish(self, message: _messages.AssistantMessage, acc: _streaming.Accumulator) -> None:
        error = acc.error
        self.append(message, error) if error is not None else self.append(message)

    def _broken(self, acc: _streaming.Accumulator, exc: Exception) -> None:
        error = _history.ErrorEvent(message=f"{type(exc).__name__}: {exc}", provider=self.target.adapter,
                                    code=type(exc).__name__)
        started = bool(acc.message.parts) or acc.error is not None
        if started:
            acc.feed(_streaming.StreamErrorEvent(error))
            self.append(acc.message, error)
        else:
            self.append(error)

    # -- switching ------------------------------------------------------------------------------

    def switch(self, target: str | Target, *, reason: str | None = None,
               tools: Sequence[ToolSpec] | None = None, options: Any = None,
               **fields: Any) -> tuple[Loss, ...]:
        """Move later requests to ``target``; returns what the history loses there.

        :func:`~partwire.switch.check_switch` runs first: content the target cannot take
        raises :class:`~partwire.errors.SwitchRefusedError` and nothing changes. Otherwise a
        :class:`~partwire.history.ModelSwitchEvent` is appended. Tools and other fields carry
        over unless given.
        """
        old = self.target
        carried = {"tools": old.tools if tools is None else tuple(tools), "options": options,
                   "tool_choice": old.tool_choice, "max_tokens": old.max_tokens,
                   "params": old.params, "settings": old.settings}
        carried.update(fields)
        new = Target.parse(target, **carried)
        losses = self._in_history(check_switch(self._context, new.adapter, model=new.model,
                                               tools=new.tools, options=new.options,
                                               settings=new.settings))
        event = _history.ModelSwitchEvent(from_model=old.model_id, to_model=new.model_id, reason=reason,
                                          metadata={"adapter": new.adapter})
        self.target = new
        self._projector = self._make_projector()
        self._marked_last = None
        self.append(event)
        return losses

    # -- compaction -----------------------------------------------------------------------------

    def estimate_tokens(self) -> int:
        """The adapter's offline estimate of the next request's input tokens."""
        t = self.target
        return self.adapter.estimate_input_tokens(self._context, t.tools, model=t.model,
                                                  tool_choice=t.tool_choice, params=t.params,
                                                  settings=t.settings, options=t.options)

    def window(self) -> int | None:
        """The model's context window: ``context_window=`` if given, else from the price data."""
        if self.context_window is not None:
            return self.context_window
        from partwire.pricing import context_window

        return context_window(self.target.model_id)

    def needs_compaction(self, *, threshold: float = 0.8) -> bool:
        """Whether the next request's estimate reaches ``threshold`` of the context window
        (``False`` when the window is unknown)."""
        window = self.window()
        if window is None:
            return False
        return self.estimate_tokens() >= threshold * window

    def compact(self, summary: str, *, upto: str | None = None,
                tokens_after: int | None = None) -> _history.CompactionEvent:
        """Replace the messages up to and including the one with id ``upto`` (default: all of
        them) by ``summary`` in later requests, by appending a
        :class:`~partwire.history.CompactionEvent`. System messages are kept. A cut that would
        separate a tool call from its result raises :class:`~partwire.errors.ArgumentError`."""
        candidates = [e for e in self._events if isinstance(e, _MESSAGES)
                      and not isinstance(e, _messages.SystemMessage)]
        if upto is None:
            replaced = candidates
        else:
            at = next((k for k, m in enumerate(candidates) if m.id == upto), None)
            if at is None:
                raise ArgumentError("upto", f"no message with id {upto!r} in the history",
                                    function="Session.compact")
            replaced = candidates[:at + 1]
        gone = {m.id for m in replaced}
        calls = {p.id for m in replaced if isinstance(m, _messages.AssistantMessage)
                 for p in m.parts if isinstance(p, ToolCallPart)}
        for m in candidates[len(replaced):]:
            if isinstance(m, _messages.ToolMessage) and m.call_id in calls:
                raise ArgumentError("upto", f"{upto!r}: the result {m.id} of call {m.call_id} "
                                    "would be kept without its call; compact up to that result, "
                                    "or to before the call", function="Session.compact")
        before = self.estimate_tokens()
        event = _history.CompactionEvent(summary=summary, replaced_ids=tuple(m.id for m in candidates
                                                                             if m.id in gone),
                                         tokens_before=before, tokens_after=tokens_after)
        self.append(event)
        return event

    # -- resume ---------------------------------------------------------------------------------

    @classmethod
    def open(cls, source: str | os.PathLike[str] | Store, target: str | Target | None = None, *,
             session_id: str | None = None, answer_interrupted: bool = True,
             create: bool = False, **kwargs: Any) -> Session:
        """Reload a persisted session (a JSONL file, or a store with ``session_id``) and go on
        writing to it. ``target`` defaults to the last model the history switched to or was
        answered by. Each tool call that never got a result is answered by a synthetic
        ``aborted`` tool message (``metadata["partwire_derived"] = "interrupted_tool_call"``),
        written to the sink, so every provider accepts the next request.

        Opening is not creating: a missing file raises :class:`~partwire.errors.ArgumentError`
        and a session the store does not hold raises its ``NotFoundError``, unless
        ``create=True``, which starts an empty session there (it then needs ``target``)."""
        if isinstance(source, str | os.PathLike):
            exists = os.path.exists(source)
            if not exists and not create:
                raise ArgumentError("source", f"{os.fspath(source)!r} does not exist; pass create=True "
                                    "(and a target) to start a new session there",
                                    function="Session.open")
            events = load(source) if exists else []
            session = cls(_target_of(events, target, source), history=events, sink=source,
                          session_id=session_id, **kwargs)
        else:
            if session_id is None:
                raise ArgumentError("session_id", "opening a store needs session_id=",
                                    function="Session.open")
            from partwire.store import NotFoundError

            try:
                events = source.load(session_id)
            except NotFoundError as exc:
                if not create:
                    raise NotFoundError(f"session {session_id!r} is not in the store; pass "
                                        "create=True (and a target) to start it") from exc
                events = []
            session = cls(_target_of(events, target, session_id), history=events, store=source,
                          session_id=session_id, **kwargs)
        if answer_interrupted:
            answers = session.interrupted_answers()
            if answers:
                session.append(*answers)
        return session

    def interrupted_answers(self) -> list[_messages.ToolMessage]:
        """Synthetic ``aborted`` results for every tool call that has none, marked as derived in
        their metadata (``open`` appends them; nothing is appended here)."""
        answers = []
        for call_id, state in tool_call_states(self._events).items():
            if state.result is None:
                answers.append(_messages.ToolMessage(
                    call_id=call_id, tool_name=state.call.name, status="aborted",
                    output_text=INTERRUPTED_OUTPUT,
                    metadata={DERIVED_KEY: "interrupted_tool_call"}))
        return answers


def _target_of(events: Sequence[_history.HistoryEvent], target: str | Target | None,
               source: object) -> str | Target:
    if target is not None:
        return target
    # The model the history last switched to wins over the replies after it: a reply names the
    # dated snapshot that answered (gpt-4.1-2025-04-14), the switch the model that was chosen.
    for event in reversed(events):
        if isinstance(event, _history.ModelSwitchEvent):
            adapter = event.metadata.get("adapter")
            head, _, model = event.to_model.partition(":")
            return f"{adapter if isinstance(adapter, str) else head}:{model}"
    for event in reversed(events):
        if isinstance(event, _messages.AssistantMessage) and event.model:
            head, _, model = event.model.partition(":")
            return f"{event.api or head}:{model}"
    what = f"{os.fspath(source)!r}" if isinstance(source, str | os.PathLike) else "the history"
    if not events:
        why = f"{what} holds no events, so it names no model to go on with"
    else:
        why = f"{what} names no model (no assistant message or model switch has one)"
    raise ArgumentError("target", f"{why}; pass target=", function="Session.open")
