"""Converse request validity: botocore's own parameter validator, plus the rules it skips.

botocore validates types, required members and unions from the service model, offline; it checks
no enum, pattern or length. The API's role enum, the ``ToolName`` and ``ToolUseId`` patterns,
non-blank text and the tool-choice name are checked here, read from the same service model, so
what a test accepts is what Converse accepts as far as its published model says. So are the
cache-point rules its user guide states and the service enforces: at most four checkpoints a
request, none first in a message or right after a reasoning block.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["converse_errors"]


@functools.cache
def _operations() -> dict[bool, Any]:
    import botocore.session

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    return {False: model.operation_model("Converse"), True: model.operation_model("ConverseStream")}


@functools.cache
def _pattern(shape: str) -> re.Pattern[str]:
    model = _operations()[False].service_model
    found = model.shape_for(shape)
    return re.compile(f"(?:{found.metadata['pattern']})")


def converse_errors(request: Mapping[str, Any], *, stream: bool = False) -> list[str]:
    """Every way ``request`` (``client.converse`` keyword arguments) fails; empty when valid."""
    from botocore.validate import ParamValidator

    operation = _operations()[stream]
    report = ParamValidator().validate(dict(request), operation.input_shape)
    errors = [line.strip() for line in report.generate_report().splitlines()] \
        if report.has_errors() else []
    roles = operation.service_model.shape_for("ConversationRole").enum
    name_rule, id_rule = _pattern("ToolName"), _pattern("ToolUseId")

    def name(value: Any, where: str) -> None:
        if isinstance(value, str) and not (name_rule.fullmatch(value) and len(value) <= 64):
            errors.append(f"{where}.name: {value!r} breaks ToolName's pattern or length")

    def call_id(value: Any, where: str) -> None:
        if isinstance(value, str) and not (id_rule.fullmatch(value) and len(value) <= 64):
            errors.append(f"{where}.toolUseId: {value!r} breaks ToolUseId's pattern or length")

    for i, message in enumerate(request.get("messages") or []):
        if not isinstance(message, Mapping):
            continue
        if message.get("role") not in roles or message.get("role") == "system":
            errors.append(f"messages[{i}].role: {message.get('role')!r} is not user or assistant")
        for j, block in enumerate(message.get("content") or []):
            where = f"messages[{i}].content[{j}]"
            if not isinstance(block, Mapping):
                continue
            if block.get("text") == "":
                errors.append(f"{where}.text: blank")
            if "cachePoint" in block:
                before = message["content"][j - 1] if j else None
                if before is None:
                    errors.append(f"{where}.cachePoint: first in its message, after nothing")
                elif isinstance(before, Mapping) and "reasoningContent" in before:
                    errors.append(f"{where}.cachePoint: right after a reasoning block")
            if isinstance(block.get("toolUse"), Mapping):
                name(block["toolUse"].get("name"), f"{where}.toolUse")
                call_id(block["toolUse"].get("toolUseId"), f"{where}.toolUse")
            if isinstance(block.get("toolResult"), Mapping):
                call_id(block["toolResult"].get("toolUseId"), f"{where}.toolResult")
    config = request.get("toolConfig")
    tools = config.get("tools") if isinstance(config, Mapping) else None
    points = sum(isinstance(b, Mapping) and "cachePoint" in b
                 for blocks in (request.get("system"), tools, *(
                     m.get("content") for m in request.get("messages") or [] if isinstance(m, Mapping)))
                 if isinstance(blocks, list) for b in blocks)
    if points > 4:
        errors.append(f"cachePoint: {points} cache checkpoints, more than the four a request takes")
    if isinstance(config, Mapping):
        for k, tool in enumerate(config.get("tools") or []):
            if isinstance(tool, Mapping) and isinstance(tool.get("toolSpec"), Mapping):
                name(tool["toolSpec"].get("name"), f"toolConfig.tools[{k}].toolSpec")
        choice = config.get("toolChoice")
        if isinstance(choice, Mapping) and isinstance(choice.get("tool"), Mapping):
            name(choice["tool"].get("name"), "toolConfig.toolChoice.tool")
    return errors
