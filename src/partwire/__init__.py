"""partwire: one canonical, typed, versioned form for LLM conversations.

Parts sit inside messages, messages and events inside a history. Adapters translate a history to
and from each provider's wire format; the codec stores it as JSONL.
"""

import logging
from typing import TYPE_CHECKING, Any

from partwire._base import ProviderData
from partwire.compare import coalesce, common_prefix, same_content
from partwire.errors import *
from partwire.history import *
from partwire.messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    RoutingDecision,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from partwire.parts import *
from partwire.projection import Loss, Projection
from partwire.settings import (
    AllowedToolsChoice,
    AutoToolChoice,
    JsonObjectOutput,
    JsonSchemaOutput,
    NamedToolChoice,
    NoToolChoice,
    OutputFormat,
    Reasoning,
    RequestSettings,
    RequiredToolChoice,
    TextOutput,
    ToolChoiceSetting,
)
from partwire.streaming import Accumulator, StreamEvent, aaccumulate, accumulate
from partwire.switch import check_switch
from partwire.tools import (
    ArgumentProblem,
    CacheHint,
    ServerToolDefinition,
    ServerToolKind,
    ToolDefinition,
    UserLocation,
    check_arguments,
    check_schema,
)
from partwire.toolstate import ToolCallState, tool_call_states
from partwire.usage import Usage
from partwire.validation import HistoryIssue, validate_history

if TYPE_CHECKING:
    from partwire.session import Session

__version__ = "0.1.0"

# A library never prints through logging's last-resort handler: applications that configure
# logging still receive every record (losses, repaired lines) through propagation.
logging.getLogger("partwire").addHandler(logging.NullHandler())


def __getattr__(name: str) -> Any:
    """``partwire.Session``, imported on first use (PEP 562).

    A session brings every adapter and the codec with it, about a seventh of the import time;
    ``import partwire`` alone loads the format and nothing that reads or writes a wire.
    """
    if name == "Session":
        from partwire.session import Session

        globals()["Session"] = Session
        return Session
    raise AttributeError(f"module 'partwire' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), "Session"})

__all__ = [
    "Accumulator",
    "AllowedToolsChoice",
    "ArgumentError",
    "ArgumentProblem",
    "AssistantMessage",
    "AudioPart",
    "AutoToolChoice",
    "Base64Source",
    "CacheHint",
    "Citation",
    "CompactionEvent",
    "ConversionError",
    "DecodeError",
    "DeveloperMessage",
    "DocumentCitation",
    "DocumentPart",
    "ErrorEvent",
    "FileRefSource",
    "History",
    "HistoryEvent",
    "HistoryIssue",
    "ImagePart",
    "JsonObjectOutput",
    "JsonSchemaOutput",
    "Loss",
    "LossError",
    "MediaSource",
    "Message",
    "ModelSwitchEvent",
    "NamedToolChoice",
    "NoToolChoice",
    "Opaque",
    "OutputFormat",
    "Part",
    "PartwireError",
    "Projection",
    "ProviderData",
    "ProviderError",
    "ProviderFileSource",
    "Reasoning",
    "RedactedThinkingPart",
    "RefusalPart",
    "RequestSettings",
    "RequiredToolChoice",
    "RetryEvent",
    "RoutingDecision",
    "SchemaError",
    "SearchResultCitation",
    "ServerToolCallPart",
    "ServerToolDefinition",
    "ServerToolKind",
    "ServerToolResultPart",
    "Session",
    "StreamEvent",
    "StreamProtocolError",
    "SubtaskEvent",
    "SwitchRefusedError",
    "SystemMessage",
    "TaskMetadataEvent",
    "TextOutput",
    "TextPart",
    "TextSource",
    "ThinkingPart",
    "ToolArgumentsError",
    "ToolCallPart",
    "ToolCallState",
    "ToolChoiceSetting",
    "ToolDefinition",
    "ToolMessage",
    "UnknownAdapterError",
    "UnknownEvent",
    "UnknownPart",
    "UrlCitation",
    "UrlSource",
    "Usage",
    "UserLocation",
    "UserMessage",
    "WireFormatError",
    "__version__",
    "aaccumulate",
    "accumulate",
    "check_arguments",
    "check_schema",
    "check_switch",
    "coalesce",
    "common_prefix",
    "same_content",
    "tool_call_states",
    "validate_history",
]
