"""The canonical scenarios every adapter is tested on, as deterministic, provider-neutral histories.

A scenario is a conversation up to the next model call (``history`` and ``tools``), what the
provider answers (``reply``), and, for the stream-only cases, where the stream is cut short.
Earlier assistant turns carry echo state (tool-call ids, thinking signatures, redacted blobs) that
only their issuer can read; so that every adapter is tested echoing its *own* state, that state
comes from an :class:`Origin` supplied by the provider under test. Everything else is the same
for every provider.

Each scenario is built under its own deterministic id and clock sources, so adding a scenario or
reordering them never changes another one's ids.
"""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from partwire import (
    AssistantMessage,
    Base64Source,
    DeveloperMessage,
    DocumentPart,
    HistoryEvent,
    ImagePart,
    Opaque,
    Part,
    RedactedThinkingPart,
    RefusalPart,
    SystemMessage,
    ThinkingPart,
    ToolCallPart,
    ToolDefinition,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from partwire.ids import deterministic_sources, use_sources

__all__ = [
    "SCENARIO_NAMES",
    "Origin",
    "Scenario",
    "StreamFailure",
    "build_scenarios",
    "scenario",
]


@dataclass(frozen=True)
class Origin:
    """The provider that answered a scenario's earlier assistant turns: the one under test.

    Scenarios take ids and opaque values from these tuples in order, so a provider supplies
    values shaped like its own (``toolu_...``, ``call_...``) and enough of them. Scenarios build
    echo state only through the methods below; a provider whose state has another shape (a
    reasoning item id, a signature carried on a tool call) subclasses this and overrides them.
    """

    issuer: str
    """Issuer of the echo state (``anthropic``, ``openai``, ``google``)."""
    api: str
    """The adapter's wire API name, recorded on earlier assistant turns."""
    model: str
    """The model that answered earlier turns, ``provider:model``."""
    call_ids: tuple[str, ...]
    """The provider's own ids for the tool calls of earlier turns."""
    response_ids: tuple[str, ...]
    """The provider's ids of earlier responses."""
    signatures: tuple[str, ...]
    """Opaque thinking signatures of earlier turns, exactly as the provider sent them."""
    redacted: tuple[str, ...]
    """Opaque redacted-reasoning blobs of earlier turns."""

    def signature(self, n: int) -> Opaque:
        """The ``n``-th thinking signature as an opaque value of this issuer."""
        return Opaque(value=self.signatures[n], issuer=self.issuer)

    def thinking(self, text: str, n: int) -> Part:
        """Reasoning ``text`` signed with the ``n``-th signature, as this provider returns it."""
        return ThinkingPart(text=text, signature=self.signature(n))

    def redacted_part(self, n: int) -> Part:
        """The ``n``-th redacted reasoning blob as a part."""
        return RedactedThinkingPart(data=Opaque(value=self.redacted[n], issuer=self.issuer))

    def call(self, n: int, name: str, arguments: dict[str, object]) -> ToolCallPart:
        """A tool call of an earlier turn, carrying this provider's ``n``-th call id."""
        return ToolCallPart.create(name, arguments, provider_ids={self.issuer: self.call_ids[n]})

    def answer(self, n: int, parts: Sequence[Part | str], *, tool_use: bool = False) -> AssistantMessage:
        """An earlier assistant turn, as this provider's adapter would have decoded it."""
        return AssistantMessage(
            parts,
            model=self.model,
            provider=self.issuer,
            api=self.api,
            response_id=self.response_ids[n],
            stop_reason="tool_use" if tool_use else "stop",
        )


@dataclass(frozen=True)
class StreamFailure:
    """The provider fails in the middle of a streamed answer."""

    partial_text: str
    """The text streamed before the failure; the partial message keeps exactly this."""
    retryable: bool = True
    """Whether the failure is one a retry may get past (overload, not a bad request)."""


@dataclass(frozen=True)
class Scenario:
    """One conversation up to the next model call, and what the provider answers."""

    name: str
    """Stable name: file names of golden files and cassettes derive from it."""
    summary: str
    """What the scenario exercises, in one sentence."""
    history: tuple[HistoryEvent, ...]
    """The conversation sent to the model."""
    tools: tuple[ToolDefinition, ...] = ()
    """The tools offered."""
    reply: AssistantMessage | None = None
    """The answer the provider gives, in provider-neutral terms; ``None`` when the call fails."""
    max_output_tokens: int = 1024
    """The output budget of the call."""
    thinking_budget: int | None = None
    """Reasoning budget in tokens when the call asks for reasoning, else ``None``."""
    abort_after_text: str | None = None
    """For an interrupted stream: the client aborts once exactly this much text has arrived."""
    stream_failure: StreamFailure | None = None
    """For a stream that fails midway: what arrived before it failed."""


# -- tools ------------------------------------------------------------------------------------

GET_WEATHER = ToolDefinition(
    name="get_weather",
    description="Get the current weather for a city.",
    input_schema={
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name, e.g. Paris"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["city"],
    },
    side_effects="network",
    requires_workspace=False,
)
GET_FORECAST = ToolDefinition(
    name="get_forecast",
    description="Get the weather forecast for a city, some days ahead.",
    input_schema={
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name, e.g. Paris"},
            "days": {"type": "integer", "description": "How many days ahead, 1 to 7"},
        },
        "required": ["city", "days"],
    },
    side_effects="network",
    requires_workspace=False,
)
RUN_SHELL = ToolDefinition(
    name="run_shell",
    description="Run a shell command in the workspace and return its output.",
    input_schema={
        "type": "object",
        "properties": {"command": {"type": "string", "description": "The command line to run"}},
        "required": ["command"],
    },
    side_effects="execute",
)


