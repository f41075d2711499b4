"""An offline estimate of a Cohere v2 request's billed input tokens (docs/accounting.md).

Cohere bills the request's own text: message contents, tool plans and calls, documents and tool
definitions, without the prompt template its models read around them (``usage.tokens``). Its
tokenizer is unpublished; text is counted with the shared ``o200k`` counter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from partwire.adapters._estimate import Tally, obj, seq

__all__ = ["estimate_request_tokens"]

_SCHEMA_SHARE = 0.5
# The billed units of an image on command-a-vision (262 for a 1x1 PNG and a three-word question,
# 522 for two): a measured constant for small images; larger ones may cost more.
_IMAGE = 259


def estimate_request_tokens(request: Mapping[str, Any]) -> int:
    """Estimated billed input tokens of a Cohere v2 chat request body."""
    tally = Tally()
    images = 0
    for message in seq(request.get("messages")):
        message = obj(message)
        content = message.get("content")
        for item in content if isinstance(content, list) else (content,):
            if isinstance(item, Mapping):
                kind = item.get("type")
                if kind == "document":
                    tally.add_json(obj(item.get("document")).get("data"))
                elif kind == "image_url":
                    images += 1
                else:
                    tally.add_text(item.get(kind) if isinstance(kind, str) else item)
            else:
                tally.add_text(item)
        tally.add_text(message.get("tool_plan"))
        for call in seq(message.get("tool_calls")):
            function = obj(obj(call).get("function"))
            tally.add_text(function.get("name"))
            tally.add_text(function.get("arguments"))
    for document in seq(request.get("documents")):
        tally.add_json(document.get("data") if isinstance(document, Mapping) else document)
    schemas = Tally()
    for tool in seq(request.get("tools")):
        function = obj(obj(tool).get("function"))
        tally.add_text(function.get("name"))
        tally.add_text(function.get("description"))
        schemas.add_json(function.get("parameters"))
    # Cohere renders a tool's parameters more tightly than their JSON: about half of the JSON's
    # tokens are billed (fitted on the recorded requests with tools, docs/adapters/cohere.md).
    tally.fixed += schemas.text * _SCHEMA_SHARE
    fmt = obj(request.get("response_format")).get("json_schema")
    if fmt is not None:
        tally.add_json(fmt)
    tally.fixed += images * _IMAGE
    return tally.total(1.0)
