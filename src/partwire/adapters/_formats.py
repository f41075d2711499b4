"""Which API a wire body was written for, where a body says so: the readers' format check.

Every reader (``from_wire_request``, ``from_wire``) asks :func:`foreign_request` or
:func:`foreign_response` before it reads, and refuses with a :class:`WireFormatError` naming the
format it sees. Without it, three APIs that all call their list ``messages`` read each other's
bodies as empty or partial requests (a Converse body read as Anthropic had no readable block).
A reader whose plain messages cannot hold a sign (Anthropic's, Chat's) asks about the body's
fields first and about its messages (:func:`foreign_messages`) only after reading one that
could, or when reading fails: the refusal is the same as asking first.

A body is judged by signs that only one API defines: a top-level field, a message role, a
content block's ``type`` (or its absence, for Converse). A body with no such sign (a lone user
text with ``max_tokens``) is valid for several APIs alike and is read as asked. The scan stops
at the first sign and reads no block twice; its cost is a few dictionary lookups per message.

Ollama's native chat body looks like a Chat Completions one (``model``, ``messages`` with the
same roles, ``tool_calls``). What tells them apart is what only one writes: Ollama's top-level
``options``, ``format``, ``think`` and ``keep_alive``, and in a message ``images`` as a list,
a ``thinking`` text, a result's ``tool_name``, or calls with arguments as an object and no
``type``; Chat's ``tool_call_id``, content as a list of typed parts, calls with a ``type`` or arguments
as text, and the sampling fields Ollama keeps in ``options`` (``temperature``, ``max_tokens``,
``stop``...). A body with none of these (a model and plain texts) is valid for both.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from partwire.errors import WireFormatError
from partwire.model_ids import model_owner

__all__ = ["LABELS", "foreign_messages", "foreign_request", "foreign_response", "refuse_foreign_messages", "refuse_foreign_request",
           "refuse_foreign_response"]

LABELS: dict[str, str] = {
    "anthropic": "an Anthropic Messages",
    "openai_chat": "an OpenAI Chat Completions",
    "openai_responses": "an OpenAI Responses",
    "google": "a Gemini generateContent",
    "bedrock": "a Bedrock Converse",
    "ollama": "an Ollama chat",
    "cohere": "a Cohere v2 Chat",
    "typed": "an Anthropic Messages, OpenAI Chat Completions or Cohere v2 Chat",
    "chat_or_cohere": "an OpenAI Chat Completions or Cohere v2 Chat",
    "messages": "an Anthropic Messages, OpenAI Chat Completions or Ollama chat",
}
"""How an error names each API's body (``a Bedrock Converse`` request)."""

# Top-level request fields that exactly one API defines, by API. Fields that two APIs share
# (metadata, tools, stream, temperature, top_k, reasoning, toolConfig) are never a sign.
_TOP: tuple[tuple[str, frozenset[str]], ...] = (
    ("google", frozenset({"contents", "systemInstruction", "system_instruction", "generationConfig",
                          "generation_config", "safetySettings", "safety_settings", "cachedContent",
                          "cached_content"})),
    ("openai_responses", frozenset({"input", "instructions", "previous_response_id", "conversation",
                                    "max_output_tokens", "truncation", "include", "max_tool_calls"})),
    ("bedrock", frozenset({"modelId", "inferenceConfig", "additionalModelRequestFields",
                           "additionalModelResponseFieldPaths", "guardrailConfig", "promptVariables",
                           "performanceConfig", "requestMetadata", "outputConfig"})),
    ("anthropic", frozenset({"stop_sequences", "anthropic_version", "anthropic_beta", "mcp_servers",
                             "context_management", "container"})),
    ("openai_chat", frozenset({"max_completion_tokens", "n", "response_format", "frequency_penalty",
                               "presence_penalty", "logprobs", "top_logprobs", "stream_options",
                               "reasoning_effort", "modalities", "logit_bias", "functions",
                               "function_call", "prediction", "audio", "web_search_options", "seed",
                               "random_seed", "safe_prompt", "prompt_mode"})),
    # Ollama's native chat: its sampling lives in options, its switches beside them.
    ("ollama", frozenset({"options", "keep_alive", "think", "format"})),
    ("cohere", frozenset({"documents", "citation_options", "safety_mode", "strict_tools", "k", "p",
                          "priority"})),
)
# Fields of another API's list above that an API defines too: no sign when that API reads them.
_ALSO: dict[str, frozenset[str]] = {
    "cohere": frozenset({"response_format", "frequency_penalty", "presence_penalty", "seed",
                         "stop_sequences"}),
}
# The API a model's owner speaks natively, for the first-party readers' model check.
_OWNER_API = {"anthropic": "anthropic", "openai": "openai_chat", "google": "google", "cohere": "cohere"}
# Per reading adapter, the top-level fields of all the others together.
_OTHERS_TOP: dict[str, frozenset[str]] = {
    own: frozenset().union(*(fields for api, fields in _TOP if api != own)) for own, _ in _TOP}
