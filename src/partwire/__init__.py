"""partwire: one canonical, typed, versioned form for LLM conversations.

Parts sit inside messages, messages and events inside a history. Adapters translate a history to
and from each provider's wire format; the codec stores it as JSONL.
"""

from partwire._base import ProviderData
from partwire.compare import coalesce, common_prefix, same_content
from partwire.errors import DecodeError, LossError, PartwireError, SchemaError, ToolArgumentsError
from partwire.history import (
    CompactionEvent,
    ErrorEvent,
    History,
    HistoryEvent,
    ModelSwitchEvent,
    RetryEvent,
    SubtaskEvent,
    TaskMetadataEvent,
    UnknownEvent,
)
from partwire.messages import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    RoutingDecision,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from partwire.parts import (
    AudioPart,
    Base64Source,
    Citation,
    DocumentCitation,
    DocumentPart,
    FileRefSource,
    ImagePart,
    MediaSource,
    Opaque,
    Part,
    ProviderFileSource,
    RedactedThinkingPart,
    RefusalPart,
    SearchResultCitation,
    ServerToolCallPart,
    ServerToolResultPart,
    TextPart,
    TextSource,
    ThinkingPart,
    ToolCallPart,
    UnknownPart,
    UrlCitation,
    UrlSource,
)
from partwire.tools import ArgumentProblem, ToolDefinition, check_arguments, check_schema
from partwire.toolstate import ToolCallState, tool_call_states
from partwire.usage import Usage
from partwire.validation import HistoryIssue, validate_history

__version__ = "0.1.0"

__all__ = [
    "ArgumentProblem",
    "AssistantMessage",
    "AudioPart",
    "Base64Source",
    "Citation",
    "CompactionEvent",
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
    "LossError",
    "MediaSource",
    "Message",
    "ModelSwitchEvent",
    "Opaque",
    "Part",
    "PartwireError",
    "ProviderData",
    "ProviderFileSource",
    "RedactedThinkingPart",
    "RefusalPart",
    "RetryEvent",
    "RoutingDecision",
    "SchemaError",
    "SearchResultCitation",
    "ServerToolCallPart",
    "ServerToolResultPart",
    "SubtaskEvent",
    "SystemMessage",
    "TaskMetadataEvent",
    "TextPart",
    "TextSource",
    "ThinkingPart",
    "ToolArgumentsError",
    "ToolCallPart",
    "ToolCallState",
    "ToolDefinition",
    "ToolMessage",
    "UnknownEvent",
    "UnknownPart",
    "UrlCitation",
    "UrlSource",
    "Usage",
    "UserMessage",
    "__version__",
    "check_arguments",
    "check_schema",
    "coalesce",
    "common_prefix",
    "same_content",
    "tool_call_states",
    "validate_history",
]
