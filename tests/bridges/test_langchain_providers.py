"""LangChain's own provider packages on what the LangChain bridge exports, offline.

Every recorded request of the corpus is imported by its adapter, exported through the bridge, and
handed to the provider package's own message conversion: langchain-aws's ChatBedrockConverse
through a real boto3 client (stopped by an event hook after it builds the call, before botocore
validates or sends it), langchain-anthropic's and langchain-openai's request payload builders.
The body each package builds must pass the SDK validator the adapter tests use, and carry every
non-text block of the recorded request (no call, result, reasoning, guard or media block lost on
the way; text blocks may merge, as LangChain merges consecutive messages of one role).
"""

from __future__ import annotations

import binascii
import contextlib
import functools
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from partwire.adapters import get_adapter
from partwire.bridges import langchain as bridge
from partwire.projection import Loss
from tests.harness.bedrock import converse_errors
from tests.harness.corpus import CORPUS
from tests.harness.replay import use_cassette
from tests.harness.validity import request_errors


def _records(folder: str) -> list[Path]:
    paths = []
    for path in sorted((CORPUS / folder).glob("*.json")):
        record = json.loads(path.read_text())
        request = record.get("request")
        if record.get("status") != 400 and isinstance(request, dict) and isinstance(request.get("messages"), list):
            paths.append(path)
    return paths or [CORPUS / folder / "MISSING-CORPUS.json"]


def _exported(adapter: str, path: Path) -> tuple[dict[str, Any], list[BaseMessage], tuple[Loss, ...]]:
    """The recorded request, and its history exported through the bridge (with its losses)."""
    record = json.loads(path.read_text())
    history = get_adapter(adapter).from_wire_request(record["request"]).history
    exported = bridge.to_messages(history)
    return record, list(exported.messages), exported.losses


def _kinds(messages: list[Any], key: str) -> Counter[str]:
    """How many blocks of each kind but text the messages hold (and Chat tool calls)."""
    kinds: Counter[str] = Counter()
    for message in messages:
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            kind = block.get(key) if key else next(iter(block))
            if kind != "text":
                kinds[str(kind)] += 1
        kinds["tool_calls"] += len(message.get("tool_calls") or ())
    return +kinds


# --- Bedrock: langchain-aws's ChatBedrockConverse, through boto3 ---------------------------------


class _Built(Exception):
    def __init__(self, params: dict[str, Any]) -> None:
        super().__init__("built")
        self.params = params


def _stop(params: dict[str, Any], **_: Any) -> None:
    raise _Built(dict(params))


@functools.cache
def _bedrock_client() -> Any:
    import boto3

    client = boto3.client("bedrock-runtime", region_name="us-east-1", aws_access_key_id="testing",
                          aws_secret_access_key="testing")
    client.meta.events.register("provide-client-params.bedrock-runtime.Converse", _stop)
    return client


def converse_call(messages: list[BaseMessage], model: str, **kwargs: Any) -> dict[str, Any]:
    """The keyword arguments ChatBedrockConverse passes to boto3's ``converse`` for ``messages``."""
    from langchain_aws import ChatBedrockConverse

    # A model ARN names no provider; the corpus's ARNs are inference profiles of Claude or Nova.
    provider = {"provider": "anthropic" if "anthropic" in model else "amazon"} if model.startswith("arn:") else {}
    chat = ChatBedrockConverse(model_id=model, client=_bedrock_client(), region_name="us-east-1", **provider)
    with pytest.raises(_Built) as built:
        chat.invoke(messages, **kwargs)
    return built.value.params


@pytest.mark.parametrize("path", _records("bedrock"), ids=lambda p: p.stem)
def test_langchain_aws_sends_every_bedrock_request_the_bridge_exports(path: Path) -> None:
    """A Converse request through partwire and LangChain comes out of ChatBedrockConverse as a
    call botocore's validator (and Converse's own rules) accept, holding every block it held."""
    record, messages, losses = _exported("bedrock", path)
    assert losses == ()
    body = record["request"]
    tools = {"toolConfig": body["toolConfig"]} if "toolConfig" in body else {}
    call = converse_call(messages, record["model"] or "amazon.nova-micro-v1:0", **tools)
    assert converse_errors(call) == []
    assert _kinds(call["messages"], "") == _kinds(body["messages"], "")
    assert _kinds(call["system"], "") == _kinds(body.get("system", []), "")


# --- Anthropic: langchain-anthropic's ChatAnthropic -----------------------------------------------


@functools.cache
def _chat_anthropic() -> Any:
    from langchain_anthropic import ChatAnthropic

    return ChatAnthropic(model="claude-sonnet-4-5", api_key="testing")


