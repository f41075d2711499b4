"""Losses, projections, their logging and strict mode, and check_switch."""

from __future__ import annotations

import dataclasses
import json
import logging

import pytest

import partwire.adapters.anthropic as anthropic_adapter
from partwire import (
    AssistantMessage,
    Base64Source,
    DeveloperMessage,
    ErrorEvent,
    ImagePart,
    LossError,
    Opaque,
    ProviderData,
    ProviderFileSource,
    RedactedThinkingPart,
    RefusalPart,
    ServerToolCallPart,
    Session,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    UnknownPart,
    UserMessage,
)
from partwire.adapters import (
    ADAPTER_NAMES,
    UnknownAdapterError,
    anthropic,
    get_adapter,
)
from partwire.history import HistoryEvent
from partwire.projection import (
    Loss,
    Losses,
    Projection,
    SwitchRefusedError,
    log_losses,
    make_projection,
)
from partwire.switch import check_switch
from tests.harness.laws import tools_called

# A model each adapter accepts, for the tests that project through every adapter.
MODELS = {"anthropic": "claude-sonnet-4-6", "openai_chat": "gpt-5", "openai_responses": "gpt-5",
          "google": "gemini-2.5-pro", "bedrock": "anthropic.claude-sonnet-4-20250514-v1:0",
          "ollama": "qwen3:8b",
          "cohere": "command-a-03-2025"}

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
LOSS = Loss("history[1].parts[0]", "thinking", "dropped", "not verifiable", "anthropic", "01ABC")


def test_a_loss_reads_well_on_its_own() -> None:
    """str(loss) names the adapter, the place, the part, the action and the reason."""
    assert str(LOSS) == "anthropic: history[1].parts[0] (thinking) dropped: not verifiable"


def test_a_projection_without_losses_is_lossless() -> None:
    """``lossless`` is true exactly when nothing was lost."""
    assert Projection(request={}).lossless
    assert not Projection(request={}, losses=(LOSS,)).lossless


def test_each_loss_is_logged_once_with_structured_fields(caplog: pytest.LogCaptureFixture) -> None:
    """One WARNING record per loss on partwire.projection, carrying session, message, part, adapter, reason."""
    with caplog.at_level(logging.WARNING, logger="partwire.projection"):
        projection = make_projection({"x": 1}, [LOSS], adapter="anthropic", strict=False, session="s-1")
    assert projection.losses == (LOSS,)
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert record.name == "partwire.projection"
    fields = {k: getattr(record, k) for k in ("session", "message_id", "part_type", "adapter", "reason")}
    assert fields == {"session": "s-1", "message_id": "01ABC", "part_type": "thinking",
                      "adapter": "anthropic", "reason": "not verifiable"}


def test_every_loss_of_a_projection_gets_its_own_record(caplog: pytest.LogCaptureFixture) -> None:
    """Records after the first are copies of it: each still has its own message and fields."""
    other = Loss("history[4]", "tool_message", "rewritten", "no aborted status", "openai_chat", None)
    made: list[logging.LogRecord] = []
    factory = logging.getLogRecordFactory()

    def counting(*args: object, **kwargs: object) -> logging.LogRecord:
        record = factory(*args, **kwargs)
        made.append(record)
        return record

    logging.setLogRecordFactory(counting)
    try:
        with caplog.at_level(logging.WARNING, logger="partwire.projection"):
            log_losses([LOSS, other, LOSS], session="s-2")
    finally:
        logging.setLogRecordFactory(factory)
    assert [r.getMessage() for r in caplog.records] == [str(LOSS), str(other), str(LOSS)]
    fields = [tuple(r.__dict__[k] for k in ("loss_path", "part_type", "adapter", "message_id"))
              for r in caplog.records]
    assert fields == [
        ("history[1].parts[0]", "thinking", "anthropic", "01ABC"),
        ("history[4]", "tool_message", "openai_chat", None),
        ("history[1].parts[0]", "thinking", "anthropic", "01ABC"),
    ]
    assert {r.__dict__["session"] for r in caplog.records} == {"s-2"}
    assert len({id(r) for r in caplog.records}) == 3
    assert {(r.filename, r.funcName, r.levelname) for r in caplog.records} == {
        ("projection.py", "log_losses", "WARNING")}
    assert made == [caplog.records[0]]  # the application's factory made the first record


def test_nothing_is_logged_when_nothing_is_lost(caplog: pytest.LogCaptureFixture) -> None:
    """A lossless projection writes no log record."""
    with caplog.at_level(logging.DEBUG, logger="partwire.projection"):
        make_projection({}, [], adapter="anthropic", strict=True)
    assert caplog.records == []


