"""Google Gemini ``generateContent`` (Gemini API and Vertex AI) <-> canonical.

The mapping, every lossy case, the id pairing rules and the key-style rules:
``docs/adapters/google.md``. Works on plain JSON; accepts the ``google-genai`` SDK's objects by
duck typing and never imports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Literal

from partwire.adapters import Capabilities
from partwire.adapters._surface import ESTIMATE, RAISES, SAME_BODY, SETTINGS, Docs, surface
from partwire.adapters.google._decode import from_wire as _from_wire
from partwire.adapters.google._request import build_request
from partwire.adapters.google._request import from_wire_request as _from_wire_request
from partwire.adapters.google._stream import GeminiTranslator
from partwire.adapters.google._tokens import estimate_request_tokens
from partwire.adapters.google._tools import SchemaDialect
from partwire.adapters.google._wire import ISSUER, wire_model_name

__all__ = ["CAPABILITIES", "NAME", "Options", "astream", "estimate_input_tokens", "from_wire",
           "from_wire_request", "stream", "to_wire"]

NAME = "google"
"""The adapter's name in the registry."""

CAPABILITIES = Capabilities(
    name=NAME,
    issuer=ISSUER,
    thinking=True,
    images=True,
    documents=True,
    audio=True,
    tools=True,
    server_tools=True,  # executableCode / codeExecutionResult, toolCall / toolResponse
    system_prompt=True,
    system_messages_in_list=False,  # one systemInstruction
    developer_role=False,
    structured_output=True,
    streaming=True,
    streaming_tool_calls=True,  # Vertex AI only (partialArgs); the Gemini API sends calls whole
    parallel_tool_calls=True,
    prompt_caching=False,  # explicit caches are resources (cachedContent), not breakpoints
    citations=False,  # grounding and citation metadata are kept on the message, not typed on text
    refusals=False,
    image_media_types=frozenset({"image/png", "image/jpeg", "image/webp", "image/heic",
                                 "image/heif"}),
    document_media_types=frozenset({"application/pdf", "text/plain", "text/html", "text/css",
                                    "text/csv", "text/xml", "text/markdown", "text/rtf",
                                    "application/json", "application/x-javascript",
                                    "text/javascript", "application/x-python", "text/x-python"}),
    audio_media_types=frozenset({"audio/wav", "audio/mp3", "audio/mpeg", "audio/aiff",
                                 "audio/aac", "audio/ogg", "audio/flac"}),
    media_sources=frozenset({"url", "base64", "provider_file", "text"}),
    max_images=3600,
    max_tool_name_length=128,
)
"""What the Gemini API takes."""

Backend = Literal["gemini", "vertex"]
"""The Gemini Developer API (``generativelanguage.googleapis.com``) or Vertex AI."""
Signatures = Literal["auto", "required", "optional"]
"""Whether the target model requires thought signatures on function calls."""

_DEFAULT_VERSION = {"gemini": "v1beta", "vertex": "v1beta1"}
_DEFAULT_BASE = {"gemini": "https://generativelanguage.googleapis.com",
                 "vertex": "https://aiplatform.googleapis.com"}