# Top-level fields that Chat Completions and Anthropic share and Ollama's chat lacks (it states
# sampling in options): a sign, for the Ollama reader only, that the body is one of theirs.
_TYPED_TOP = frozenset({"temperature", "top_p", "top_k", "max_tokens", "stop", "tool_choice",
                        "parallel_tool_calls", "user", "metadata", "stream_options", "store",
                        "service_tier"})
# Message roles only Chat Completions (and its dialects) puts in ``messages`` (a system message
# there is an option of Anthropic's reader and writer too).
_CHAT_ROLES = frozenset({"system", "developer", "tool", "function"})
# The roles Cohere shares with Chat Completions.
_COHERE_ROLES = frozenset({"system", "tool"})
# The keys of a message that holds nothing but its role and content.
_ROLE_AND_CONTENT = frozenset({"role", "content"})
# Content block types by the one API that defines them inside ``messages``.
_BLOCK_TYPES: dict[str, str] = {
    **dict.fromkeys(("image_url", "input_audio", "file", "refusal"), "openai_chat"),
    # Not ``thinking``: Mistral's Chat dialect has a block of that name too.
    **dict.fromkeys(("tool_use", "tool_result", "redacted_thinking", "server_tool_use",
                     "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
                     "mcp_tool_use", "mcp_tool_result", "search_result", "container_upload",
                     "document", "image"), "anthropic"),
    **dict.fromkeys(("input_text", "input_image", "input_file", "output_text"), "openai_responses"),
}
# Converse blocks carry no ``type``: the block is keyed by its kind.
_CONVERSE_BLOCKS = frozenset({"text", "image", "document", "video", "audio", "toolUse", "toolResult",
                              "reasoningContent", "cachePoint", "guardContent", "citationsContent"})


def foreign_request(body: Mapping[str, Any], own: str, *, tools_read: bool = False,
                    messages: bool = True) -> tuple[str, str, str] | None:
    """The other API ``body`` was written for, the sign and where it is; ``None`` when none shows.

    ``own`` is the reading adapter's name: its own signs are passed over, so a body only another
    API could have written is named, and one that several could have written is not.
    ``tools_read``: the reader has read these very tools before (they showed no sign then), so
    they are not looked at again. ``messages=False`` leaves the messages to
    :func:`foreign_messages`, for a reader that asks it only where its own reading met a message
    that could hold a sign (the signs of the body's fields come first either way).
    """
    model = body.get("model")
    # The provider the model's name says (Chat's dialects and Ollama serve any), asked once for
    # the signs that read it.
    owner = model_owner(model) if isinstance(model, str) and own not in ("openai_chat", "ollama") else None
    keys = body.keys()
    found = _cohere_sign(body, own, owner)
    if found is not None:
        return found
    others = _OTHERS_TOP.get(own)
    if others is None or not keys.isdisjoint(others):  # one look for the common body, with none
        also = _ALSO.get(own, frozenset())
        for api, fields in _TOP:
            if api != own and not keys.isdisjoint(fields) and (not also or not keys.isdisjoint(fields - also)):
                field = next(k for k in body if k in fields and k not in also)
                if api == "openai_chat" and own != "cohere" and field in _ALSO["cohere"]:
                    api = "chat_or_cohere"  # a field Cohere defines too (seed, response_format...)
                return api, f"a top-level {field}", field
    if own == "ollama":
        found = _typed_for_ollama(body)
        if found is not None:
            return found
    if model is not None and own == "bedrock":
        return "messages", "a top-level model (Converse names it in the URL)", "model"
    if own == "anthropic" and owner == "openai":
        # Anthropic serves only its own models; an OpenAI model in a messages body is Chat's.
        return "openai_chat", f"the OpenAI model {model}", "model"
    if own == "cohere" and isinstance(model, str) and ":" in model and "/" not in model:
        # A name:tag model (gemma3:1b) is how Ollama names what it runs; Cohere serves only its own.
        return "ollama", f"the Ollama model tag {model}", "model"
    served = _OWNER_API.get(owner or "") if own == "cohere" else None
    if served is not None and served != own:
        # Cohere serves only its own models.
        return served, f"the {_MODEL_OWNERS[served]} model {model}", "model"
    thinking = body.get("thinking")
    if own != "anthropic" and isinstance(thinking, dict) and (
            "budget_tokens" in thinking or thinking.get("type") == "adaptive"):
        return "anthropic", "a top-level thinking budget", "thinking"
    system = body.get("system")
    if system is not None and own != "anthropic" and (isinstance(system, str) or _typed_list(system)):
        return "anthropic", "a top-level system prompt", "system"
    if isinstance(system, list) and system and own != "bedrock" and _converse_block(system[0]):
        return "bedrock", "a system block with no type", "system[0]"
    tools = None if tools_read else body.get("tools")
    if isinstance(tools, list):
        for i, tool in enumerate(tools):
            shape = _tool_api(tool)
            # Ollama's and Cohere's tools are Chat Completions' function tools, to the letter.
            if shape is not None and shape != own and not (shape == "openai_chat" and own in ("ollama", "cohere")):
                return shape, "a tool in its shape", f"tools[{i}]"
    return foreign_messages(body, own) if messages else None