def test_strict_mode_raises_with_the_losses_and_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    """strict=True turns any loss into a LossError that carries the losses."""
    with caplog.at_level(logging.WARNING, logger="partwire.projection"), pytest.raises(LossError) as caught:
        make_projection({}, [LOSS], adapter="anthropic", strict=True)
    assert caught.value.losses == (LOSS,)
    assert caught.value.adapter == "anthropic"
    assert caplog.records == []


def test_log_losses_respects_a_silenced_logger(caplog: pytest.LogCaptureFixture) -> None:
    """With the logger above WARNING, losses are not logged."""
    logging.getLogger("partwire.projection").setLevel(logging.ERROR)
    try:
        with caplog.at_level(logging.ERROR, logger="partwire.projection"):
            log_losses([LOSS])
        assert caplog.records == []
    finally:
        logging.getLogger("partwire.projection").setLevel(logging.NOTSET)


# -- check_switch ------------------------------------------------------------------------------


def _history() -> list[HistoryEvent]:
    call = ToolCallPart.create("ls", {"path": "."}, provider_ids={"openai": "call.1/x"})
    return [
        SystemMessage("be brief"),
        UserMessage("hi"),
        DeveloperMessage("cwd is /tmp"),
        AssistantMessage([
            ThinkingPart(text="hmm", signature=Opaque(value="enc", issuer="openai")),
            RedactedThinkingPart(data=Opaque(value="x", issuer="google")),
            ServerToolCallPart(id="ws_1", name="web_search", input={}, issuer="openai"),
            UnknownPart(original_type="x", raw={"type": "x"}, issuer="openai"),
            RefusalPart(text="no"),
            call,
        ]),
        ToolMessage(call_id=call.id, tool_name="ls", output_text="a b"),
    ]


def test_check_switch_names_every_predicted_loss() -> None:
    """Foreign reasoning, server blocks and unknown parts drop; ids map; developer attaches; refusal downgrades."""
    losses = check_switch(_history(), "anthropic")
    assert [(loss.path, loss.part_type, loss.action) for loss in losses] == [
        ("history[2]", "developer_message", "attached"),
        ("history[3].parts[0]", "thinking", "dropped"),
        ("history[3].parts[1]", "redacted_thinking", "dropped"),
        ("history[3].parts[2]", "server_tool_call", "dropped"),
        ("history[3].parts[3]", "unknown", "dropped"),
        ("history[3].parts[4]", "refusal", "downgraded"),
        ("history[3].parts[5]", "tool_call", "id_mapped"),
        ("history[3].parts[5]", "tool_call", "downgraded"),
    ]
    assert {loss.adapter for loss in losses} == {"anthropic"}


def test_check_switch_agrees_with_to_wire_on_what_is_lost() -> None:
    """The capability-level prediction names the same places as the real projection."""
    predicted = {(loss.path, loss.action) for loss in check_switch(_history(), "anthropic")}
    actual = {(loss.path, loss.action)
              for loss in anthropic_adapter.to_wire(_history(), model="claude-sonnet-4-6").losses}
    assert predicted == actual


def test_check_switch_accepts_aliases_for_the_issuer() -> None:
    """Reasoning issued by an accepted alias is not reported."""
    history = [AssistantMessage([ThinkingPart(text="x", signature=Opaque(value="s", issuer="bedrock"))])]
    assert check_switch(history, "anthropic") != ()
    assert check_switch(history, "anthropic", accept_issuers={"anthropic", "bedrock"}) == ()


def test_images_to_a_text_only_model_are_refused() -> None:
    """A target without image input refuses the switch and names the image."""
    text_only = dataclasses.replace(anthropic_adapter.CAPABILITIES, name="text-only", images=False)
    history = [UserMessage([TextPart(text="look"), ImagePart(source=Base64Source(data=PNG), media_type="image/png")])]
    with pytest.raises(SwitchRefusedError) as caught:
        check_switch(history, text_only)
    assert caught.value.target == "text-only"
    assert [(r.path, r.part_type) for r in caught.value.refusals] == [("history[0].parts[1]", "image")]
    assert "cannot switch this session to text-only" in str(caught.value)


def test_a_file_id_from_another_provider_is_refused() -> None:
    """An image that lives in another provider's file store cannot be read by the target."""
    history = [UserMessage([ImagePart(source=ProviderFileSource(file_id="file-1", issuer="openai"),
                                      media_type="image/png")])]
    with pytest.raises(SwitchRefusedError) as caught:
        check_switch(history, "anthropic")
    assert "file-1" in caught.value.refusals[0].reason