@dataclass(frozen=True, slots=True)
class Options:
    """The Google adapter's own switches (``options=`` on every function, or as keywords)."""

    backend: Backend = "gemini"
    """``gemini`` (the Developer API) or ``vertex`` (Vertex AI): URLs, and the fields only one
    of them takes (``additionalProperties`` in OpenAPI schemas is Vertex's)."""
    api_version: str | None = None
    """The API version in the URL, pinned: ``v1beta`` (Gemini API) / ``v1beta1`` (Vertex) when
    unset. The SDK's own default moved to ``v1``; pin it in the client the same way."""
    base_url: str | None = None
    """The base URL, for a proxy or a regional Vertex endpoint."""
    project: str | None = None
    """Vertex AI project; without it the Vertex express-mode path (API key) is used."""
    location: str = "global"
    """Vertex AI location."""
    schema_dialect: SchemaDialect = "json_schema"
    """Tool schemas as ``parametersJsonSchema`` (full JSON Schema) or ``openapi`` (``parameters``
    in Gemini's OpenAPI dialect, for older models; every rewrite reported)."""
    signatures: Signatures = "auto"
    """``auto``: Gemini 3 models require a thought signature on the first function call of each
    turn (a call without a valid one gets Google's placeholder); ``required`` / ``optional`` say
    so for any model."""
    candidate: int = 0
    """Which candidate ``from_wire`` and ``stream`` read (``candidateCount`` > 1)."""

    def requires_signatures(self, model: str) -> bool:
        """Whether ``model`` refuses a function call without a thought signature."""
        if self.signatures != "auto":
            return self.signatures == "required"
        return wire_model_name(model).startswith("gemini-3")

    def endpoint(self, model: str, *, stream: bool = False) -> str:
        """The URL of ``generateContent`` (or of the SSE stream) for ``model``."""
        name = wire_model_name(model)
        version = self.api_version or _DEFAULT_VERSION[self.backend]
        base = (self.base_url or _DEFAULT_BASE[self.backend]).rstrip("/")
        if self.backend == "gemini":
            path = f"models/{name}"
        elif self.project:
            if self.base_url is None and self.location != "global":
                base = f"https://{self.location}-aiplatform.googleapis.com"
            path = f"projects/{self.project}/locations/{self.location}/publishers/google/models/{name}"
        else:
            path = f"publishers/google/models/{name}"
        method = "streamGenerateContent?alt=sse" if stream else "generateContent"
        return f"{base}/{version}/{path}:{method}"


_SURFACE = surface(
    NAME, Options, __name__, build=build_request, decode=_from_wire, read=_from_wire_request,
    count=estimate_request_tokens, translator=lambda options: partial(GeminiTranslator, options.candidate),
    docs=Docs(
        to_wire=(
            """The ``generateContent`` body for ``history``, in camelCase.

            Send it with ``client.models.generate_content(model=model, contents=body["contents"],
            config=...)`` or post it to ``Options.endpoint(model)``. ``model`` (``gemini-3-flash-preview``
            or ``google:...``) picks which thought signatures may be echoed (they do not cross models)
            and whether function calls need one. ``max_tokens`` sets ``generationConfig.maxOutputTokens``;
            ``params`` adds the other body fields (``generationConfig`` with temperature, stop sequences,
            response schema, ``thinkingConfig``; ``safetySettings``, ``cachedContent``, ``labels``...),
            snake_case keys written in camelCase. ``tool_choice`` becomes ``toolConfig``.
            ``strict=True`` raises :class:`~partwire.errors.LossError` instead of degrading.
            """,
            SETTINGS,
        ),
        from_wire=(
            """A response (dict, JSON text, the SDK's ``GenerateContentResponse``, or the JSON array of
            chunks ``streamGenerateContent`` returns without ``alt=sse``) as an assistant message.
            """,
            RAISES,
        ),
        from_wire_request="""A ``generateContent`` body (camelCase, snake_case or mixed) as history and tools.

        ``to_wire(r.history, **r.to_wire_kwargs()).request`` gives the body back, in camelCase.
        """,
        stream="""Stream events from SDK chunks, parsed chunks, raw SSE, or a raw/parsed JSON array.

        Ends with one ``MessageCompleteEvent`` holding the message. An in-stream ``{"error": ...}``
        (or the SDK's exception for it) becomes a ``StreamErrorEvent`` and the partial message with
        ``status="error"``; a stream cut short (no ``finishReason``) ends with the partial message.
        """,
        estimate_input_tokens=(
            ESTIMATE,
            """Counted on the body ``to_wire`` would send. Use the API's ``countTokens`` endpoint when
            you need the exact figure.
            """,
            SAME_BODY,
        ),
    ),
)

to_wire, from_wire, from_wire_request, stream, astream, estimate_input_tokens = _SURFACE
