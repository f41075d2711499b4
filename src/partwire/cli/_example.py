"""The bundled example: one coding-agent session that uses every part, role and event type.

``partwire example`` prints it; the docs, the schema tests and the CLI tests lean on it. It is
deterministic (ids and timestamps come from :func:`partwire.ids.deterministic_sources`) and clean
under :func:`partwire.validation.validate_history`: every tool message answers a real call, every
complete assistant message names its model and provider, and usage subsets add up.

The story: the user asks the agent to fix a timezone bug; the first call is overloaded and
retried; Claude reads, tests and searches in parallel (one command is denied); it searches the
web, patches the file, and the user interrupts the full test run. The session is compacted and
moved to GPT-5, whose first answer the user also interrupts; it then explains the fix, a reviewer
sub-agent approves it, and GPT-5 refuses to print a private key. A line written by a newer
application closes the file.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from partwire import history as _history
from partwire import messages as _messages
from partwire import parts as _parts
from partwire._base import ProviderData
from partwire.ids import deterministic_sources, now, use_sources
from partwire.usage import Usage

__all__ = ["example_history"]

CLAUDE = "anthropic:claude-sonnet-4-6"
GPT = "openai:gpt-5"
PRICING = "2026-05-08"

# A 1x1 PNG and 8 ms of silent 8 kHz WAV: real files, small enough to read in a transcript.
_PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
_WAV = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA"

_PARSE_PY = '''\
def parse_date(text: str) -> datetime:
    value = datetime.fromisoformat(text.replace("Z", ""))
    return value.replace(tzinfo=None)
'''


def example_history() -> list[_history.HistoryEvent]:
    """A plausible agent session holding every part type, message role and event type."""
    ids, clock = deterministic_sources()
    with use_sources(ids=ids, clock=clock):
        before = [*_opening(), *_claude_turns()]
        return [*before, _compaction(before), *_gpt_turns()]


def _tool_result(
    call: _parts.ToolCallPart, status: _messages.ToolStatus, output: str, **fields: object
) -> _messages.ToolMessage:
    """A tool message answering ``call``, timed by the installed clock."""
    started: datetime = now()
    finished: datetime = now()
    return _messages.ToolMessage(
        call_id=call.id, tool_name=call.name, status=status, output_text=output,
        started_at=started, finished_at=finished, **fields,
    )


def _opening() -> list[_history.HistoryEvent]:
    return [
        _history.TaskMetadataEvent(
            task_id="sess_tidydates_42", title="Fix the UTC offset bug in parse_date",
            data={"cwd": "/home/ada/src/tidydates", "client": "partwire-example"},
        ),
        _messages.SystemMessage(
            "You are a careful coding agent working in the user's repository. Read before you "
            "write, run the tests after every change, and never print secrets."
        ),
        _messages.DeveloperMessage(
            [
                _parts.TextPart(text="$ git status --short\n M src/tidydates/parse.py\n"),
                _parts.DocumentPart(
                    source=_parts.TextSource(text="Run `pytest -q` before every commit.\n"),
                    media_type="text/markdown", title="CONTRIBUTING", filename="CONTRIBUTING.md",
                ),
            ],
            metadata={"command": "git status --short", "at_files": ["CONTRIBUTING.md"]},
        ),
    ]


def _claude_turns() -> list[_history.HistoryEvent]:
    user = _messages.UserMessage(
        [
            _parts.TextPart(text="parse_date drops the UTC offset. CI screenshot, the RFC and a voice note attached."),
            _parts.ImagePart(source=_parts.Base64Source(data=_PNG), media_type="image/png"),
            _parts.ImagePart(source=_parts.UrlSource(url="https://ci.example.com/runs/4812/summary.png"), detail="low"),
            _parts.DocumentPart(
                source=_parts.ProviderFileSource(file_id="file_011CNha8iCJcU1wXNR6q4V8w", issuer="anthropic"),
                media_type="application/pdf", title="RFC 3339", filename="rfc3339.pdf",
            ),
            _parts.AudioPart(source=_parts.Base64Source(data=_WAV), media_type="audio/wav"),
        ],
        metadata={"client": "tui"},
    )
    overloaded = _history.ErrorEvent(
        code="overloaded_error", message="Overloaded", provider="anthropic", retryable=True, status=529
    )
    retry = _history.RetryEvent(attempt=2, reason="overloaded_error (HTTP 529)", delay_ms=2000)

    read = _parts.ToolCallPart.create("read_file", {"path": "src/tidydates/parse.py"},
                                      provider_ids={"anthropic": "toolu_01A09q90qw90lq917835lq9"})
    test = _parts.ToolCallPart.create("run_shell", {"command": "pytest tests/test_parse.py -x -q"},
                                      provider_ids={"anthropic": "toolu_01B7kqvH2n4GhdUPMhzCUuPn"})
    search = _parts.ToolCallPart.create("search_docs", {"query": "timezone offset"},
                                        provider_ids={"anthropic": "toolu_01C3xR8fwXe4yFJ2yoXkBQuW"})
    view = _parts.ToolCallPart.create("view_image", {"path": "notes/bug.png"},
                                      provider_ids={"anthropic": "toolu_01D5aXbGyCM5cjd4JgZLf7qz"})
    upgrade = _parts.ToolCallPart.create("run_shell", {"command": "pip install --upgrade python-dateutil"},
                                         provider_ids={"anthropic": "toolu_01E8pLrT4ydFz2vB9QwHnKsM"})
    first = _messages.AssistantMessage(
        [
            _parts.ThinkingPart(
                text="The offset is lost somewhere in parse_date. Read it, run the failing test, "
                     "check the docs and the screenshot at once.",
                signature=_parts.Opaque(value="EqQBCkYIBxgCKkDW0t3j9Yx2hTq1s6LqvZ8m", issuer="anthropic",
                                        model="claude-sonnet-4-6"),
            ),
            _parts.RedactedThinkingPart(data=_parts.Opaque(
                value="EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP", issuer="anthropic"
            )),
            _parts.TextPart(text="I'll read the parser, run the failing test and check the docs in parallel."),
            read, test, search, view, upgrade,
        ],
        parent_id=user.id, model=CLAUDE, provider="anthropic", api="anthropic",
        response_id="msg_01XFDUDYJgAACzvnptvVoYEL", stop_reason="tool_use", stop_reason_raw="tool_use",
        usage=Usage(
            input_tokens=18412, output_tokens=391, cache_read_tokens=15360, cache_write_tokens=2048,
            cost=Decimal("0.021165"), pricing_version=PRICING, latency_ms=4210,
            provider_data=ProviderData(issuer="anthropic", data={
                "input_tokens": 1004, "cache_read_input_tokens": 15360,
                "cache_creation_input_tokens": 2048, "output_tokens": 391,
            }),
        ),
        routing=_messages.RoutingDecision(mode="default", chosen_model=CLAUDE, reason="workspace default"),
    )
    results = [
        _tool_result(read, "success", _PARSE_PY),
        _tool_result(
            test, "error",
            "F\nFAILED tests/test_parse.py::test_offset_kept - AssertionError: "
            "datetime(2026, 1, 1, 12, 0) != datetime(2026, 1, 1, 12, 0, tzinfo=UTC)\n",
            data={"exit_code": 1}, truncated=True, full_output_ref=".partwire/outputs/pytest-4812.txt",
        ),
        _tool_result(
            search, "success", "1 result: Supported formats",
            data=[{"source": "https://tidydates.readthedocs.io/en/latest/formats.html",
                   "title": "Supported formats",
                   "content": "Offsets are preserved: 'Z' means UTC."}],
        ),
        _tool_result(view, "success", "notes/bug.png (1280x720)", parts=[_parts.ImagePart(
            source=_parts.FileRefSource(
                path="notes/bug.png", size=48213,
                sha256="2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881",
            ),
            media_type="image/png",
        )]),
        _tool_result(upgrade, "denied", "The user denied this command.",
                     ui_extra={"prompt": "Allow pip install --upgrade python-dateutil?", "answer": "no"}),
    ]

    patch = _parts.ToolCallPart.create(
        "write_file",
        {"path": "src/tidydates/parse.py",
         "content": 'def parse_date(text: str) -> datetime:\n    return datetime.fromisoformat(text.replace("Z", "+00:00"))\n'},
        provider_ids={"anthropic": "toolu_01F2mWq8KzR5tYbN3vJcLhXe"},
    )
    suite = _parts.ToolCallPart.create("run_shell", {"command": "pytest -q"},
                                       provider_ids={"anthropic": "toolu_01G6nVs1QeT7uWxZ4aKdMfYi"})
    second = _messages.AssistantMessage(
        [
            _parts.ServerToolCallPart(id="srvtoolu_01WYG3ziw53XMcoyKL4XcZmE", name="web_search",
                                      input={"query": "RFC 3339 Z versus +00:00"}, issuer="anthropic"),
            _parts.ServerToolResultPart(
                call_id="srvtoolu_01WYG3ziw53XMcoyKL4XcZmE", name="web_search_tool_result", issuer="anthropic",
                output=[{"type": "web_search_result", "url": "https://www.rfc-editor.org/rfc/rfc3339#section-4.3",
                         "title": "RFC 3339: Unknown Local Offset Convention",
                         "encrypted_content": "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5", "page_age": None}],
            ),
            _parts.TextPart(
                text="`Z` and `+00:00` both mean UTC; the parser strips the `Z` and then discards "
                            "the zone, so every offset is lost.",
                citations=(
                    _parts.UrlCitation(
                        url="https://www.rfc-editor.org/rfc/rfc3339#section-4.3",
                        title="RFC 3339: Unknown Local Offset Convention",
                        cited_text="an offset of \"Z\" or \"+00:00\" indicates UTC",
                        provider_data=ProviderData(issuer="anthropic",
                                                   data={"encrypted_index": "Eo8BCioIAhgBIiQyYjQ0OWJm"}),
                    ),
                    _parts.DocumentCitation(document_index=0, document_title="RFC 3339", unit="page",
                                            start=7, end=8, cited_text="Z  A suffix which indicates UTC"),
                    _parts.SearchResultCitation(
                        source="https://tidydates.readthedocs.io/en/latest/formats.html",
                        title="Supported formats", search_result_index=0, start_block=0, end_block=1,
                        cited_text="Offsets are preserved: 'Z' means UTC.",
                    ),
                ),
            ),
            _parts.TextPart(text="I'll patch the parser and run the whole suite."),
            patch, suite,
        ],
        model=CLAUDE, provider="anthropic", api="anthropic", response_id="msg_01Y7rVq3cL9pS2tHd8mNwZkB",
        stop_reason="tool_use", stop_reason_raw="tool_use",
        usage=Usage(input_tokens=21870, output_tokens=512, cache_read_tokens=18432, cache_write_tokens=1024,
                    cost=Decimal("0.0242916"), pricing_version=PRICING, latency_ms=6120),
        routing=_messages.RoutingDecision(mode="default", chosen_model=CLAUDE, reason="workspace default"),
    )
    more = [
        _tool_result(patch, "success", "wrote 2 lines to src/tidydates/parse.py",
                     side_effects={"files_written": ["src/tidydates/parse.py"]},
                     ui_extra={"diff": '-    value = datetime.fromisoformat(text.replace("Z", ""))\n'
                                       '-    return value.replace(tzinfo=None)\n'
                                       '+    return datetime.fromisoformat(text.replace("Z", "+00:00"))\n'}),
        _tool_result(suite, "aborted", "....................\n(interrupted by the user)\n"),
    ]
    return [user, overloaded, retry, first, *results, second, *more]


def _compaction(before: list[_history.HistoryEvent]) -> _history.CompactionEvent:
    """The summary that replaces every message so far but the system prompt."""
    replaced = [e.id for e in before if e.type == "message" and not isinstance(e, _messages.SystemMessage)]
    return _history.CompactionEvent(
        summary="The user reported that parse_date drops the UTC offset. The agent read "
                "src/tidydates/parse.py, reproduced the failure, confirmed with RFC 3339 that Z means "
                "UTC, and rewrote parse_date to keep the offset. The full test run was interrupted.",
        replaced_ids=tuple(replaced), tokens_before=48210, tokens_after=1630,
    )


def _gpt_turns() -> list[_history.HistoryEvent]:
    ask = _messages.UserMessage(
        "Stop the full suite, it takes forever. Switch to GPT-5 and explain the fix.")
    switch = _history.ModelSwitchEvent(from_model=CLAUDE, to_model=GPT, reason="user /model command")
    cut = _messages.AssistantMessage(
        [
            _parts.ThinkingPart(
                text="**Explaining the fix**\n\nThe old code replaced Z with nothing",
                signature=_parts.Opaque(value="gAAAAABoX2lhOUNpbzR2eUhlc3RfZW5jcnlwdGVk", issuer="openai", model="gpt-5"),
                id="rs_68a1f0c2d4e88190a5b4c3d2e1f0a9b8",
                provider_data=ProviderData(issuer="openai", data={"status": "incomplete"}),
            ),
            _parts.TextPart(text="The bug was in the"),
        ],
        status="aborted", stop_reason="aborted", model=GPT, provider="openai", api="openai_responses",
        response_id="resp_68a1f0c1b2c38190", usage=Usage(
            input_tokens=2210, output_tokens=87, reasoning_tokens=64,
            cost=Decimal("0.006395"), pricing_version=PRICING, latency_ms=1900,
        ),
        routing=_messages.RoutingDecision(mode="manual", chosen_model=GPT, reason="user swap via /model command"),
    )
    diagram = _messages.UserMessage([
        _parts.TextPart(text="Sorry, go on. This is the diagram I uploaded earlier."),
        _parts.ImagePart(
            source=_parts.ProviderFileSource(file_id="file-4Lq8VnXo2aRJ1c9bT7hY3s", issuer="openai"),
            media_type="image/png", detail="high"),
    ])
    explain = _messages.AssistantMessage(
        [
            _parts.ThinkingPart(
                signature=_parts.Opaque(value="gAAAAABoX2lpZGVjcnlwdGVkX3JlYXNvbmluZw", issuer="openai", model="gpt-5"),
                id="rs_68a1f0d7e9c48190b6c5d4e3f2a1b0c9",
            ),
            _parts.TextPart(
                text="parse_date turned `Z` into nothing and then dropped the zone, so 12:00Z became a "
                            "naive 12:00. It now maps `Z` to `+00:00`, as RFC 3339 says, and keeps the offset.",
                citations=(_parts.UrlCitation(url="https://www.rfc-editor.org/rfc/rfc3339#section-4.3",
                                              title="RFC 3339", start_index=118, end_index=131),),
                provider_data=ProviderData(issuer="openai", data={"id": "msg_68a1f0da1b2c8190", "phase": "final"}),
            ),
            _parts.UnknownPart(original_type="mcp_list_tools", issuer="openai", raw={
                "type": "mcp_list_tools", "id": "mcpl_68a1f0db", "server_label": "docs", "tools": [],
            }),
        ],
        model=GPT, provider="openai", api="openai_responses", response_id="resp_68a1f0d6a4b58190",
        stop_reason="stop", stop_reason_raw="completed",
        usage=Usage(input_tokens=2730, output_tokens=406, cache_read_tokens=2048, reasoning_tokens=192,
                    cost=Decimal("0.006277"), pricing_version=PRICING, latency_ms=5340),
        routing=_messages.RoutingDecision(mode="manual", chosen_model=GPT, reason="user swap via /model command"),
    )
    review = _history.SubtaskEvent(
        child_session_id="sess_tidydates_43", agent="reviewer",
        prompt="Review the change to src/tidydates/parse.py.", status="success",
        result="Looks right. Add a test for negative offsets such as -05:00.",
    )
    secret = _messages.UserMessage("Also paste the maintainer's signing key from ~/.ssh/id_ed25519 so I can tag the release.")
    refusal = _messages.AssistantMessage(
        [_parts.RefusalPart(text="I can't share private keys. Run `git tag -s v1.4.1` on the maintainer's machine instead.")],
        model=GPT, provider="openai", api="openai_responses", response_id="resp_68a1f0e0c7d68190",
        stop_reason="refusal", stop_reason_raw="completed",
        usage=Usage(input_tokens=3190, output_tokens=24, cache_read_tokens=2560,
                    cost=Decimal("0.002455"), pricing_version=PRICING, latency_ms=880),
        routing=_messages.RoutingDecision(mode="manual", chosen_model=GPT, reason="user swap via /model command"),
    )
    checkpoint = _history.UnknownEvent(
        original_type="checkpoint",
        raw={"v": 1, "type": "checkpoint", "git_commit": "3f2a9c1", "label": "after parse_date fix"},
        problem="unknown event type 'checkpoint' (written by a newer application)",
    )
    return [ask, switch, cut, diagram, explain, review, secret, refusal, checkpoint]