def test_unsupported_media_types_and_tool_use_are_refused() -> None:
    """A media type outside the target's list, and tool calls for a target without tools, refuse."""
    no_tools = dataclasses.replace(anthropic_adapter.CAPABILITIES, tools=False)
    history: list[HistoryEvent] = [
        UserMessage([ImagePart(source=Base64Source(data=PNG), media_type="image/tiff")]),
        AssistantMessage([ToolCallPart.create("f")]),
        ToolMessage(call_id="tu_x", tool_name="f"),
    ]
    with pytest.raises(SwitchRefusedError) as caught:
        check_switch(history, no_tools)
    assert [r.path for r in caught.value.refusals] == ["history[0].parts[0]", "history[1].parts[0]", "history[2]"]


def test_a_lossless_history_switches_cleanly() -> None:
    """Plain text in both directions loses nothing anywhere."""
    assert check_switch([SystemMessage("s"), UserMessage("q"), AssistantMessage("a")], "anthropic") == ()


def test_check_switch_lives_above_the_adapters_only() -> None:
    """``check_switch`` is ``partwire.switch``'s (and ``partwire``'s); ``partwire.projection``,
    below the adapters, no longer hands it out."""
    import partwire
    import partwire.projection
    import partwire.switch

    assert partwire.switch.check_switch is partwire.check_switch
    assert "check_switch" not in partwire.projection.__all__
    with pytest.raises(AttributeError, match="check_switch"):
        partwire.projection.check_switch  # type: ignore[attr-defined]  # noqa: B018


def test_check_switch_rejects_an_unknown_adapter_name() -> None:
    """An adapter name nobody defines raises UnknownAdapterError, listing the known ones."""
    with pytest.raises(UnknownAdapterError, match="known adapters are anthropic"):
        check_switch([], "nobody")
    assert get_adapter("anthropic") is anthropic_adapter


def test_check_switch_keeps_unsigned_reasoning_for_its_own_issuer() -> None:
    """Unsigned thinking with the target's echo state is predicted kept, as to_wire keeps it."""
    unsigned = ThinkingPart(text="plan", provider_data=ProviderData(
        issuer="anthropic", data={"block": {"type": "thinking", "thinking": "plan", "signature": ""}}))
    foreign = ThinkingPart(text="plan", provider_data=ProviderData(issuer="deepseek", data=None))
    for part, kept in ((unsigned, True), (foreign, False)):
        history: list[HistoryEvent] = [UserMessage("q"), AssistantMessage([part, "answer"], model="anthropic:claude-sonnet-4-6",
                                                      provider="anthropic")]
        predicted = [loss for loss in check_switch(history, "anthropic") if loss.part_type == "thinking"]
        sent = [loss for loss in anthropic.to_wire(history, model="claude-sonnet-4-6").losses
                if loss.part_type == "thinking"]
        assert (predicted == []) is kept
        assert (sent == []) is kept


def test_a_history_larger_than_the_models_context_window_is_refused() -> None:
    """check_switch refuses a history whose estimate exceeds the target model's context window,
    with both numbers in the message; a model with room takes it."""
    history: list[HistoryEvent] = [UserMessage("word " * 20_000)]
    with pytest.raises(SwitchRefusedError) as caught:
        check_switch(history, "openai_chat", model="openai:gpt-4")
    refusal = caught.value.refusals[0]
    assert (refusal.path, refusal.action) == ("history", "dropped")
    assert "8,192" in refusal.reason
    assert "input tokens" in refusal.reason
    assert check_switch(history, "openai_chat", model="openai:gpt-5") == ()


def _loss_n(k: int) -> Loss:
    return Loss(path=f"history[{k}]", part_type="thinking", action="dropped", reason="r",
                adapter="openai_chat")


def test_losses_view_behaves_as_the_tuple_of_its_items() -> None:
    """A session's ``Losses`` shares a growing list; it is the tuple of its items in every way a
    caller can see: equality both ways, hash, indexing, slicing, adding, length, repr."""
    head, middle, tail = (_loss_n(0),), [_loss_n(1), _loss_n(2)], (_loss_n(3),)
    view = Losses(head, middle, 2, tail)
    items = (*head, *middle, *tail)
    assert view == items
    assert items == view
    assert view == Losses(items)
    assert view != items[:-1]
    assert view != list(items)
    assert hash(view) == hash(items)
    assert len(view) == 4
    assert bool(view)
    assert not Losses()
    assert [view[i] for i in range(4)] == list(items)
    assert view[-1] is tail[0]
    assert view[-4] is head[0]
    assert view[1:3] == items[1:3]
    assert view + (_loss_n(9),) == (*items, _loss_n(9))  # noqa: RUF005 (the operator is tested)
    assert (_loss_n(9),) + view == (_loss_n(9), *items)  # noqa: RUF005
    assert repr(view) == repr(items)
    assert view.index(middle[1]) == 2
    assert middle[0] in view
    with pytest.raises(IndexError):
        view[4]
    middle.append(_loss_n(7))  # the shared list grows after the view was made: the view does not
    assert view == items
    assert len(view) == 4
    assert _loss_n(7) not in view


