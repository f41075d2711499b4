"""What moving a history to another provider would lose, and what it cannot take at all.

:func:`check_switch` is a dry run of the target adapter's own ``to_wire`` (so the two cannot
disagree), and refuses what cannot work. It sits above the adapters (it runs one of them);
:mod:`partwire.projection`, which every adapter imports, holds the losses it returns.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, assert_never, cast

from partwire import messages as _messages
from partwire import parts as _parts
from partwire.errors import SwitchRefusedError, UnknownAdapterError
from partwire.projection import Loss, LossAction

if TYPE_CHECKING:
    from partwire.adapters import Capabilities
    from partwire.history import History

__all__ = ["SwitchRefusedError", "check_switch"]


def check_switch(
    history: History, target: str | Capabilities, *, model: str | None = None,
    tools: Sequence[Any] = (), accept_issuers: Collection[str] | None = None,
    options: Any = None, settings: Any = None,
) -> tuple[Loss, ...]:
    """What moving ``history`` to ``target`` would lose: a dry run of the target's own ``to_wire``.

    ``target`` is an adapter name (``"anthropic"``, ``"openai_chat:deepseek"`` for a dialect) or
    a :class:`~partwire.adapters.Capabilities` (for a particular model:
    ``dataclasses.replace(CAPABILITIES, images=False)``). The losses are exactly those the
    target's ``to_wire`` reports for the same history, tools, settings and options (nothing is
    logged): a setting the target cannot take is a loss at ``request.settings.<field>``.
    Content the target cannot take at all (an image for a text-only model, a file id another
    provider issued, tool calls for a model without tools, a history whose token estimate is
    larger than the model's context window, where the price data knows it) raises
    :class:`SwitchRefusedError`, with the losses beside the refusals.
    """
    from partwire.adapters import Capabilities, get_adapter
    from partwire.adapters._kernel import dry_run

    if isinstance(target, Capabilities):
        caps = target
        head, _, variant = caps.name.partition(":")
        try:
            adapter = get_adapter(head)
        except UnknownAdapterError:
            adapter = get_adapter(caps.issuer)
    else:
        head, _, variant = target.partition(":")
        adapter = get_adapter(head)
        caps = adapter.CAPABILITIES
        if variant:
            caps = _variant_capabilities(adapter, variant, caps)
    if variant and options is None:
        options = {"dialect": variant}
    issuers = frozenset(accept_issuers) if accept_issuers is not None else frozenset({caps.issuer})
    check = _SwitchCheck(caps, issuers)
    check.run(history)
    chosen = model or _model_for(history, caps.issuer)
    with dry_run():
        projection = adapter.to_wire(history, model=chosen, tools=tools, settings=settings,
                                     accept_issuers=accept_issuers, options=options)
    too_long = _context_refusal(history, adapter, chosen, caps, tools, options)
    if too_long is not None:
        check.refusals.append(too_long)
    losses = tuple(replace(loss, adapter=caps.name) if caps.name != adapter.NAME else loss
                   for loss in projection.losses)
    if check.refusals:
        raise SwitchRefusedError(caps.name, tuple(check.refusals), losses)
    return losses


def _context_refusal(history: History, adapter: Any, model: str, caps: Capabilities,
                     tools: Sequence[Any], options: Any) -> Loss | None:
    """A refusal when the history's estimate exceeds the model's context window (when known)."""
    from partwire.pricing import context_window

    full = model if ":" in model else f"{caps.issuer}:{model}"
    try:
        window = context_window(full)
    except Exception:  # price data absent or unreadable: the window is unknown, not a refusal
        return None
    if window is None:
        return None
    estimate = adapter.estimate_input_tokens(history, tools, model=full, options=options)
    if estimate <= window:
        return None
    return Loss("history", "history", "dropped",
                f"the history is about {estimate:,} input tokens; {full}'s context window is "
                f"{window:,} (compact it first)", caps.name)


def _variant_capabilities(adapter: Any, variant: str, caps: Capabilities) -> Capabilities:
    dialects = getattr(adapter, "DIALECTS", None)
    if isinstance(dialects, Mapping) and variant in dialects:
        found = getattr(dialects[variant], "capabilities", None)
        if found is not None:
            return cast("Capabilities", found)
    return caps


def _model_for(history: History, issuer: str) -> str:
    """The last model of ``issuer`` the history names, else a stand-in (the dry run sends nothing)."""
    for event in reversed(history):
        if isinstance(event, _messages.AssistantMessage) and event.model and event.model.startswith(f"{issuer}:"):
            return event.model
    return f"{issuer}:check-switch"


class _SwitchCheck:
    """Walks a history once, finding what the target cannot take at all (the refusals)."""

    def __init__(self, caps: Capabilities, issuers: frozenset[str]) -> None:
        self.caps = caps
        self.issuers = issuers
        self.losses: list[Loss] = []
        self.refusals: list[Loss] = []

    def _add(self, path: str, part_type: str, action: LossAction, reason: str,
             message_id: str | None, *, refuse: bool = False) -> None:
        # Only refusals: the losses are the target's to_wire's own (check_switch's dry run).
        if refuse:
            self.refusals.append(Loss(path, part_type, action, reason, self.caps.name, message_id))

    def run(self, history: History) -> None:
        conversation_started = False
        for i, event in enumerate(history):
            path = f"history[{i}]"
            match event:
                case _messages.SystemMessage():
                    if conversation_started and not self.caps.system_messages_in_list:
                        self._add(path, "system_message", "rewritten",
                                  f"{self.caps.name} takes no system message mid-conversation; "
                                  "it moves to the system prompt", event.id)
                    self._check_parts(event.parts, path, event.id)
                case _messages.DeveloperMessage():
                    conversation_started = True
                    if not self.caps.developer_role:
                        self._add(path, "developer_message", "attached",
                                  f"{self.caps.name} has no developer role; its parts join a user turn",
                                  event.id)
                    self._check_parts(event.parts, path, event.id)
                case _messages.UserMessage() | _messages.AssistantMessage():
                    conversation_started = True
                    self._check_parts(event.parts, path, event.id)
                case _messages.ToolMessage():
                    conversation_started = True
                    if not self.caps.tools:
                        self._add(path, "tool_message", "dropped",
                                  f"{self.caps.name} does not take tool results", event.id, refuse=True)
                    self._check_parts(event.parts, path, event.id)
                case _:
                    # Non-message events (errors, retries, compaction records) are never sent.
                    pass

    def _check_parts(self, parts: tuple[_parts.Part, ...], path: str, message_id: str) -> None:
        for j, part in enumerate(parts):
            self._part(part, f"{path}.parts[{j}]", message_id)

    def _part(self, part: _parts.Part, path: str, message_id: str) -> None:
        caps, name = self.caps, self.caps.name
        match part:
            case _parts.TextPart():
                pass
            case _parts.ImagePart() | _parts.DocumentPart() | _parts.AudioPart():
                self._media(part, path, message_id)
            case _parts.ThinkingPart():
                # Signed reasoning goes back to its signer; unsigned reasoning (DeepSeek's
                # reasoning_content, an unsigned Anthropic block) to the issuer of its echo state.
                origin = (part.signature.issuer if part.signature is not None
                          else part.provider_data.issuer if part.provider_data is not None else None)
                if origin not in self.issuers or not caps.thinking:
                    self._add(path, "thinking", "dropped",
                              "reasoning is verifiable only by the provider that produced it",
                              message_id)
            case _parts.RedactedThinkingPart():
                if part.data.issuer not in self.issuers or not caps.thinking:
                    self._add(path, "redacted_thinking", "dropped",
                              f"encrypted reasoning from {part.data.issuer} cannot go to {name}",
                              message_id)
            case _parts.ToolCallPart():
                if not caps.tools:
                    self._add(path, "tool_call", "dropped", f"{name} does not take tool calls",
                              message_id, refuse=True)
                elif part.provider_ids and not self.issuers.intersection(part.provider_ids):
                    self._add(path, "tool_call", "id_mapped",
                              "the provider's call id is replaced by the canonical id", message_id)
            case _parts.ServerToolCallPart() | _parts.ServerToolResultPart() | _parts.UnknownPart():
                if part.issuer not in self.issuers:
                    self._add(path, part.type, "dropped",
                              f"provider-side data from {part.issuer} cannot go to {name}", message_id)
            case _parts.RefusalPart():
                if not caps.refusals:
                    self._add(path, "refusal", "downgraded", f"{name} has no refusal part; sent as text",
                              message_id)
            case _:
                assert_never(part)

    def _media(self, part: _parts.ImagePart | _parts.DocumentPart | _parts.AudioPart, path: str, message_id: str) -> None:
        caps = self.caps
        allowed, kinds, accepted = {
            "image": (caps.images, "images", caps.image_media_types),
            "document": (caps.documents, "documents", caps.document_media_types),
            "audio": (caps.audio, "audio", caps.audio_media_types),
        }[part.type]
        if not allowed:
            self._add(path, part.type, "dropped", f"{caps.name} does not take {kinds}", message_id,
                      refuse=True)
            return
        if part.media_type and accepted and part.media_type not in accepted:
            self._add(path, part.type, "dropped",
                      f"{caps.name} does not take {part.media_type} {kinds}", message_id, refuse=True)
            return
        source = part.source
        kind = source.type
        if kind not in caps.media_sources and not isinstance(source, _parts.FileRefSource):
            self._add(path, part.type, "dropped", f"{caps.name} cannot read a {kind} source",
                      message_id, refuse=True)
        elif isinstance(source, _parts.ProviderFileSource) and source.issuer not in self.issuers:
            self._add(path, part.type, "dropped",
                      f"file id {source.file_id} was issued by {source.issuer}; upload it to "
                      f"{caps.name} first", message_id, refuse=True)