# -- media ------------------------------------------------------------------------------------


def _png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A valid, uncompressed-looking PNG of one colour (real bytes, so providers could decode it)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height, 9))
        + chunk(b"IEND", b"")
    )


def _pdf(lines: Sequence[str]) -> bytes:
    """A valid one-page PDF showing ``lines`` (offsets in the xref table are exact)."""
    text = " ".join(f"({line}) Tj 0 -18 Td" for line in lines)
    stream = f"BT /F1 12 Tf 72 720 Td {text} ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


RED_SQUARE_PNG = base64.b64encode(_png(8, 8, (220, 30, 30))).decode()
"""Base64 of an 8x8 red PNG."""
INVOICE_PDF = base64.b64encode(
    _pdf(["Invoice 2026-001", "ACME Tools Ltd", "3 x Cordless drill  EUR 350.00", "Total: EUR 1,250.00"])
).decode()
"""Base64 of a one-page PDF invoice whose total is EUR 1,250.00."""
ANT_PHOTO_URL = "https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg"
"""A public photo of an ant, sent by URL."""


def _build_log(steps: int = 420) -> str:
    lines = [f"$ make build\nmkdir -p build/obj\n[  0/{steps}] configuring for x86_64-linux-gnu"]
    for step in range(1, steps + 1):
        module = f"src/{('core', 'io', 'net', 'ui', 'util')[step % 5]}/module_{step:03d}.c"
        lines.append(f"[{step:3d}/{steps}] CC {module} -> build/obj/module_{step:03d}.o (-O2 -Wall -Werror)")
        if step == steps - 3:
            lines.append(
                "src/net/socket.c:88:17: error: use of undeclared identifier 'SOCK_CLOEXEC'\n"
                "   88 |     int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);\n"
                "      |                                            ^~~~~~~~~~~~"
            )
    lines.append("make: *** [Makefile:42: build/obj/socket.o] Error 1")
    return "\n".join(lines)


BUILD_LOG = _build_log()
"""About 34 KB of build output with one compiler error near its end."""


# -- the scenarios ------------------------------------------------------------------------------


def _plain_chat(o: Origin) -> Scenario:
    return Scenario(
        name="plain_chat",
        summary="A multi-turn text conversation: user, earlier text answer, user.",
        history=(
            UserMessage("Hi! What's a good name for a grey cat?"),
            o.answer(0, ["How about Ash, Smokey or Pebble?"]),
            UserMessage("Something a bit more unusual, please."),
        ),
        reply=AssistantMessage(["Try Nimbus: like a grey rain cloud, soft and a little mysterious."],
                               stop_reason="stop"),
    )