def test_session_request_shares_the_kept_losses_between_turns() -> None:
    """Two turns of a session: the second request's losses are the first's kept ones plus the
    new ones, equal to to_wire's, without a copy of the kept ones."""
    from partwire import Session

    def turn(k: int) -> list[HistoryEvent]:
        return [UserMessage(parts=(TextPart(text=f"q{k}"),)),
                AssistantMessage(parts=(ThinkingPart(text=f"t{k}", signature=Opaque(value="s", issuer="anthropic")),
                                        TextPart(text=f"a{k}")), provider="anthropic")]

    session = Session("openai_chat:gpt-4.1", cache="off")
    for k in range(4):
        session.append(*turn(k))
        first = session.request()
    session.append(*turn(4))
    second = session.request()
    want = get_adapter("openai_chat").to_wire(list(session.context), model="gpt-4.1").losses
    assert second.losses == want
    assert len(want) == 5
    assert isinstance(second.losses, Losses)
    # The losses of the turns kept from the last request are its very objects (the last turn's
    # messages are projected again, so their loss is a new object equal to the old).
    shared = [a is b for a, b in zip(first.losses, second.losses, strict=False)]
    assert shared == [True, True, True, False]


# -- 10. loss messages ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ADAPTER_NAMES)
def test_dropped_provider_data_names_the_provider_data_not_the_part(name: str) -> None:
    """Parts sent without another issuer's provider data: each loss is at the part's
    .provider_data under its canonical type, and the parts themselves are sent."""
    from partwire import ToolMessage

    data = ProviderData(issuer="elsewhere", data={"x": 1})
    message = AssistantMessage([TextPart(text="hello", provider_data=data),
                                ToolCallPart(id="tu_1", name="lookup", arguments_json="{}", provider_data=data)],
                               model="elsewhere:m", provider="elsewhere")
    history: list[HistoryEvent] = [UserMessage("go"), message,
                                   ToolMessage("done", call_id="tu_1", tool_name="lookup")]
    # The tool is defined, as a real request defines it (Anthropic reports each undefined call).
    projection = get_adapter(name).to_wire(history, model=MODELS[name], tools=tools_called(history))
    named = {(loss.path, loss.part_type, loss.action) for loss in projection.losses
             if loss.path.startswith("history[1]")}
    assert named == {("history[1].parts[0].provider_data", "text", "dropped"),
                     ("history[1].parts[1].provider_data", "tool_call", "dropped")}
    body = json.dumps(projection.request)
    assert "hello" in body
    assert "lookup" in body


def test_loss_wording_reads_as_a_sentence() -> None:
    """The losses of the bundled example on every API hold none of the garbled phrasings."""
    from partwire.cli._example import example_history

    for name in ADAPTER_NAMES:
        for loss in get_adapter(name).to_wire(example_history(), model=MODELS[name]).losses:
            text = str(loss)
            assert "sent as it," not in text, text
            assert not text.endswith("sent as it"), text
            assert "None is read back" not in text, text


def test_session_losses_point_into_the_history_not_the_context() -> None:
    """Events that are not messages (an error) and a compaction shift the context; the loss paths a
    session gives index history, where the part is."""
    from partwire import ThinkingPart

    session = Session("anthropic:claude-sonnet-4-6")
    session.append(UserMessage("one"), ErrorEvent(message="boom"), ErrorEvent(message="again"))
    thought = AssistantMessage([ThinkingPart(text="hm"), TextPart(text="two")], model="openai:gpt-5",
                               provider="openai")
    session.append(thought, UserMessage("three"))
    losses = session.request().losses
    (loss,) = [loss for loss in losses if loss.part_type == "thinking"]
    assert loss.path == "history[3].parts[0]"
    assert session.history[3] is thought
    switched = session.switch("openai_chat:gpt-5")
    assert all(not x.path.startswith("history[1]") for x in switched)


def test_loss_type_is_the_one_the_cli_prints() -> None:
    """Loss.__str__ is the formatter: adapter, path, part type, action and reason in one line."""
    loss = Loss("history[1]", "audio", "dropped", "no audio input", "anthropic")
    assert str(loss) == "anthropic: history[1] (audio) dropped: no audio input"
