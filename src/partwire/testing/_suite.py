"""``AdapterLaws``: the adapter laws as a pytest test class to subclass.

A subclass named ``Test...`` sets ``adapter`` (and whatever inputs it has: request bodies,
recorded streams, a validator); pytest then collects one test per law. Each law runs on the
examples the class gives, and, where the class gives a hypothesis strategy, on as many drawn
examples as ``max_examples`` says. A law whose inputs the class does not give is skipped with a
reason saying what to give.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, ClassVar, NoReturn

from partwire.adapters import Adapter
from partwire.history import HistoryEvent
from partwire.messages import AssistantMessage
from partwire.testing._checks import (
    BAD_BODIES,
    LawViolation,
    check_bad_input,
    check_echo,
    check_ids,
    check_losses,
    check_request_round_trip,
    check_request_valid,
    check_round_trip,
    check_stream,
    neutral_dump,
)
from partwire.testing._examples import example_histories

__all__ = ["AdapterLaws"]

_SURFACE = ("NAME", "CAPABILITIES", "Options", "to_wire", "from_wire", "from_wire_request", "stream",
            "astream", "estimate_input_tokens")


# The run's settings from the plugin's options: ``--partwire-examples N`` sets "max_examples"
# for every suite of the run (``None``: each suite's own).
_RUN: dict[str, int | None] = {"max_examples": None}


def _max_examples(default: int) -> int:
    override = _RUN["max_examples"]
    return default if override is None else override


def _skip(reason: str) -> NoReturn:
    import pytest

    pytest.skip(reason)


class AdapterLaws:
    """partwire's adapter laws, as tests: subclass it as ``Test<YourAdapter>`` and set
    :attr:`adapter`; give what inputs you have, and each law runs on them.

    Laws: the adapter has the public ``Adapter`` surface; round trip (history -> request ->
    history -> the same request; request bodies read and written back; responses decoded and
    made again); losses reported, never silent (and ``strict=True`` raising on exactly them);
    ids; stream equal to whole, with one identity; request validity against :attr:`validator`;
    bad input refused with partwire's errors; and, where partwire's conformance corpus covers
    the adapter's API (:attr:`api`), its cases.
    """

    adapter: ClassVar[Any] = None
    """The adapter under test: any object with the ``partwire.adapters.Adapter`` surface (a module
    or an instance)."""
    model: ClassVar[str] = "law"
    """The model passed to ``to_wire``."""
    request_model: ClassVar[str | None] = None
    """The model ``to_wire`` is given for a recorded request body that names none (its model
    travels outside the body, as Bedrock's does); ``None``: :attr:`model`."""
    options: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    """Adapter options passed to every call (``to_wire``, ``from_wire``, ``stream``...)."""
    projection_options: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    """Extra ``to_wire`` options for the round trips (an option that sends back all echo state)."""
    accept_issuers: ClassVar[Collection[str] | None] = None
    """``accept_issuers`` for the losses and validity laws (``None``: the adapter's own)."""
    validator: ClassVar[Any] = None
    """A :data:`~partwire.testing.Validator`: checks a request body against the API's own
    request types and returns the problems; the request-validity law runs when it is given. Set
    it as ``staticmethod(check)``."""
    requests: ClassVar[Sequence[tuple[str, dict[str, Any]]]] = ()
    """Named request bodies of the adapter's API (recorded traffic) for the request round trip."""
    streams: ClassVar[Sequence[tuple[str, Any, Any]]] = ()
    """Named recorded streams: ``(name, chunks, final)``, ``chunks`` anything ``stream`` reads
    (raw SSE bytes are also fed in pieces), ``final`` the whole response or ``None``."""
    api: ClassVar[str | None] = None
    """The API partwire's conformance corpus knows this adapter as (``anthropic``...); defaults
    to the adapter's ``NAME``. Set it to ``""`` to run no conformance cases."""
    max_examples: ClassVar[int] = 60
    """How many examples each hypothesis strategy draws per law."""
    history_strategy: ClassVar[Any] = None
    """A hypothesis strategy of histories, for the round-trip, losses, ids and validity laws."""
    request_strategy: ClassVar[Any] = None
    """A hypothesis strategy of request bodies, for the request round trip."""
    stream_strategy: ClassVar[Any] = None
    """A hypothesis strategy of ``(final response, stream events)`` pairs, for the stream law."""
    message_strategy: ClassVar[Any] = None
    """A hypothesis strategy of assistant messages the API can answer with, for the echo law
    (with :meth:`response_for`)."""

    # -- what a subclass may override ---------------------------------------------------------

    def histories(self) -> Sequence[tuple[str, Sequence[HistoryEvent]]]:
        """Named histories for the history laws: by default partwire's examples, which hold
        every role and part type with the adapter's issuer's echo state."""
        return example_histories(self._adapter().CAPABILITIES.issuer)

    def messages(self) -> Sequence[tuple[str, AssistantMessage]]:
        """Named assistant messages for the echo law (with :meth:`response_for`)."""
        return ()

    def response_for(self, message: AssistantMessage) -> dict[str, Any] | None:
        """The response body the API sends for ``message``; ``None`` (the default) skips the echo law."""
        return None

    def canonical_request(self, request: dict[str, Any]) -> dict[str, Any]:
        """A request body as the adapter writes it (key order and style), for the request round trip."""
        return request

    def sse(self, events: list[Any]) -> bytes | None:
        """The raw bytes the API sends for stream ``events``, to feed the stream law in pieces."""
        return None

    def sdk_final(self, events: list[Any]) -> Any:
        """The provider SDK's own accumulation of ``events``, as ``from_wire`` reads it, or ``None``."""
        return None

    def bad_bodies(self) -> Sequence[tuple[str, Any]]:
        """Named inputs every decoder of the adapter must refuse with partwire's error."""
        return BAD_BODIES

    # -- the laws -----------------------------------------------------------------------------

    def test_adapter_has_the_public_surface(self) -> None:
        """The adapter has every name of the ``partwire.adapters.Adapter`` protocol."""
        adapter = self._adapter()
        missing = [name for name in _SURFACE if not hasattr(adapter, name)]
        if missing or not isinstance(adapter, Adapter):
            raise LawViolation("surface", str(getattr(adapter, "NAME", type(self).__name__)),
                               f"{type(self).__name__}.adapter",
                               f"it lacks {', '.join(missing) or 'the signatures'} of partwire.adapters.Adapter",
                               "give the adapter NAME, CAPABILITIES, Options and the six functions "
                               "to_wire, from_wire, from_wire_request, stream, astream and "
                               "estimate_input_tokens (docs/adapter-testing.md)")

    def test_round_trip(self) -> None:
        """Each history's request reads back and is written again as the same request, losslessly."""
        adapter = self._adapter()
        self._each(lambda label, history: check_round_trip(
            adapter, history, example=label, model=self.model, options=self.options,
            projection_options=self.projection_options), self.histories(), self.history_strategy)

    def test_requests_round_trip(self) -> None:
        """Each request body of the API reads back and is written again as itself, losslessly."""
        if not self.requests and self.request_strategy is None:
            _skip(f"give {type(self).__name__}.requests (recorded request bodies) to run this law")
        adapter = self._adapter()
        self._each(lambda label, body: check_request_round_trip(
            adapter, body, example=label, model=self.request_model or self.model, options=self.options,
            projection_options=self.projection_options, expected=self.canonical_request(body)),
            self.requests, self.request_strategy)

    def test_responses_round_trip(self) -> None:
        """A response decodes to the message it carries, echo state included, and gives the same body back."""
        adapter = self._adapter()
        examples = list(self.messages())
        if type(self).response_for is AdapterLaws.response_for or (
                not examples and self.message_strategy is None):
            _skip(f"give {type(self).__name__}.response_for and messages() (or message_strategy) "
                  "to run this law")

        def law(label: str, message: AssistantMessage) -> None:
            body = self.response_for(message)
            assert body is not None
            check_echo(adapter, message, body, lambda m: self.response_for(m) or {}, example=label,
                       options=self.options)

        self._each(law, examples, self.message_strategy)

    def test_losses_are_reported(self) -> None:
        """Every part is in the request or named by a loss; strict=True raises on exactly those losses."""
        adapter = self._adapter()
        self._each(lambda label, history: check_losses(
            adapter, history, example=label, model=self.model, options=self.options,
            accept_issuers=self.accept_issuers), self.histories(), self.history_strategy)

    def test_ids(self) -> None:
        """Tool-call ids go out and come back paired as they were, and are never made up."""
        adapter = self._adapter()
        self._each(lambda label, history: check_ids(
            adapter, history, example=label, model=self.model, options=self.options),
            self.histories(), self.history_strategy)

    def test_stream_equals_whole(self) -> None:
        """A stream folds, in any pieces, to the message from_wire gives, under one identity."""
        if not self.streams and self.stream_strategy is None:
            _skip(f"give {type(self).__name__}.streams (recorded streams) to run this law")
        adapter = self._adapter()
        self._each(lambda label, stream: check_stream(
            adapter, stream[0], final=stream[1], example=label, options=self.options),
            [(label, (chunks, final)) for label, chunks, final in self.streams], None)
        if self.stream_strategy is None:
            return
        from hypothesis import strategies as st

        def drawn(label: str, data: tuple[tuple[Any, list[Any]], int]) -> None:
            (final, events), piece = data
            check_stream(adapter, events, final=final, example=label, options=self.options)
            raw = self.sse(events)
            if raw is not None:
                check_stream(adapter, raw, final=final, example=f"{label} as bytes", options=self.options,
                             pieces=piece)
            sdk = self.sdk_final(events)
            if sdk is not None:
                whole = neutral_dump(adapter.from_wire(final, **self.options))
                if neutral_dump(adapter.from_wire(sdk, **self.options)) != whole:
                    raise LawViolation("stream", str(adapter.NAME), label,
                                       "the SDK's own accumulation of the stream decodes to another message",
                                       "read the SDK's accumulated response exactly as the wire response")

        self._each(drawn, (), st.tuples(self.stream_strategy, st.integers(1, 40)))

    def test_requests_are_valid(self) -> None:
        """Each history's request passes the validator of the API's own request types."""
        validator = type(self).validator
        if validator is None:
            _skip(f"give {type(self).__name__}.validator (a function returning a request's problems) "
                  "to run this law")
        adapter = self._adapter()
        self._each(lambda label, history: check_request_valid(
            adapter, history, validator, example=label, model=self.model, options=self.options,
            accept_issuers=self.accept_issuers), self.histories(), self.history_strategy)

    def test_bad_input_gives_partwire_errors(self) -> None:
        """Every decoder refuses bad input with a partwire error, never another exception."""
        check_bad_input(self._adapter(), self.bad_bodies())

    def test_conformance_cases(self) -> None:
        """The adapter passes partwire's conformance cases for its API."""
        from partwire.testing._conformance import check_conformance

        api = self.api if self.api is not None else str(getattr(self._adapter(), "NAME", ""))
        found = check_conformance(self._adapter(), api)
        if found is None:
            _skip(f"partwire's conformance corpus has no cases for {api!r}")

    # -- machinery ----------------------------------------------------------------------------

    def _adapter(self) -> Any:
        adapter = type(self).adapter
        if adapter is None:
            raise LawViolation("setup", type(self).__name__, "the test class",
                               "no adapter is set",
                               f"set `adapter = your_adapter` on {type(self).__name__}")
        return adapter

    def _each(self, law: Callable[[str, Any], None], examples: Iterable[tuple[str, Any]],
              strategy: Any) -> None:
        """Run ``law`` on every named example, then on ``strategy``'s draws; one failure report
        lists every example that failed (the first in full)."""
        failures = []
        for label, example in examples:
            try:
                law(label, example)
            except LawViolation as violation:
                failures.append(violation)
        if failures:
            others = "".join(f"\n  also on {v.example}: {v.what[:200]}" for v in failures[1:6])
            raise LawViolation(failures[0].law, failures[0].adapter, failures[0].example,
                               failures[0].what + others, failures[0].fix) from failures[0]
        if strategy is None:
            return
        from hypothesis import HealthCheck, given, settings

        @settings(max_examples=_max_examples(self.max_examples), deadline=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
        @given(example=strategy)
        def drawn(example: Any) -> None:
            law("a drawn example (hypothesis prints it below)", example)

        drawn()
