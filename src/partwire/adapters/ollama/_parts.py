"""Canonical parts -> the fields of one Ollama wire message.

An Ollama message has no list of blocks: its text goes to ``content``, its reasoning to
``thinking``, its images to ``images`` (bare base64) and its calls to ``tool_calls`` (arguments
as a JSON object, no id). Parts are gathered by kind; what has no field is a loss naming the
part. The reader's order (thinking, text, images, calls) is the one written back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, assert_never

from partwire import parts as _parts
from partwire._json import parse_json
from partwire.adapters._losses import foreign_unknown_reason
from partwire.adapters._provenance import data_of
from partwire.adapters._turns import BlockEncoder
from partwire.adapters.ollama._wire import ISSUER, admits_call_id

# The part types every conversion meets, by name; the rarer ones through the module.
from partwire.parts import ImagePart, Part, TextPart, ThinkingPart, ToolCallPart

__all__ = ["PartEncoder"]


class PartEncoder(BlockEncoder):
    """Writes parts into a wire message's fields, reporting what has none."""

    ISSUER = ISSUER
    WIRE = "Ollama"
    TAKER = "Ollama"

    admits_call_id = staticmethod(admits_call_id)

    def unsent_ids(self, part: ToolCallPart, i: int, j: int, message_id: str) -> None:
        """Report the provider ids of a call, which Ollama's calls have no field for."""
        self.lose(i, j, "tool_call", "id_mapped", f"Ollama's calls carry no id: the call's id from "
                  f"{', '.join(sorted(part.provider_ids))} is not sent, and its result is paired "
                  "with it by order and tool name", message_id)

    def fields(self, out: dict[str, Any], parts: Sequence[Part], i: int, message_id: str,
               *, calls: bool) -> None:
        """Write ``parts`` (of ``history[i]``) into the wire message ``out``; ``calls`` says
        whether the message may hold tool calls (an assistant's)."""
        texts: list[str] = []
        thinking: list[str] = []
        images: list[str] = []
        wire_calls: list[dict[str, Any]] = []
        sources: list[tuple[int, str]] = []  # the parts the content is made of
        thoughts: list[int] = []  # the parts the thinking is made of
        self.kept: dict[str, Any] | None = None
        issuers = self.issuers
        for j, part in enumerate(parts):
            fields = part.__dict__
            pd = fields["provider_data"]
            kind = type(part)
            # The common parts first, by identity: plain text, unsigned reasoning, a call.
            if pd is None:
                if kind is TextPart and not fields["citations"]:
                    sources.append((j, "text"))
                    texts.append(fields["text"])
                    continue
                if kind is ToolCallPart and calls:
                    if fields["provider_ids"]:
                        self.unsent_ids(part, i, j, message_id)  # type: ignore[arg-type]
                    text = fields["arguments_json"]
                    try:
                        arguments = parse_json(text) if text else {}
                    except ValueError:
                        arguments = None
                    if type(arguments) is not dict:  # sent as {} with a loss
                        arguments = self.call_input(text, i, j, message_id)
                    wire_calls.append({"function": {"name": fields["name"], "arguments": arguments}})
                    continue
                if kind is ThinkingPart and fields["signature"] is None and fields["text"]:
                    thoughts.append(j)
                    thinking.append(fields["text"])
                    continue
            elif pd.issuer not in issuers:
                self.lose(i, j, part.type, "dropped", f"provider data from {pd.issuer} is not sent "
                          "to Ollama", message_id, ".provider_data")
            if kind is TextPart:
                sources.append((j, "text"))
                texts.append(self.text(part, i, j, message_id))  # type: ignore[arg-type]
            elif kind is ToolCallPart and calls:
                wire_calls.append(self.call(part, i, j, message_id))  # type: ignore[arg-type]
            else:
                self.other(part, i, j, message_id, texts, thinking, images, sources, thoughts,
                           wire_calls if calls else None)
        if len(sources) > 1:
            for j, part_type in sources:
                self.joined(i, j, part_type, "content", message_id)
        if len(thoughts) > 1:
            for j in thoughts:
                self.joined(i, j, "thinking", "thinking", message_id)
        if thinking:
            out["thinking"] = "".join(thinking)
        if texts or "content" not in out:
            out["content"] = texts[0] if len(texts) == 1 else "".join(texts)
        if images:
            out["images"] = images
        if wire_calls:
            out["tool_calls"] = wire_calls
        if self.kept:
            for key, value in self.kept.items():
                out.setdefault(key, value)

    def joined(self, i: int, j: int, part_type: str, field: str, message_id: str) -> None:
        """Report a part whose text is joined with others' into the message's one ``field``."""
        self.lose(i, j, part_type, "rewritten", f"an Ollama message holds one {field} text: this "
                  "part's is joined with the others'", message_id)

    def text(self, part: TextPart, i: int, j: int, message_id: str) -> str:
        """A text part's text; its citations are a loss."""
        if part.citations:
            self.lose(i, j, "text", "dropped", "Ollama has no citations; the text is sent "
                      "without them", message_id, ".citations")
        return part.text

    def call(self, part: ToolCallPart, i: int, j: int, message_id: str) -> dict[str, Any]:
        """A tool call as Ollama takes it: name and arguments object, with the marks an
        imported call left (a server's ``index``, arguments sent as text)."""
        if part.provider_ids:
            self.unsent_ids(part, i, j, message_id)
        marks = data_of(part.provider_data, self.issuers)
        arguments: Any
        if marks is not None and marks.get("arguments") == "text":
            arguments = part.arguments_json
        else:
            arguments = self.call_input(part.arguments_json, i, j, message_id)
        function: dict[str, Any] = {"name": part.name, "arguments": arguments}
        if marks:
            if marks.get("arguments") == "absent" and not arguments:
                del function["arguments"]
            inner = marks.get("function")
            if isinstance(inner, Mapping):
                function.update(inner)
            outer = marks.get("call")
            if isinstance(outer, Mapping):
                return {**outer, "function": function}
        return {"function": function}

    def other(self, part: Part, i: int, j: int, message_id: str, texts: list[str],
              thinking: list[str], images: list[str], sources: list[tuple[int, str]],
              thoughts: list[int], wire_calls: list[dict[str, Any]] | None) -> None:
        """Every part but text and an assistant's tool calls of the classes themselves (the
        common ones, handled inline); ``wire_calls`` is ``None`` where the message may hold no
        call."""
        lose = self.lose
        match part:
            case TextPart():
                sources.append((j, "text"))
                texts.append(self.text(part, i, j, message_id))
            case ToolCallPart():
                if wire_calls is not None:  # a class derived from ToolCallPart
                    wire_calls.append(self.call(part, i, j, message_id))
                else:
                    lose(i, j, "tool_call", "dropped", "only an assistant message holds tool calls",
                         message_id)
            case ThinkingPart():
                if not part.text:
                    lose(i, j, "thinking", "dropped", "reasoning with no text (encrypted or "
                         "omitted) has nothing Ollama can take", message_id)
                    return
                signer = part.signature.issuer if part.signature is not None else None
                if signer is not None and signer not in self.issuers:
                    # Another model's signed reasoning is its own, as every adapter holds it.
                    lose(i, j, "thinking", "dropped", f"reasoning signed by {signer} goes back to "
                         f"{signer} only", message_id)
                    return
                if signer is not None:  # an accepted issuer's: Ollama signs no reasoning
                    lose(i, j, "thinking", "rewritten", f"Ollama takes reasoning text only: sent "
                         f"without the signature from {signer}", message_id)
                thoughts.append(j)
                thinking.append(part.text)
            case _parts.RedactedThinkingPart():
                lose(i, j, "redacted_thinking", "dropped",
                     f"encrypted reasoning goes back to {part.data.issuer} only", message_id)
            case ImagePart():
                image = self.image(part, i, j, message_id)
                if image is not None:
                    images.append(image)
            case _parts.DocumentPart():
                lose(i, j, "document", "dropped", "Ollama's chat takes no documents", message_id)
            case _parts.AudioPart():
                lose(i, j, "audio", "dropped", "Ollama's chat takes no audio", message_id)
            case _parts.RefusalPart():
                lose(i, j, "refusal", "downgraded", "Ollama has no refusal part; sent as text",
                     message_id)
                sources.append((j, "refusal"))
                texts.append(part.text)
            case _parts.ServerToolCallPart() | _parts.ServerToolResultPart():
                lose(i, j, part.type, "dropped",
                     f"a server tool block from {part.issuer} can only be replayed to {part.issuer}",
                     message_id)
            case _parts.UnknownPart():
                if part.issuer in self.issuers and isinstance(part.raw, dict):
                    # A field Ollama wrote that partwire has no part for.
                    self.kept = {**(self.kept or {}), **part.raw}
                else:
                    lose(i, j, "unknown", "dropped", foreign_unknown_reason(part), message_id)
            case _:
                assert_never(part)

    def image(self, part: ImagePart, i: int, j: int, message_id: str) -> str | None:
        """An image's base64 text; an image by URL or by reference is a loss (Ollama reads
        images inline only)."""
        source = part.source
        match source:
            case _parts.Base64Source():
                if part.detail is not None:
                    self.lose(i, j, "image", "dropped", "Ollama has no image detail setting",
                              message_id, ".detail")
                return source.data
            case _parts.UrlSource():
                where = "a URL"
            case _parts.FileRefSource():
                where = "a workspace file reference"
            case _parts.ProviderFileSource():
                where = f"a {source.issuer} file id"
            case _parts.TextSource():
                where = "text"
            case _:
                assert_never(source)
        self.lose(i, j, "image", "dropped", f"Ollama takes images inline as base64 only; this "
                  f"one is {where}", message_id)
        return None