def _system_developer(o: Origin) -> Scenario:
    return Scenario(
        name="system_developer",
        summary="A system prompt plus a developer message of command output after the user's turn.",
        history=(
            SystemMessage("You are a terse assistant for a Python project. Answer in one sentence."),
            UserMessage("Why does the test suite fail?"),
            DeveloperMessage(
                "$ pytest -q\n"
                "FAILED tests/test_parser.py::test_unicode - UnicodeDecodeError: 'ascii' codec can't "
                "decode byte 0xc3 in position 12: ordinal not in range(128)\n"
                "1 failed, 41 passed in 0.84s"
            ),
        ),
        reply=AssistantMessage(
            ["test_unicode fails because the parser reads the file with the ASCII codec; "
             "open it with encoding=\"utf-8\"."],
            stop_reason="stop",
        ),
    )


def _parallel_tools(o: Origin) -> Scenario:
    paris = o.call(0, "get_weather", {"city": "Paris", "unit": "celsius"})
    tokyo = o.call(1, "get_weather", {"city": "Tokyo", "unit": "celsius"})
    return Scenario(
        name="parallel_tools",
        summary="Two tool calls in one turn, answered by two results of which one is an error.",
        tools=(GET_WEATHER,),
        history=(
            UserMessage("What's the weather in Paris and in Tokyo?"),
            o.answer(0, ["I'll look up both cities at once.", paris, tokyo], tool_use=True),
            ToolMessage(
                call_id=paris.id, tool_name=paris.name, status="success",
                output_text='{"temperature": 18, "unit": "celsius", "conditions": "partly cloudy"}',
            ),
            ToolMessage(
                call_id=tokyo.id, tool_name=tokyo.name, status="error",
                output_text="weather service timed out after 10 s",
            ),
        ),
        reply=AssistantMessage(
            ["Paris is 18 °C and partly cloudy. I couldn't get Tokyo's weather: the weather "
             "service timed out, so try again in a moment."],
            stop_reason="stop",
        ),
    )


def _thinking_tool_use(o: Origin) -> Scenario:
    now = o.call(0, "get_weather", {"city": "Paris"})
    return Scenario(
        name="thinking_tool_use",
        summary="Signed thinking then a tool call, echoed with its result; the reply thinks and calls again.",
        tools=(GET_WEATHER, GET_FORECAST),
        max_output_tokens=4096,
        thinking_budget=2048,
        history=(
            UserMessage("Should I take an umbrella in Paris today and tomorrow?"),
            o.answer(0, [
                o.thinking(
                    "The user asks about today and tomorrow in Paris. "
                    "I'll start with the current conditions.",
                    0,
                ),
                now,
            ], tool_use=True),
            ToolMessage(
                call_id=now.id, tool_name=now.name,
                output_text='{"temperature": 14, "unit": "celsius", "conditions": "light rain"}',
            ),
        ),
        reply=AssistantMessage(
            [
                o.thinking(
                    "It is raining now, so an umbrella is needed today. "
                    "For tomorrow I need the forecast.",
                    1,
                ),
                "It's raining in Paris right now, so take one today. Let me check tomorrow.",
                ToolCallPart.create("get_forecast", {"city": "Paris", "days": 1}),
            ],
            stop_reason="tool_use",
        ),
    )


def _redacted_thinking(o: Origin) -> Scenario:
    return Scenario(
        name="redacted_thinking",
        summary="An earlier turn with redacted reasoning is echoed; the reply holds signed and redacted reasoning.",
        max_output_tokens=4096,
        thinking_budget=2048,
        history=(
            UserMessage("Is 2^61 - 1 prime?"),
            o.answer(0, [
                o.redacted_part(0),
                "Yes. 2^61 - 1 = 2305843009213693951 is a Mersenne prime.",
            ]),
            UserMessage("And 2^67 - 1?"),
        ),
        reply=AssistantMessage(
            [
                o.thinking("Cole factored 2^67 - 1 in 1903.", 2),
                o.redacted_part(1),
                "No. 2^67 - 1 = 193707721 × 761838257287, as Frank Nelson Cole showed in 1903.",
            ],
            stop_reason="stop",
        ),
    )