@pytest.mark.parametrize("path", _records("anthropic"), ids=lambda p: p.stem)
def test_langchain_anthropic_sends_every_anthropic_request_the_bridge_exports(path: Path) -> None:
    """An Anthropic request through partwire and LangChain comes out of ChatAnthropic's payload
    builder as a body the SDK's request type accepts, with every block it held (thinking with
    its signature, server tool blocks and their results included)."""
    record, messages, _losses = _exported("anthropic", path)
    payload = _chat_anthropic()._get_request_payload(messages)
    assert request_errors("anthropic", payload) == []
    assert _kinds(payload["messages"], "type") == _kinds(record["request"]["messages"], "type")


# --- OpenAI Chat: langchain-openai's ChatOpenAI ---------------------------------------------------


@functools.cache
def _chat_openai() -> Any:
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model="gpt-4o", api_key="testing")


def _langchain_openai_audio_format(payload: dict[str, Any]) -> int:
    """How many audio parts langchain-openai gave the format ``mpeg`` (the subtype of
    audio/mpeg; OpenAI takes ``mp3``), set to ``mp3`` in ``payload``: its quirk, not the bridge's."""
    fixed = 0
    for message in payload["messages"]:
        for part in message["content"] if isinstance(message.get("content"), list) else ():
            if part.get("type") == "input_audio" and part["input_audio"].get("format") == "mpeg":
                part["input_audio"]["format"] = "mp3"
                fixed += 1
    return fixed


@pytest.mark.parametrize("path", _records("openai-chat"), ids=lambda p: p.stem)
def test_langchain_openai_sends_every_chat_request_the_bridge_exports(path: Path) -> None:
    """A Chat Completions request through partwire and LangChain comes out of ChatOpenAI's
    payload builder as a body the SDK's request type accepts, with every part and tool call."""
    record, messages, _losses = _exported("openai_chat", path)
    payload = _chat_openai()._get_request_payload(messages)
    recorded_mp3 = json.dumps(record["request"]).count('"format": "mp3"')
    assert _langchain_openai_audio_format(payload) == recorded_mp3
    assert request_errors("openai_chat", payload) == []
    assert _kinds(payload["messages"], "type") == _kinds(record["request"]["messages"], "type")




def test_langchain_openai_sends_a_documents_file_name() -> None:
    """A document's file name reaches the file part langchain-openai builds (it writes a
    placeholder name when the block has none)."""
    from partwire import Base64Source, DocumentPart, UserMessage

    user = UserMessage([DocumentPart(source=Base64Source(data="JVBERi0="), media_type="application/pdf",
                                     filename="report.pdf")])
    payload = _chat_openai()._get_request_payload(list(bridge.to_messages([user]).messages))
    assert payload["messages"][0]["content"][0]["file"]["filename"] == "report.pdf"
    assert request_errors("openai_chat", payload) == []


# --- Gemini: langchain-google-genai's history conversion ------------------------------------------


def _google_records() -> list[Path]:
    paths = []
    for path in sorted((CORPUS / "google").glob("*.json")):
        record = json.loads(path.read_text())
        request = record.get("request")
        if record.get("status") != 400 and isinstance(request, dict) and isinstance(request.get("contents"), list):
            paths.append(path)
    return paths or [CORPUS / "google" / "MISSING-CORPUS.json"]


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word.title() for word in rest)


def _gemini_kinds(contents: list[Any]) -> Counter[str]:
    """How many parts hold each key but text (either spelling), leaving out thoughts with no
    signature: langchain-google-genai drops those on purpose (Gemini cannot use them), and
    counting a file at an http(s) URL as inline data: it downloads the file and sends it inline."""
    kinds: Counter[str] = Counter()
    for content in contents:
        for part in content.get("parts", ()):
            signed = "thoughtSignature" in part or "thought_signature" in part
            if part.get("thought") and not signed:
                continue
            kinds.update("inlineData" if _web_file(part) else _camel(k) for k in part if k != "text")
    return kinds


def _web_file(part: dict[str, Any]) -> bool:
    data = part.get("fileData") or part.get("file_data") or {}
    uri = data.get("fileUri") or data.get("file_uri") if isinstance(data, dict) else None
    return isinstance(uri, str) and uri.startswith(("http://", "https://"))


# The files at http(s) URLs the recorded requests point at, served to langchain-google-genai's
# download (there is no network here): a hand-written cassette, replayed strictly.
_WEB_FILES = Path(__file__).resolve().parents[2] / "cassettes" / "bridges" / "langchain_google_genai_image_url.yaml"


def _urlsafe_media(request: dict[str, Any]) -> bool:
    """Whether the request's inline media is URL-safe base64 (how google-genai dumps bytes)."""
    return any("-" in data or "_" in data for content in request["contents"] for part in content["parts"]
               if isinstance(data := (part.get("inlineData") or part.get("inline_data") or {}).get("data"), str))


