"""A deterministic agent history shaped like real agent traffic, for benchmarks.

A system prompt; user turns with occasional small images; assistant turns with thinking and its
signature, text and 1-3 tool calls with ~200-byte JSON arguments; tool results of 1-4 KB; some
errors. The same ``n`` gives the same history, ids and timestamps included.
"""

from __future__ import annotations

import base64
import random

from partwire import (
    AssistantMessage,
    Base64Source,
    ErrorEvent,
    HistoryEvent,
    ImagePart,
    Opaque,
    ProviderData,
    SystemMessage,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolMessage,
    Usage,
    UserMessage,
)
from partwire.ids import deterministic_sources, use_sources

_WORDS = ["the", "build", "fails", "because", "module", "parser", "imports", "a", "symbol", "that", "was", "renamed", "during", "refactor", "so", "we", "update", "call", "sites", "then", "rerun", "tests", "and", "check", "coverage", "of", "edge", "cases", "in", "the", "tokenizer"]
_TOOLS = ("read_file", "write_file", "run_shell", "grep", "list_dir")


def _words(rnd: random.Random, n: int) -> str:
    return " ".join(rnd.choice(_WORDS) for _ in range(n))


def agent_history(n_messages: int, seed: int = 7) -> list[HistoryEvent]:
    """About ``n_messages`` history events of a coding agent's session."""
    rnd = random.Random(seed)
    ids, clock = deterministic_sources()
    image = base64.b64encode(rnd.randbytes(900)).decode()
    events: list[HistoryEvent] = []
    with use_sources(ids=ids, clock=clock):
        events.append(SystemMessage("You are a careful coding agent. " + _words(rnd, 120)))
        while len(events) < n_messages:
            user_parts: list[TextPart | ImagePart] = [TextPart(text=_words(rnd, rnd.randint(8, 60)))]
            if rnd.random() < 0.1:
                user_parts.append(ImagePart(source=Base64Source(data=image), media_type="image/png"))
            events.append(UserMessage(user_parts))
            for _ in range(rnd.randint(1, 3)):
                calls = [
                    ToolCallPart.create(
                        rnd.choice(_TOOLS),
                        {"path": f"src/pkg/module_{rnd.randint(0, 99)}.py",
                         "query": _words(rnd, 18), "limit": rnd.randint(1, 500)},
                        provider_ids={"anthropic": f"toolu_{rnd.getrandbits(96):024x}"},
                    )
                    for _ in range(rnd.randint(1, 3))
                ]
                events.append(AssistantMessage(
                    [
                        ThinkingPart(
                            text=_words(rnd, rnd.randint(20, 120)),
                            signature=Opaque(
                                value=base64.b64encode(rnd.randbytes(240)).decode(), issuer="anthropic"
                            ),
                        ),
                        TextPart(text=_words(rnd, rnd.randint(5, 40))),
                        *calls,
                    ],
                    model="anthropic:claude-sonnet-4-6", provider="anthropic", api="anthropic",
                    response_id=f"msg_{rnd.getrandbits(96):024x}", stop_reason="tool_use",
                    stop_reason_raw="tool_use",
                    usage=Usage(
                        input_tokens=rnd.randint(2000, 90000), output_tokens=rnd.randint(50, 900),
                        cache_read_tokens=1500, latency_ms=rnd.randint(400, 9000),
                        provider_data=ProviderData(
                            issuer="anthropic",
                            data={"input_tokens": 500, "cache_read_input_tokens": 1500,
                                  "cache_creation_input_tokens": 0, "output_tokens": 300},
                        ),
                    ),
                ))
                for call in calls:
                    failed = rnd.random() < 0.05
                    events.append(ToolMessage(
                        call_id=call.id, tool_name=call.name,
                        status="error" if failed else "success",
                        output_text=_words(rnd, rnd.randint(150, 600)),
                        data={"exit_code": 1 if failed else 0} if call.name == "run_shell" else None,
                    ))
                if rnd.random() < 0.03:
                    events.append(ErrorEvent(
                        code="overloaded_error", message="Overloaded", provider="anthropic",
                        retryable=True, status=529,
                    ))
            events.append(AssistantMessage(
                _words(rnd, rnd.randint(10, 80)), model="anthropic:claude-sonnet-4-6",
                provider="anthropic", api="anthropic", stop_reason="stop", stop_reason_raw="end_turn",
                usage=Usage(input_tokens=rnd.randint(2000, 90000), output_tokens=rnd.randint(50, 900)),
            ))
    del events[n_messages:]
    return events