def _images_pdf(o: Origin) -> Scenario:
    return Scenario(
        name="images_pdf",
        summary="A user turn with an inline PNG, an image by URL and an inline PDF.",
        history=(
            UserMessage([
                "What is in these two pictures, and what does the invoice total?",
                ImagePart(source=Base64Source(data=RED_SQUARE_PNG), media_type="image/png"),
                ImagePart(source=UrlSource(url=ANT_PHOTO_URL), media_type="image/jpeg"),
                DocumentPart(
                    source=Base64Source(data=INVOICE_PDF),
                    media_type="application/pdf",
                    title="invoice-2026-001.pdf",
                ),
            ]),
        ),
        reply=AssistantMessage(
            ["The first picture is a plain red square, the second a close-up of an ant. "
             "The invoice totals EUR 1,250.00."],
            stop_reason="stop",
        ),
    )


def _long_tool_output(o: Origin) -> Scenario:
    build = o.call(0, "run_shell", {"command": "make build"})
    return Scenario(
        name="long_tool_output",
        summary="A tool result of about 34 KB of build log, sent whole.",
        tools=(RUN_SHELL,),
        history=(
            UserMessage("Run the build and tell me what failed."),
            o.answer(0, [build], tool_use=True),
            ToolMessage(call_id=build.id, tool_name=build.name, output_text=BUILD_LOG),
        ),
        reply=AssistantMessage(
            ["The build fails in src/net/socket.c at line 88: SOCK_CLOEXEC is undeclared. "
             "Include <sys/socket.h> with _GNU_SOURCE defined, or drop the flag and call fcntl."],
            stop_reason="stop",
        ),
    )


def _refusal(o: Origin) -> Scenario:
    return Scenario(
        name="refusal",
        summary="The provider refuses to answer.",
        history=(
            UserMessage("Give me step-by-step instructions to culture and weaponise anthrax."),
        ),
        reply=AssistantMessage(
            [RefusalPart(text="I can't help with that.")],
            stop_reason="refusal",
        ),
    )


_STORY = (
    "Elias kept the light at Carrow Point for forty years. "
    "Every night he climbed the hundred and twelve steps, trimmed the wick and wound the clockwork "
    "that turned the lens. Ships he would never see passed safely because of him, and that was "
    "enough. One winter a storm took the supply boat, and for six weeks he rationed oil, burning "
    "the light only in the darkest hours. When the boat finally came, the keeper's log showed not "
    "a single night missed."
)


def _interrupted_stream(o: Origin) -> Scenario:
    return Scenario(
        name="interrupted_stream",
        summary="A long streamed answer that the user interrupts after its first sentence.",
        history=(UserMessage("Tell me a story about a lighthouse keeper."),),
        reply=AssistantMessage([_STORY], stop_reason="stop"),
        abort_after_text="Elias kept the light at Carrow Point for forty years. ",
    )


def _in_stream_error(o: Origin) -> Scenario:
    return Scenario(
        name="in_stream_error",
        summary="The provider is overloaded: the whole call fails, and a stream fails after some text.",
        history=(UserMessage("Summarise the plot of Moby-Dick in three sentences."),),
        reply=None,
        stream_failure=StreamFailure(partial_text="Ishmael signs on to the whaling ship Pequod, whose "),
    )


_BUILDERS: tuple[Callable[[Origin], Scenario], ...] = (
    _plain_chat,
    _system_developer,
    _parallel_tools,
    _thinking_tool_use,
    _redacted_thinking,
    _images_pdf,
    _long_tool_output,
    _refusal,
    _interrupted_stream,
    _in_stream_error,
)

SCENARIO_NAMES: tuple[str, ...] = (
    "plain_chat",
    "system_developer",
    "parallel_tools",
    "thinking_tool_use",
    "redacted_thinking",
    "images_pdf",
    "long_tool_output",
    "refusal",
    "interrupted_stream",
    "in_stream_error",
)
"""Every scenario, in the order of the issue that asked for them."""


def scenario(name: str, origin: Origin) -> Scenario:
    """The scenario ``name``, built for ``origin`` under fresh deterministic id and clock sources."""
    builder = _BUILDERS[SCENARIO_NAMES.index(name)]
    ids, clock = deterministic_sources()
    with use_sources(ids=ids, clock=clock):
        built = builder(origin)
    assert built.name == name, (built.name, name)
    return built


def build_scenarios(origin: Origin) -> tuple[Scenario, ...]:
    """Every scenario, built for ``origin``."""
    return tuple(scenario(name, origin) for name in SCENARIO_NAMES)