@pytest.mark.parametrize("path", _google_records(), ids=lambda p: p.stem)
def test_langchain_google_genai_sends_every_gemini_request_the_bridge_exports(path: Path) -> None:
    """A generateContent request through partwire and LangChain comes out of
    langchain-google-genai's history conversion as contents google-genai's types accept, with
    every function call, response, media part and thought signature it held."""
    from langchain_google_genai.chat_models import _parse_chat_history

    record = json.loads(path.read_text())
    request = record["request"]
    messages = list(bridge.to_messages(get_adapter("google").from_wire_request(request).history).messages)
    web = any(_web_file(part) for content in request["contents"] for part in content.get("parts", ()))
    try:
        with use_cassette(_WEB_FILES) if web else contextlib.nullcontext():
            system, contents = _parse_chat_history(messages, model="gemini-2.5-flash")
    except binascii.Error:
        # langchain-google-genai decodes audio and document data as standard base64 only; the
        # canonical data is the recorded URL-safe text (its quirk, in docs/migrate/langchain.md)
        assert _urlsafe_media(request)
        return
    body: dict[str, Any] = {"contents": [c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in contents]}
    if system is not None:
        body["systemInstruction"] = system.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert request_errors("google", body) == []
    assert _gemini_kinds(body["contents"]) == _gemini_kinds(request["contents"])



# --- answers: the next turn after a recorded response ---------------------------------------------


def _responses(folder: str) -> list[Path]:
    paths = []
    for path in sorted((CORPUS / folder).glob("*.json")):
        record = json.loads(path.read_text())
        if isinstance(record.get("response"), dict) and record.get("status") in (200, None):
            paths.append(path)
    return paths or [CORPUS / folder / "MISSING-CORPUS.json"]


def _next_turn(answer: Any) -> list[Any]:
    """A question, the recorded answer, and what follows it (a result for each call, or another
    question): the canonical history of the next request."""
    from partwire import ToolCallPart, ToolMessage, UserMessage

    results = [ToolMessage("done", call_id=p.id, tool_name=p.name) for p in answer.parts
               if isinstance(p, ToolCallPart)]
    return [UserMessage("Go on."), answer, *results, *([] if results else [UserMessage("And then?")])]


def _signatures(blocks: list[Any]) -> list[str]:
    """Every signature in the blocks, wherever it sits."""
    found = []
    for block in blocks:
        text = json.dumps(block, default=str)
        found += [part.split('"', 2)[1] for part in text.split('"signature": ')[1:]]
    return sorted(found)


@pytest.mark.parametrize("path", _responses("bedrock"), ids=lambda p: p.stem)
def test_langchain_aws_sends_the_next_turn_after_every_bedrock_answer(path: Path) -> None:
    """After each recorded Converse answer, decoded by the Bedrock adapter and exported through
    the bridge, ChatBedrockConverse builds a next call botocore accepts, with the answer's blocks
    and signatures as the Bedrock adapter sends them from the same messages."""
    from partwire.adapters import bedrock

    record = json.loads(path.read_text())
    model = record["model"] or "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    messages = list(bridge.to_messages(_next_turn(bedrock.from_wire(record["response"], model_id=model))).messages)
    ours = bedrock.to_wire(bridge.from_messages(messages), model=f"bedrock:{model}").request
    names = sorted({b["toolUse"]["name"] for b in ours["messages"][1]["content"] if "toolUse" in b})
    tools = {"toolConfig": {"tools": [{"toolSpec": {"name": n, "inputSchema": {"json": {"type": "object"}}}}
                                      for n in names]}} if names else {}
    call = converse_call(messages, model, **tools)
    assert converse_errors(call) == []
    assert _kinds([call["messages"][1]], "") == _kinds([ours["messages"][1]], "")
    assert _signatures(call["messages"][1]["content"]) == _signatures(ours["messages"][1]["content"])


@pytest.mark.parametrize("path", _responses("anthropic"), ids=lambda p: p.stem)
def test_langchain_anthropic_sends_the_next_turn_after_every_anthropic_answer(path: Path) -> None:
    """After each recorded Messages answer, decoded by the Anthropic adapter and exported through
    the bridge, ChatAnthropic builds a next request with the answer's blocks and every signature
    the answer held, which the SDK accepts wherever it accepts the Anthropic adapter's own
    request from the same messages (the installed SDK lacks some newer beta block types)."""
    from partwire.adapters import anthropic

    record = json.loads(path.read_text())
    messages = list(bridge.to_messages(_next_turn(anthropic.from_wire(record["response"]))).messages)
    ours = anthropic.to_wire(bridge.from_messages(messages), model="claude-sonnet-4-5").request
    payload = _chat_anthropic()._get_request_payload(messages)
    assert bool(request_errors("anthropic", payload)) <= bool(request_errors("anthropic", ours))
    assert _kinds([payload["messages"][1]], "type") == _kinds([ours["messages"][1]], "type")
    assert _signatures(payload["messages"][1]["content"]) == _signatures(record["response"]["content"])
