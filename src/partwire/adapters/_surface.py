"""Every adapter's public surface, written once: ``to_wire``, ``from_wire``,
``from_wire_request``, ``stream``, ``astream`` and ``estimate_input_tokens`` (DESIGN §7).

An adapter package declares its ``NAME``, its ``Options`` and five hooks, and binds its public
names to what :func:`surface` makes of them::

    _SURFACE = surface(NAME, Options, __name__, build=build_request, decode=decode_response,
                       read=from_wire_request, translator=..., count=estimate_request_tokens,
                       docs=Docs(...))
    to_wire, from_wire, from_wire_request, stream, astream, estimate_input_tokens = _SURFACE

The paragraphs several adapters' docstrings share (the settings shortcuts, the errors a decoder
raises, what an estimate counts) are written here once; an adapter's :class:`Docs` names them
beside its own.

What is the same for every adapter lives here, once: the options read from ``options=`` and
keyword switches (the defaults, with no call, when neither is given), the settings shortcuts,
the collector held off on a large input (:mod:`partwire._collector`), the projection and its
losses, and the boundary (only partwire's errors leave a public decoder).

Each public function is made per adapter, as a closure over that adapter's hooks: a call costs
what the hand-written function it replaces cost, with no wrapper between the caller and the
adapter's own code. Each carries its adapter's module, name, docstring and ``Options`` type, so
``help()`` and the API reference read as if it were written in the adapter's module.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, Protocol, TypeVar

from partwire._collector import hold, release
from partwire.adapters._kernel import (
    Translator,
    arun_stream,
    boundary_error,
    project,
    resolve_options,
    run_stream,
)
from partwire.adapters._losses import LossCollector
from partwire.adapters._settings import resolve_settings
from partwire.adapters.requests import ImportedRequest, SettingsArg, ToolChoice, ToolSpec

if TYPE_CHECKING:
    from partwire.history import History
    from partwire.messages import AssistantMessage
    from partwire.projection import Projection
    from partwire.settings import RequestSettings
    from partwire.streaming import StreamEvent

__all__ = [
    "ASTREAM",
    "ESTIMATE",
    "EVENTS",
    "RAISES",
    "READ",
    "READ_BACK",
    "SAME_BODY",
    "SETTINGS",
    "Docs",
    "Surface",
    "surface",
]

O = TypeVar("O")  # noqa: E741 (the adapter's Options, in every signature below)
O_contra = TypeVar("O_contra", contravariant=True)


# -- the hooks an adapter writes ------------------------------------------------------------


class Build(Protocol[O_contra]):
    """The request body for a history (the ``_request`` module's ``build_request``)."""

    def __call__(self, history: History, options: O_contra, *, model: str | None,
                 tools: Sequence[ToolSpec], settings: RequestSettings,
                 native_choice: Any, params: Mapping[str, Any] | None,
                 issuers: Collection[str] | None, losses: LossCollector,
                 counting: bool) -> dict[str, Any]:
        """``issuers`` ``None`` means the adapter's own; ``model`` is ``None`` only when
        ``counting`` (a body built to be counted, never sent). ``native_choice`` is the API's own
        ``tool_choice`` mapping, or a word ``tool_choice_words`` named, or ``None``."""
        ...


# -- the public functions it gets -----------------------------------------------------------


class ToWire(Protocol[O_contra]):
    """An adapter's ``to_wire``."""

    def __call__(self, history: History, *, model: str, tools: Sequence[ToolSpec] = (),
                 tool_choice: ToolChoice | None = None, max_tokens: int | None = None,
                 params: Mapping[str, Any] | None = None, parallel_tool_calls: bool | None = None,
                 settings: SettingsArg = None, strict: bool = False,
                 accept_issuers: Collection[str] | None = None, session: str | None = None,
                 options: O_contra | Mapping[str, Any] | None = None, **switches: Any) -> Projection:
        """The request body for ``history`` and what it lost."""
        ...


class FromWire(Protocol[O_contra]):
    """An adapter's ``from_wire``."""

    def __call__(self, response: Any, *, options: O_contra | Mapping[str, Any] | None = None,
                 **switches: Any) -> AssistantMessage:
        """One response as an assistant message."""
        ...


class FromWireRequest(Protocol[O_contra]):
    """An adapter's ``from_wire_request``."""

    def __call__(self, request: Any, *, options: O_contra | Mapping[str, Any] | None = None,
                 **switches: Any) -> ImportedRequest:
        """A request body read back."""
        ...


class Stream(Protocol[O_contra]):
    """An adapter's ``stream``."""

    def __call__(self, chunks: Any, *, options: O_contra | Mapping[str, Any] | None = None,
                 **switches: Any) -> Iterator[StreamEvent]:
        """Stream events from any stream input."""
        ...


class AStream(Protocol[O_contra]):
    """An adapter's ``astream``."""

    def __call__(self, chunks: Any, *, options: O_contra | Mapping[str, Any] | None = None,
                 **switches: Any) -> AsyncIterator[StreamEvent]:
        """Stream events from an asynchronous stream input."""
        ...


class Estimate(Protocol[O_contra]):
    """An adapter's ``estimate_input_tokens``."""

    def __call__(self, history: History, tools: Sequence[ToolSpec] = (), *,
                 model: str | None = None, tool_choice: ToolChoice | None = None,
                 params: Mapping[str, Any] | None = None, settings: SettingsArg = None,
                 accept_issuers: Collection[str] | None = None,
                 options: O_contra | Mapping[str, Any] | None = None, **switches: Any) -> int:
        """The estimated input tokens of ``to_wire``'s body."""
        ...


# -- the docstrings ---------------------------------------------------------------------------
# Paragraphs that read the same in several adapters' docstrings. An adapter's docstring is a
# string, or its paragraphs in order (its own text and these), joined as one docstring.

SETTINGS = """``settings`` (:class:`~partwire.settings.RequestSettings`, or a mapping of its fields) are
written into the API's own fields; a setting it cannot take is a loss at
``request.settings.<field>``. ``max_tokens``, ``tool_choice`` and ``parallel_tool_calls`` are
shortcuts for those settings and win over them when given; a ``tool_choice`` mapping is the
API's own, sent as it is."""
"""``to_wire``: the settings and their shortcuts, where the API's own fields take them all."""

RAISES = """An error body raises :class:`~partwire.adapters.ProviderError`; anything else that is not
a response raises :class:`~partwire.adapters.WireFormatError`."""
"""``from_wire``: what it raises."""

READ = "A request body written for this API, as history and tools (and the other fields)."
"""``from_wire_request``: what it reads."""

READ_BACK = "``to_wire(r.history, **r.to_wire_kwargs()).request`` gives the body back."
"""``from_wire_request``: how to write the body back."""

EVENTS = ("Stream events from SDK events, parsed JSON events, or raw SSE (bytes/text, whole or "
          "chunked).")
"""``stream``: what it reads, for an API that streams server-sent events."""

ASTREAM = (":func:`stream` over an asynchronous source (the async SDK stream, an httpx byte "
           "stream).")
"""``astream``: the default docstring."""

ESTIMATE = "An offline estimate of the input tokens of ``to_wire(history, tools=tools)``."
"""``estimate_input_tokens``: what it gives."""

SAME_BODY = """``model``, ``tool_choice``, ``params``, ``settings`` and ``accept_issuers`` are
``to_wire``'s: pass the ones the request will be sent with, and the estimate counts the same
body (a forced tool choice,
body fields in ``params``, another issuer's echo state accepted)."""
"""``estimate_input_tokens``: the arguments it shares with ``to_wire``."""

Doc = str | tuple[str, ...]
"""A docstring, or its paragraphs in order."""


@dataclass(frozen=True, slots=True)
class Docs:
    """The docstrings of an adapter's six public functions (what ``help()`` and the reference
    show)."""

    to_wire: Doc
    """``to_wire``'s."""
    from_wire: Doc
    """``from_wire``'s."""
    from_wire_request: Doc
    """``from_wire_request``'s."""
    stream: Doc
    """``stream``'s."""
    estimate_input_tokens: Doc
    """``estimate_input_tokens``'s."""
    astream: Doc = ASTREAM
    """``astream``'s."""


def _docstring(doc: Doc) -> str:
    """``doc`` as one docstring: paragraphs, each dedented, joined by a blank line."""
    return doc if isinstance(doc, str) else "\n\n".join(inspect.cleandoc(p) for p in doc)


class Surface(NamedTuple, Generic[O]):
    """An adapter's six public functions, made by :func:`surface`."""

    to_wire: ToWire[O]
    """The request body for a history, and its losses."""
    from_wire: FromWire[O]
    """A response as an assistant message."""
    from_wire_request: FromWireRequest[O]
    """A request body read back."""
    stream: Stream[O]
    """Stream events from a stream."""
    astream: AStream[O]
    """:attr:`stream` over an asynchronous source."""
    estimate_input_tokens: Estimate[O]
    """An offline estimate of the input tokens of :attr:`to_wire`'s body."""


def surface(
    name: str, options_type: type[O], module: str, *,
    build: Build[O],
    decode: Callable[[Any, O], AssistantMessage],
    read: Callable[[Any, O], ImportedRequest],
    translator: Callable[[O], Callable[[], Translator]],
    count: Callable[[Mapping[str, Any]], int],
    docs: Docs,
    tool_choice_words: Callable[[O], Collection[str]] | None = None,
) -> Surface[O]:
    """The public functions of the adapter ``name`` (defined in ``module``) over its hooks.

    ``build`` makes a request body; ``decode`` reads a response and ``read`` a request body
    (each given the resolved options); ``translator`` gives what makes a stream's translator;
    ``count`` counts a body's input tokens. ``tool_choice_words`` names the tool choices the
    API takes as they are, beyond the canonical ones (a dialect's own word), which go to
    ``build`` as its native choice.
    """
    defaults = options_type()

    def to_wire(history: History, *, model: str, tools: Sequence[ToolSpec] = (),
                tool_choice: ToolChoice | None = None, max_tokens: int | None = None,
                params: Mapping[str, Any] | None = None, parallel_tool_calls: bool | None = None,
                settings: SettingsArg = None, strict: bool = False,
                accept_issuers: Collection[str] | None = None, session: str | None = None,
                options: O | Mapping[str, Any] | None = None, **switches: Any) -> Projection:
        held = hold(history)
        try:
            opts = defaults if options is None and not switches else resolve_options(
                options_type, options, switches)
            word: str | None = None
            if tool_choice_words is not None and isinstance(tool_choice, str) \
                    and tool_choice in tool_choice_words(opts):
                word, tool_choice = tool_choice, None  # the API's own word, sent as it is
            resolved, native = resolve_settings(settings, max_tokens=max_tokens,
                                                tool_choice=tool_choice,
                                                parallel_tool_calls=parallel_tool_calls)
            losses = LossCollector(name)
            request = build(history, opts, model=model, tools=tools, settings=resolved,
                            native_choice=word or native, params=params, issuers=accept_issuers,
                            losses=losses, counting=False)
            return project(request, losses, adapter=name, strict=strict, session=session)
        finally:
            if held:
                release()

    def from_wire(response: Any, *, options: O | Mapping[str, Any] | None = None,
                  **switches: Any) -> AssistantMessage:
        opts = defaults if options is None and not switches else resolve_options(
            options_type, options, switches)
        try:
            return decode(response, opts)
        except Exception as exc:
            raise boundary_error(exc, name, "response")  # noqa: B904 (it sets the cause)

    def from_wire_request(request: Any, *, options: O | Mapping[str, Any] | None = None,
                          **switches: Any) -> ImportedRequest:
        held = hold(request)
        try:
            opts = defaults if options is None and not switches else resolve_options(
                options_type, options, switches)
            return read(request, opts)
        except Exception as exc:
            raise boundary_error(exc, name, "request")  # noqa: B904 (it sets the cause)
        finally:
            if held:
                release()

    def stream(chunks: Any, *, options: O | Mapping[str, Any] | None = None,
               **switches: Any) -> Iterator[StreamEvent]:
        opts = defaults if options is None and not switches else resolve_options(
            options_type, options, switches)
        return run_stream(translator(opts), chunks)

    def astream(chunks: Any, *, options: O | Mapping[str, Any] | None = None,
                **switches: Any) -> AsyncIterator[StreamEvent]:
        opts = defaults if options is None and not switches else resolve_options(
            options_type, options, switches)
        return arun_stream(translator(opts), chunks)

    def estimate_input_tokens(history: History, tools: Sequence[ToolSpec] = (), *,
                              model: str | None = None, tool_choice: ToolChoice | None = None,
                              params: Mapping[str, Any] | None = None,
                              settings: SettingsArg = None,
                              accept_issuers: Collection[str] | None = None,
                              options: O | Mapping[str, Any] | None = None,
                              **switches: Any) -> int:
        opts = defaults if options is None and not switches else resolve_options(
            options_type, options, switches)
        word: str | None = None
        if tool_choice_words is not None and isinstance(tool_choice, str) \
                and tool_choice in tool_choice_words(opts):
            word, tool_choice = tool_choice, None
        resolved, native = resolve_settings(settings, tool_choice=tool_choice)
        if resolved.max_output_tokens is not None:
            # The output limit is no input: the body is counted as if none were set.
            resolved = resolved.model_copy(update={"max_output_tokens": None})
        request = build(history, opts, model=model, tools=tools, settings=resolved,
                        native_choice=word or native, params=params, issuers=accept_issuers,
                        losses=LossCollector(name), counting=True)
        return count(request)

    made: Surface[O] = Surface(to_wire, from_wire, from_wire_request, stream, astream,
                               estimate_input_tokens)
    hint = f"{options_type.__name__} | Mapping[str, Any] | None"
    for fn in (to_wire, from_wire, from_wire_request, stream, astream, estimate_input_tokens):
        # As if written in the adapter's module: its name, docstring and Options in help() and
        # in the API reference (which inspects these functions: docs/_ext/kernel_surface.py).
        fn.__module__ = module
        fn.__qualname__ = fn.__name__
        fn.__doc__ = _docstring(getattr(docs, fn.__name__))
        fn.__annotations__ = {**fn.__annotations__, "options": hint}
    return made