def foreign_messages(body: Mapping[str, Any], own: str) -> tuple[str, str, str] | None:
    """:func:`foreign_request`'s look at the messages alone (``messages=False`` left it out)."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return None
    writers, quiet, plain, chat_roles, typed_calls = _SCANS.get(own) or _scan(own)
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            return None
        role = message.get("role")
        # A message of role and content alone (the commonest) has none of the keys the signs
        # below look for; only its role can still be one.
        if not plain or not message.keys() <= _ROLE_AND_CONTENT:
            if own != "cohere" and "tool_plan" in message:
                return "cohere", "a message's tool_plan", f"messages[{i}].tool_plan"
            if own != "ollama":
                sign = _ollama_message(message)
                if sign is not None:
                    return "ollama", f"a message's {sign}", f"messages[{i}].{sign}"
            elif _chat_message(message):
                # Cohere's messages have these too (a call id, typed calls): both are named.
                return "chat_or_cohere", "a message in their shape (a call id, typed calls)", f"messages[{i}]"
        if chat_roles and type(role) is str and role in _CHAT_ROLES and (
                role != "system" or own != "anthropic") and (role not in _COHERE_ROLES or own != "cohere"):
            return "openai_chat", f"a {message['role']} message", f"messages[{i}].role"
        if typed_calls and "tool_calls" in message:
            return "openai_chat", "a message's tool_calls", f"messages[{i}].tool_calls"
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for j, block in enumerate(content):
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if type(kind) is str and kind in quiet:
                continue
            if kind is None:
                if own != "bedrock" and _converse_block(block):
                    return "bedrock", "a content block with no type", f"messages[{i}].content[{j}]"
                continue
            writer = writers.get(kind) if isinstance(kind, str) else None
            if (kind == "document" and "source" not in block) or (kind == "thinking" and type(
                    block.get("thinking")) is str and "signature" not in block and own != "anthropic"):
                writer = "cohere"  # Cohere's {"document": {...}} and its unsigned thinking text
            elif kind == "image_url" and own == "cohere":
                writer = None  # Chat's image item, which Cohere takes too
            if writer is not None and writer != own:
                return writer, f"a {kind} block", f"messages[{i}].content[{j}].type"
    return None


def _foreign_blocks(own: str) -> dict[str, str]:
    """The block types another API than ``own`` defines, each with that API. Converse blocks
    never carry a type, so to Converse a ``text`` block is one of the typed APIs' (which of
    the two is unclear); other unknown types pass: a block Converse may add later is kept as
    an unknown part."""
    writers = {kind: writer for kind, writer in _BLOCK_TYPES.items() if writer != own}
    if own in ("bedrock", "ollama"):
        # Ollama's content is text, never blocks: a text block is a typed API's there too.
        writers["text"] = "typed"
    return writers


# Per reading adapter: the block types of the other APIs.
_FOREIGN_BLOCKS = {own: _foreign_blocks(own) for own in LABELS}


def _quiet_blocks(own: str) -> frozenset[str]:
    """The block types that are no sign of another API to the reader ``own`` whatever the
    block holds: its own types (but ``document``, which Cohere writes without a source) and
    the shared ``text`` (``thinking`` too, for Anthropic's). The scan passes over these with
    one lookup; any other type goes through the rules above."""
    quiet = {kind for kind, writer in _BLOCK_TYPES.items() if writer == own and kind != "document"}
    if own not in ("bedrock", "ollama"):
        quiet.add("text")
    if own == "anthropic":
        quiet.add("thinking")
    if own == "cohere":
        quiet.add("image_url")  # Chat's image item, which Cohere takes too
    return frozenset(quiet)


_QUIET_BLOCKS = {own: _quiet_blocks(own) for own in LABELS}


def _scan(own: str) -> tuple[dict[str, str], frozenset[str], bool, bool, bool]:
    """What the message scan of the reader ``own`` looks for: the other APIs' block types, the
    types it passes over, whether a plain message's keys are no sign (Ollama's reader looks at
    them: a developer or function role is Chat's), whether Chat's roles and its ``tool_calls``
    are a sign."""
    return (_FOREIGN_BLOCKS.get(own) or _foreign_blocks(own), _QUIET_BLOCKS.get(own, frozenset()),
            own != "ollama", own not in ("openai_chat", "ollama"),
            own not in ("openai_chat", "ollama", "cohere"))


# Per reading adapter, worked out once: every request read asks.
_SCANS = {own: _scan(own) for own in LABELS}


def _typed_for_ollama(body: Mapping[str, Any]) -> tuple[str, str, str] | None:
    """For the Ollama reader: a top-level field of Chat Completions or Anthropic, or a model
    only OpenAI or Anthropic serves (Ollama's ``gpt-oss`` is open weights, and its own)."""
    field = next((k for k in body if k in _TYPED_TOP), None)
    if field is not None:
        return "typed", f"a top-level {field} (Ollama states sampling in options)", field
    model = body.get("model")
    if isinstance(model, str) and not model.startswith("gpt-oss"):
        owner = model_owner(model)
        if owner == "openai":
            return "openai_chat", f"the OpenAI model {model}", "model"
        if owner == "anthropic":
            return "anthropic", f"the Anthropic model {model}", "model"
    return None


def _ollama_message(message: Mapping[str, Any]) -> str | None:
    """The key that makes ``message`` Ollama's: images as a list beside the content, a tool
    result's ``tool_name``, a reply's ``thinking`` text, or calls with arguments as an object
    and no id; ``None`` when none does."""
    if isinstance(message.get("images"), list):
        return "images"
    if "tool_name" in message and "tool_call_id" not in message:
        return "tool_name"
    if isinstance(message.get("thinking"), str):
        return "thinking"
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls and all(
            isinstance(c, dict) and "type" not in c and isinstance(c.get("function"), dict)
            and not isinstance(c["function"].get("arguments"), str) for c in calls):
        return "tool_calls"
    return None


def _chat_message(message: Mapping[str, Any]) -> bool:
    """Whether ``message`` has what only Chat Completions writes: a result's call id, calls typed
    ``function`` or with arguments as text, a developer or function role. (Content as a list is
    never Ollama's; its blocks say whose it is.)"""
    if "tool_call_id" in message or message.get("role") in ("developer", "function"):
        return True
    calls = message.get("tool_calls")
    return isinstance(calls, list) and any(
        isinstance(c, dict) and ("type" in c or (
            isinstance(c.get("function"), dict) and isinstance(c["function"].get("arguments"), str)))
        for c in calls)


def _cohere_sign(body: Mapping[str, Any], own: str, owner: str | None) -> tuple[str, str, str] | None:
    """A sign that Cohere wrote ``body`` (or, read as Cohere's, that another API did), from the
    fields Cohere shares with Chat Completions but spells its own way; ``None`` when none shows.
    ``owner``: the provider the body's model belongs to (``None`` for the readers of Chat and Ollama,
    which serve any model)."""
    if own == "cohere":
        return None
    if owner == "cohere":
        model = body["model"]
        # First-party APIs serve only their own models (Chat's dialects and Ollama serve open
        # weights, Cohere's among them).
        return "cohere", f"the Cohere model {model}", "model"
    if body.get("tool_choice") in ("REQUIRED", "NONE"):
        return "cohere", f"tool_choice {body['tool_choice']}", "tool_choice"
    thinking, fmt = body.get("thinking"), body.get("response_format")
    if isinstance(thinking, dict) and "token_budget" in thinking:
        return "cohere", "a top-level thinking token_budget", "thinking"
    if isinstance(fmt, dict) and fmt.get("type") == "json_object" and len(fmt) > 1:
        return "cohere", "a json_object response_format with a schema", "response_format"
    return None


_MODEL_OWNERS = {"anthropic": "Anthropic", "openai_chat": "OpenAI", "google": "Gemini", "cohere": "Cohere"}


def refuse_foreign_request(body: Mapping[str, Any], own: str, provider: str, *,
                           tools_read: bool = False) -> None:
    """Raise a :class:`WireFormatError` when ``body`` is a request of another API than ``own``
    (``tools_read``: as :func:`foreign_request`)."""
    found = foreign_request(body, own, tools_read=tools_read)
    if found is not None:
        api, sign, path = found
        raise WireFormatError(provider, "request", f"this is {LABELS[api]} request ({sign}), not "
                              f"{LABELS[own]} one: read it with {_ADVICE.get(api, f'the {api} adapter')}", path)


def refuse_foreign_messages(body: Mapping[str, Any], own: str, provider: str) -> None:
    """:func:`refuse_foreign_request` for the signs in ``body``'s messages alone (a reader that
    checked the rest with ``messages=False``)."""
    if foreign_messages(body, own) is not None:
        refuse_foreign_request(body, own, provider)


# Response fields by the one API that defines them, tried in order.
_RESPONSE_TOP: tuple[tuple[str, str], ...] = (
    ("choices", "openai_chat"),
    ("candidates", "google"),
    ("usageMetadata", "google"),
    ("promptFeedback", "google"),
    ("stopReason", "bedrock"),
    ("finish_reason", "cohere"),
)


def foreign_response(body: Mapping[str, Any], own: str) -> tuple[str, str] | None:
    """The other API response ``body`` was written for and the sign; ``None`` when none shows."""
    obj = body.get("object")
    if obj == "response" and own != "openai_responses":
        return "openai_responses", "object: response"
    if obj in ("chat.completion", "chat.completion.chunk") and own != "openai_chat":
        return "openai_chat", f"object: {obj}"
    if body.get("type") == "message" and body.get("role") == "assistant" and own != "anthropic":
        return "anthropic", "type: message"
    for field, api in _RESPONSE_TOP:
        if field in body and api != own:
            return api, f"a top-level {field}"
    if own != "ollama" and isinstance(body.get("message"), dict) and "done" in body:
        return "ollama", "a top-level message and done"
    output = body.get("output")
    if isinstance(output, dict) and "message" in output and own != "bedrock":
        return "bedrock", "an output message"
    if isinstance(output, list) and own != "openai_responses":
        return "openai_responses", "an output list"
    return None


def refuse_foreign_response(body: Mapping[str, Any], own: str, provider: str) -> None:
    """Raise a :class:`WireFormatError` when ``body`` is a response of another API than ``own``."""
    found = foreign_response(body, own)
    if found is not None:
        api, sign = found
        raise WireFormatError(provider, "response", f"this is {LABELS[api]} response ({sign}), not "
                              f"{LABELS[own]} one: read it with the {api} adapter")


_ADVICE = {"typed": "the anthropic, openai_chat or cohere adapter",
           "chat_or_cohere": "the openai_chat or cohere adapter",
           "messages": "the anthropic, openai_chat or ollama adapter"}


def _tool_api(tool: Any) -> str | None:
    """The one API whose tool definition has this shape, if any."""
    if not isinstance(tool, dict):
        return None
    if "input_schema" in tool:
        return "anthropic"
    if "toolSpec" in tool:
        return "bedrock"
    if "functionDeclarations" in tool or "function_declarations" in tool or "googleSearch" in tool:
        return "google"
    kind = tool.get("type")
    if kind == "function":
        return "openai_chat" if "function" in tool else "openai_responses" if "name" in tool else None
    if isinstance(kind, str) and _VERSIONED.fullmatch(kind):
        return "anthropic"  # web_search_20250305: Anthropic dates its server tools
    return None


_VERSIONED = re.compile(r"[a-z_]+_20\d{6}")


def _typed_list(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and isinstance(value[0], dict) and "type" in value[0]


def _converse_block(block: Any) -> bool:
    return isinstance(block, dict) and "type" not in block and not block.keys().isdisjoint(_CONVERSE_BLOCKS)
