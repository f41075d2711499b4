/**
 * partwire's canonical history line (urn:partwire:schema:history-line:v1), as TypeScript types.
 * Generated from docs/schema/partwire.schema.json by json-schema-to-typescript: do not edit;
 * run `npm run generate` in types/typescript after the schema changes.
 */

/**
 * One line of a partwire history file (JSONL, schema version 1): a message (type "message", told apart by "role") or a history event, discriminated by "type". Parts inside messages are discriminated by "type" too. Objects allow extra properties: readers keep fields they do not know and write them back. The canonical types of the request around a history (generation settings, tool definitions) are in $defs too, for services that exchange them.
 */
export type PartwireHistoryLine =
  | Message
  | ErrorEvent
  | TaskMetadataEvent
  | CompactionEvent
  | RetryEvent
  | ModelSwitchEvent
  | SubtaskEvent
  | UnknownEvent;
/**
 * Any message, told apart by role.
 */
export type Message = SystemMessage | DeveloperMessage | UserMessage | AssistantMessage | ToolMessage;

/**
 * Instructions from the application; adapters hoist them where the provider wants them.
 */
export interface SystemMessage {
  /**
   * When it was made (UTC, microseconds).
   */
  created_at: string;
  /**
   * ULID, monotonic within the process that made it; never regenerated on load.
   */
  id: string;
  /**
   * Application data; never sent to a provider.
   */
  metadata?: {
    [k: string]: JsonValue | undefined;
  };
  /**
   * The message this one follows, for threads and forks.
   */
  parent_id?: string | null;
  /**
   * Text parts only (``validate_history`` reports anything else).
   */
  parts?: (
    | TextPart
    | ImagePart
    | DocumentPart
    | AudioPart
    | ThinkingPart
    | RedactedThinkingPart
    | ToolCallPart
    | ServerToolCallPart
    | ServerToolResultPart
    | RefusalPart
    | UnknownPart
  )[];
  /**
   * Echo state for the issuing provider only; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * The message's role.
   */
  role: "system";
  /**
   * Every message is a history event of type ``message``; ``role`` tells them apart.
   */
  type: "message";
  /**
   * Schema version of this line.
   */
  v: 1;
  [k: string]: unknown | undefined;
}
/**
 * Plain text, with the citations that back it.
 */
export interface TextPart {
  /**
   * Sources the text cites, in provider order.
   */
  citations?: (UrlCitation | DocumentCitation | SearchResultCitation)[];
  /**
   * Echo state for the issuing provider only; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * The text.
   */
  text: string;
  /**
   * The part's tag.
   */
  type: "text";
  [k: string]: unknown | undefined;
}
/**
 * A citation of a web page (web search results).
 */
export interface UrlCitation {
  /**
   * The quoted passage, when given.
   */
  cited_text?: string | null;
  /**
   * End of the citing span in the part's text, when given.
   */
  end_index?: number | null;
  /**
   * Opaque extras such as Anthropic's ``encrypted_index``; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * Start of the citing span in the part's text (OpenAI annotations), when given.
   */
  start_index?: number | null;
  /**
   * The page title, when given.
   */
  title?: string | null;
  /**
   * The citation's tag.
   */
  type?: "url";
  /**
   * The cited page.
   */
  url: string;
  [k: string]: unknown | undefined;
}
/**
 * Echo state one provider gave us and only that provider may read back (DESIGN §6).
 */
export interface ProviderData {
  /**
   * The state itself, exactly as received (item ids, status, raw usage, cache details...).
   */
  data?: JsonValue;
  /**
   * The system that issued ``data`` and can make sense of it: ``anthropic``, ``openai``, ...
   */
  issuer: string;
  [k: string]: unknown | undefined;
}
/**
 * A citation of a span in a document the user supplied.
 */
export interface DocumentCitation {
  /**
   * The quoted passage.
   */
  cited_text?: string | null;
  /**
   * Index of the cited document among the documents of the request.
   */
  document_index: number;
  /**
   * Title of the cited document, when given.
   */
  document_title?: string | null;
  /**
   * End of the cited range (exclusive).
   */
  end: number;
  /**
   * Provider file id of the document, when it was one.
   */
  file_id?: string | null;
  /**
   * Provider extras; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * First cited unit (0-based characters and blocks, 1-based pages, as the provider says).
   */
  start: number;
  /**
   * The citation's tag.
   */
  type?: "document";
  /**
   * What ``start``/``end`` count: characters, pages or content blocks.
   */
  unit: "char" | "page" | "block";
  [k: string]: unknown | undefined;
}
/**
 * A citation of a search result block supplied in the request.
 */
export interface SearchResultCitation {
  /**
   * The quoted passage.
   */
  cited_text?: string | null;
  /**
   * End of the cited blocks (exclusive).
   */
  end_block: number;
  /**
   * Provider extras; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * Index of the cited search result in the request.
   */
  search_result_index: number;
  /**
   * The search result's source (usually a URL).
   */
  source: string;
  /**
   * First cited block of the result.
   */
  start_block: number;
  /**
   * Its title.
   */
  title?: string | null;
  /**
   * The citation's tag.
   */
  type?: "search_result";
  [k: string]: unknown | undefined;
}
/**
 * An image: ``ImagePart(url=...)`` or ``ImagePart(file=...)`` for short (see ``_MediaMeta``).
 */
export interface ImagePart {
  /**
   * Resolution hint, where the provider takes one (OpenAI; ``original`` keeps full size).
   */
  detail?: ("auto" | "low" | "high" | "original") | null;
  /**
   * IANA media type (``image/png``); may be unknown for a URL.
   */
  media_type?: string | null;
  /**
   * Echo state for the issuing provider only; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * Where the image is.
   */
  source: UrlSource | Base64Source | FileRefSource | ProviderFileSource | TextSource;
  /**
   * The part's tag.
   */
  type: "image";
  [k: string]: unknown | undefined;
}
/**
 * Media fetched by the provider from a URL.
 */
export interface UrlSource {
  /**
   * The source's tag.
   */
  type?: "url";
  /**
   * The URL, ``https:`` (or ``gs:`` for Gemini) as given by the user.
   */
  url: string;
  [k: string]: unknown | undefined;
}
/**
 * Media carried inline as base64.
 */
export interface Base64Source {
  /**
   * Base64 text, without a ``data:`` prefix.
   */
  data: string;
  /**
   * The source's tag.
   */
  type?: "base64";
  [k: string]: unknown | undefined;
}
/**
 * Media stored beside the history, in the workspace.
 */
export interface FileRefSource {
  /**
   * Workspace-relative path of the file.
   */
  path: string;
  /**
   * Hex SHA-256 of the file when the reference was made, to detect a changed file.
   */
  sha256?: string | null;
  /**
   * Size in bytes when the reference was made.
   */
  size?: number | null;
  /**
   * The source's tag.
   */
  type?: "file_ref";
  [k: string]: unknown | undefined;
}
/**
 * Media uploaded to a provider's file store; only that provider can resolve the id.
 */
export interface ProviderFileSource {
  /**
   * The provider's file id (``file_...``, ``files/...``).
   */
  file_id: string;
  /**
   * The provider that issued the id.
   */
  issuer: string;
  /**
   * The source's tag.
   */
  type?: "provider_file";
  [k: string]: unknown | undefined;
}
/**
 * A plain-text document carried inline.
 */
export interface TextSource {
  /**
   * The document's text.
   */
  text: string;
  /**
   * The source's tag.
   */
  type?: "text";
  [k: string]: unknown | undefined;
}
/**
 * A document: PDF or text.
 */
export interface DocumentPart {
  /**
   * The original file name, where the provider takes one.
   */
  filename?: string | null;
  /**
   * IANA media type (``application/pdf``, ``text/plain``).
   */
  media_type?: string | null;
  /**
   * Echo state for the issuing provider only; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * Where the document is.
   */
  source: UrlSource | Base64Source | FileRefSource | ProviderFileSource | TextSource;
  /**
   * A title shown to the model, where the provider takes one.
   */
  title?: string | null;
  /**
   * The part's tag.
   */
  type: "document";
  [k: string]: unknown | undefined;
}
/**
 * A sound clip.
 */
export interface AudioPart {
  /**
   * IANA media type (``audio/wav``, ``audio/mpeg``).
   */
  media_type?: string | null;
  /**
   * Echo state for the issuing provider only; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * Where the audio is.
   */
  source: UrlSource | Base64Source | FileRefSource | ProviderFileSource | TextSource;
  /**
   * The part's tag.
   */
  type: "audio";
  [k: string]: unknown | undefined;
}
/**
 * Reasoning the model produced, with the signature that lets its issuer verify it.
 */
export interface ThinkingPart {
  /**
   * The provider's id for this reasoning item (OpenAI ``rs_...``); meaningful to its issuer only.
   */
  id?: string | null;
  /**
   * Echo state for the issuing provider only; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * The issuer's signature or encrypted reasoning; replaced, never appended, while streaming.
   */
  signature?: Opaque | null;
  /**
   * The reasoning text or summary; empty when the provider only gave encrypted state.
   */
  text?: string;
  /**
   * The part's tag.
   */
  type: "thinking";
  [k: string]: unknown | undefined;
}
/**
 * A value only its issuer can verify (a thinking signature, encrypted reasoning).
 */
export interface Opaque {
  /**
   * Who can verify it: ``anthropic``, ``openai``, ``google``, ``openrouter``, ``bedrock``, ...
   */
  issuer: string;
  /**
   * The model that issued it, where the issuer ties the value to one model.
   */
  model?: string | null;
  /**
   * The exact string as received; re-emitted byte for byte.
   */
  value: string;
  [k: string]: unknown | undefined;
}
/**
 * Reasoning the provider encrypted; echoed byte-exact to its issuer and nowhere else.
 */
export interface RedactedThinkingPart {
  data: Opaque1;
  /**
   * Echo state for the issuing provider only; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * The part's tag.
   */
  type: "redacted_thinking";
  [k: string]: unknown | undefined;
}
/**
 * A value only its issuer can verify (a thinking signature, encrypted reasoning).
 */
export interface Opaque1 {
  /**
   * Who can verify it: ``anthropic``, ``openai``, ``google``, ``openrouter``, ``bedrock``, ...
   */
  issuer: string;
  /**
   * The model that issued it, where the issuer ties the value to one model.
   */
  model?: string | null;
  /**
   * The exact string as received; re-emitted byte for byte.
   */
  value: string;
  [k: string]: unknown | undefined;
}
/**
 * A call of a tool the application runs.
 */
export interface ToolCallPart {
  /**
   * The arguments as the exact JSON text the model produced, malformed or truncated included.
   */
  arguments_json: string;
  /**
   * Canonical id (``tu_<ULID>``); tool messages point at it.
   */
  id: string;
  /**
   * Name of the tool.
   */
  name: string;
  /**
   * Echo state for the issuing provider only; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * The id each issuer gave this call (``{"anthropic": "toolu_..."}``), to echo it back exactly.
   */
  provider_ids?: {
    [k: string]: string | undefined;
  };
  /**
   * The part's tag.
   */
  type: "tool_call";
  [k: string]: unknown | undefined;
}
/**
 * A call of a tool the provider runs itself (web search, code execution).
 */
export interface ServerToolCallPart {
  /**
   * The provider's id of the call.
   */
  id: string;
  /**
   * The input the provider gave it.
   */
  input?: JsonValue;
  /**
   * The provider that ran it; the part is replayed to that provider only.
   */
  issuer: string;
  /**
   * The server tool's name (``web_search``, ``code_execution``).
   */
  name: string;
  /**
   * Echo state for the issuing provider only; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * The part's tag.
   */
  type: "server_tool_call";
  [k: string]: unknown | undefined;
}
/**
 * The result of a server tool call.
 */
export interface ServerToolResultPart {
  /**
   * The provider's id of the call this answers.
   */
  call_id: string;
  /**
   * The provider that produced it; the part is replayed to that provider only.
   */
  issuer: string;
  /**
   * The result kind as the provider names it (``web_search_tool_result``).
   */
  name: string;
  /**
   * The result content, exactly as received.
   */
  output?: JsonValue;
  /**
   * Echo state for the issuing provider only; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * The part's tag.
   */
  type: "server_tool_result";
  [k: string]: unknown | undefined;
}
/**
 * The model declined to answer.
 */
export interface RefusalPart {
  /**
   * Echo state for the issuing provider only; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * The refusal text.
   */
  text: string;
  /**
   * The part's tag.
   */
  type: "refusal";
  [k: string]: unknown | undefined;
}
/**
 * A part nobody here understood; kept whole and re-emitted, never dropped in silence.
 */
export interface UnknownPart {
  /**
   * The provider whose wire format it came from; ``None`` when it came from a stored history.
   */
  issuer?: string | null;
  /**
   * The ``type`` the part claimed, when it had one.
   */
  original_type?: string | null;
  /**
   * Echo state for the issuing provider only; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * The part exactly as it arrived (a wire block, or a line from a newer history).
   */
  raw?: JsonValue;
  /**
   * The part's tag.
   */
  type: "unknown";
  [k: string]: unknown | undefined;
}
/**
 * App-side context: command output, attached files. Sent natively or attached to a user turn.
 */
export interface DeveloperMessage {
  /**
   * When it was made (UTC, microseconds).
   */
  created_at: string;
  /**
   * ULID, monotonic within the process that made it; never regenerated on load.
   */
  id: string;
  /**
   * Application data; never sent to a provider.
   */
  metadata?: {
    [k: string]: JsonValue | undefined;
  };
  /**
   * The message this one follows, for threads and forks.
   */
  parent_id?: string | null;
  /**
   * The content sent to the model.
   */
  parts?: (
    | TextPart
    | ImagePart
    | DocumentPart
    | AudioPart
    | ThinkingPart
    | RedactedThinkingPart
    | ToolCallPart
    | ServerToolCallPart
    | ServerToolResultPart
    | RefusalPart
    | UnknownPart
  )[];
  /**
   * Echo state for the issuing provider only; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * The message's role.
   */
  role: "developer";
  /**
   * Every message is a history event of type ``message``; ``role`` tells them apart.
   */
  type: "message";
  /**
   * Schema version of this line.
   */
  v: 1;
  [k: string]: unknown | undefined;
}
/**
 * What the user said.
 */
export interface UserMessage {
  /**
   * When it was made (UTC, microseconds).
   */
  created_at: string;
  /**
   * ULID, monotonic within the process that made it; never regenerated on load.
   */
  id: string;
  /**
   * Application data; never sent to a provider.
   */
  metadata?: {
    [k: string]: JsonValue | undefined;
  };
  /**
   * The message this one follows, for threads and forks.
   */
  parent_id?: string | null;
  /**
   * Text, images, documents, audio.
   */
  parts?: (
    | TextPart
    | ImagePart
    | DocumentPart
    | AudioPart
    | ThinkingPart
    | RedactedThinkingPart
    | ToolCallPart
    | ServerToolCallPart
    | ServerToolResultPart
    | RefusalPart
    | UnknownPart
  )[];
  /**
   * Echo state for the issuing provider only; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * The message's role.
   */
  role: "user";
  /**
   * Every message is a history event of type ``message``; ``role`` tells them apart.
   */
  type: "message";
  /**
   * Schema version of this line.
   */
  v: 1;
  [k: string]: unknown | undefined;
}
/**
 * One model call's answer: parts in provider order, with usage and provenance.
 */
export interface AssistantMessage {
  /**
   * The wire API used (``anthropic``, ``openai_chat``, ``openai_responses``, ``google``).
   */
  api?: string | null;
  /**
   * When it was made (UTC, microseconds).
   */
  created_at: string;
  /**
   * ULID, monotonic within the process that made it; never regenerated on load.
   */
  id: string;
  /**
   * Application data; never sent to a provider.
   */
  metadata?: {
    [k: string]: JsonValue | undefined;
  };
  /**
   * The model, ``provider:model``.
   */
  model?: string | null;
  /**
   * The message this one follows, for threads and forks.
   */
  parent_id?: string | null;
  /**
   * Text, thinking, tool calls, server tool blocks, refusals, in the order the model gave them.
   */
  parts?: (
    | TextPart
    | ImagePart
    | DocumentPart
    | AudioPart
    | ThinkingPart
    | RedactedThinkingPart
    | ToolCallPart
    | ServerToolCallPart
    | ServerToolResultPart
    | RefusalPart
    | UnknownPart
  )[];
  /**
   * Who served the call (``anthropic``, ``openrouter``, ...).
   */
  provider?: string | null;
  /**
   * Echo state for the issuing provider only; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * The provider's id of the response.
   */
  response_id?: string | null;
  /**
   * The message's role.
   */
  role: "assistant";
  /**
   * Why this model answered.
   */
  routing?: RoutingDecision | null;
  /**
   * Whether the message is whole.
   */
  status?: "complete" | "partial" | "error" | "aborted";
  /**
   * Why generation stopped, normalised.
   */
  stop_reason?: ("stop" | "length" | "tool_use" | "content_filter" | "refusal" | "pause" | "error" | "aborted") | null;
  /**
   * The provider's own stop/finish reason string.
   */
  stop_reason_raw?: string | null;
  /**
   * Every message is a history event of type ``message``; ``role`` tells them apart.
   */
  type: "message";
  /**
   * Tokens, cost and latency.
   */
  usage?: Usage | null;
  /**
   * Schema version of this line.
   */
  v: 1;
  [k: string]: unknown | undefined;
}
/**
 * Why this turn went to this model (the canonical format spec's routing record).
 */
export interface RoutingDecision {
  /**
   * Other models that were candidates.
   */
  alternatives_considered?: string[];
  /**
   * The model chosen, ``provider:model``.
   */
  chosen_model: string;
  /**
   * Confidence 0..1, for ``pattern``.
   */
  confidence?: number | null;
  /**
   * Coarse class of the decision.
   */
  mode: "override" | "manual" | "rule" | "pattern" | "delegate" | "default";
  /**
   * Human-readable reason.
   */
  reason: string;
  /**
   * The rule that matched, for ``rule``.
   */
  rule_name?: string | null;
  [k: string]: unknown | undefined;
}
/**
 * Tokens, cost and latency of one model call.
 *
 * ``input_tokens`` counts *all* input, cached included; ``cache_read_tokens`` and
 * ``cache_write_tokens`` are subsets of it. ``output_tokens`` counts all output, reasoning
 * included; ``reasoning_tokens`` is a subset of it. Each adapter documents how it maps its
 * provider's figures onto these.
 */
export interface Usage {
  /**
   * Input tokens read from the prompt cache (a subset of ``input_tokens``).
   */
  cache_read_tokens?: number;
  /**
   * Input tokens written to the prompt cache (a subset of ``input_tokens``).
   */
  cache_write_tokens?: number;
  /**
   * Cost in US dollars, computed locally from a price table.
   */
  cost?: number | string | null;
  /**
   * All input tokens, cached ones included.
   */
  input_tokens?: number;
  /**
   * Wall time of the call in milliseconds, request sent to last byte.
   */
  latency_ms?: number | null;
  /**
   * All output tokens, reasoning included.
   */
  output_tokens?: number;
  /**
   * The price table version that produced ``cost``.
   */
  pricing_version?: string | null;
  /**
   * The provider's raw usage object; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * Output tokens spent on reasoning (a subset of ``output_tokens``).
   */
  reasoning_tokens?: number;
  [k: string]: unknown | undefined;
}
/**
 * The result of one tool call.
 */
export interface ToolMessage {
  /**
   * Canonical id of the tool call this answers.
   */
  call_id: string;
  /**
   * When it was made (UTC, microseconds).
   */
  created_at: string;
  /**
   * Structured JSON result, when the tool gave one.
   */
  data?: JsonValue;
  /**
   * When the tool finished.
   */
  finished_at?: string | null;
  /**
   * Where the full output is, when truncated (a workspace-relative path or URI).
   */
  full_output_ref?: string | null;
  /**
   * ULID, monotonic within the process that made it; never regenerated on load.
   */
  id: string;
  /**
   * Application data; never sent to a provider.
   */
  metadata?: {
    [k: string]: JsonValue | undefined;
  };
  /**
   * The tool's text output: the one source of truth for it.
   */
  output_text?: string;
  /**
   * The message this one follows, for threads and forks.
   */
  parent_id?: string | null;
  /**
   * Non-text attachments (images, documents); text goes in ``output_text``.
   */
  parts?: (
    | TextPart
    | ImagePart
    | DocumentPart
    | AudioPart
    | ThinkingPart
    | RedactedThinkingPart
    | ToolCallPart
    | ServerToolCallPart
    | ServerToolResultPart
    | RefusalPart
    | UnknownPart
  )[];
  /**
   * Echo state for the issuing provider only; ignored by equality.
   */
  provider_data?: ProviderData | null;
  /**
   * The message's role.
   */
  role: "tool";
  /**
   * What the tool changed (files written, commands run); never sent to a provider.
   */
  side_effects?: JsonValue;
  /**
   * When the tool started.
   */
  started_at?: string | null;
  /**
   * How the call ended.
   */
  status?: "success" | "error" | "aborted" | "denied";
  /**
   * Name of the tool that ran.
   */
  tool_name: string;
  /**
   * Whether ``output_text`` was cut short.
   */
  truncated?: boolean;
  /**
   * Every message is a history event of type ``message``; ``role`` tells them apart.
   */
  type: "message";
  /**
   * Data for the UI only (diffs, rendering hints); never sent to a provider.
   */
  ui_extra?: JsonValue;
  /**
   * Schema version of this line.
   */
  v: 1;
  [k: string]: unknown | undefined;
}
/**
 * A failed model call or a failure outside any message.
 */
export interface ErrorEvent {
  /**
   * Machine-readable code (``overloaded_error``, ``rate_limit_exceeded``, ``429``).
   */
  code?: string | null;
  /**
   * When it was made (UTC, microseconds).
   */
  created_at: string;
  /**
   * ULID, monotonic within the process that made it; never regenerated on load.
   */
  id: string;
  /**
   * Human-readable description.
   */
  message: string;
  /**
   * Application data.
   */
  metadata?: {
    [k: string]: JsonValue | undefined;
  };
  /**
   * The provider that failed, when one did.
   */
  provider?: string | null;
  /**
   * Whether the same call may succeed if retried.
   */
  retryable?: boolean;
  /**
   * HTTP status, when there was one.
   */
  status?: number | null;
  /**
   * The event's tag.
   */
  type: "error";
  /**
   * Schema version of this line.
   */
  v: 1;
  [k: string]: unknown | undefined;
}
/**
 * Facts about the task as a whole (title, working directory, totals), set by the app.
 */
export interface TaskMetadataEvent {
  /**
   * When it was made (UTC, microseconds).
   */
  created_at: string;
  /**
   * Anything else the application records about the task.
   */
  data?: JsonValue;
  /**
   * ULID, monotonic within the process that made it; never regenerated on load.
   */
  id: string;
  /**
   * Application data.
   */
  metadata?: {
    [k: string]: JsonValue | undefined;
  };
  /**
   * The application's id for the task or session.
   */
  task_id?: string | null;
  /**
   * A title for the task.
   */
  title?: string | null;
  /**
   * The event's tag.
   */
  type: "task_metadata";
  /**
   * Schema version of this line.
   */
  v: 1;
  [k: string]: unknown | undefined;
}
/**
 * Older messages were summarised; the next model call sees the summary instead of them.
 */
export interface CompactionEvent {
  /**
   * When it was made (UTC, microseconds).
   */
  created_at: string;
  /**
   * ULID, monotonic within the process that made it; never regenerated on load.
   */
  id: string;
  /**
   * Application data.
   */
  metadata?: {
    [k: string]: JsonValue | undefined;
  };
  /**
   * Otherwise: how many non-system messages right before this event it replaces.
   */
  replaced_count?: number | null;
  /**
   * Ids of the messages it replaces, when listed.
   */
  replaced_ids?: string[] | null;
  /**
   * The summary that replaces the compacted messages.
   */
  summary: string;
  /**
   * Context size after compaction.
   */
  tokens_after?: number | null;
  /**
   * Context size before compaction.
   */
  tokens_before?: number | null;
  /**
   * The event's tag.
   */
  type: "compaction";
  /**
   * Schema version of this line.
   */
  v: 1;
  [k: string]: unknown | undefined;
}
/**
 * A model call is being retried.
 */
export interface RetryEvent {
  /**
   * 1-based number of the attempt about to be made.
   */
  attempt: number;
  /**
   * When it was made (UTC, microseconds).
   */
  created_at: string;
  /**
   * Wait before the attempt, in milliseconds.
   */
  delay_ms?: number | null;
  /**
   * ULID, monotonic within the process that made it; never regenerated on load.
   */
  id: string;
  /**
   * Application data.
   */
  metadata?: {
    [k: string]: JsonValue | undefined;
  };
  /**
   * Why (the error that caused it).
   */
  reason: string;
  /**
   * The event's tag.
   */
  type: "retry";
  /**
   * Schema version of this line.
   */
  v: 1;
  [k: string]: unknown | undefined;
}
/**
 * The session moved to another model.
 */
export interface ModelSwitchEvent {
  /**
   * When it was made (UTC, microseconds).
   */
  created_at: string;
  /**
   * The previous model, ``provider:model``.
   */
  from_model?: string | null;
  /**
   * ULID, monotonic within the process that made it; never regenerated on load.
   */
  id: string;
  /**
   * Application data.
   */
  metadata?: {
    [k: string]: JsonValue | undefined;
  };
  /**
   * Why (``user /model command``, ``fallback after 529``).
   */
  reason?: string | null;
  /**
   * The new model, ``provider:model``.
   */
  to_model: string;
  /**
   * The event's tag.
   */
  type: "model_switch";
  /**
   * Schema version of this line.
   */
  v: 1;
  [k: string]: unknown | undefined;
}
/**
 * Work handed to a child session (a sub-agent).
 */
export interface SubtaskEvent {
  /**
   * The agent that ran it.
   */
  agent?: string | null;
  /**
   * The child session's id.
   */
  child_session_id: string;
  /**
   * When it was made (UTC, microseconds).
   */
  created_at: string;
  /**
   * ULID, monotonic within the process that made it; never regenerated on load.
   */
  id: string;
  /**
   * Application data.
   */
  metadata?: {
    [k: string]: JsonValue | undefined;
  };
  /**
   * What it was asked.
   */
  prompt?: string | null;
  /**
   * Its final answer, when done.
   */
  result?: string | null;
  /**
   * Where the subtask stands.
   */
  status?: "pending" | "running" | "success" | "error" | "aborted";
  /**
   * The event's tag.
   */
  type: "subtask";
  /**
   * Schema version of this line.
   */
  v: 1;
  [k: string]: unknown | undefined;
}
/**
 * A line nobody here understood; kept whole, never dropped in silence.
 */
export interface UnknownEvent {
  /**
   * When it was made (UTC, microseconds).
   */
  created_at: string;
  /**
   * ULID, monotonic within the process that made it; never regenerated on load.
   */
  id: string;
  /**
   * Application data.
   */
  metadata?: {
    [k: string]: JsonValue | undefined;
  };
  /**
   * The ``type`` (or ``role``) the line claimed, when it had one.
   */
  original_type?: string | null;
  /**
   * Why it was not understood.
   */
  problem?: string | null;
  /**
   * The line's JSON value; the line's text when it was not JSON.
   */
  raw?: JsonValue;
  /**
   * The event's tag.
   */
  type: "unknown";
  /**
   * Schema version of this line.
   */
  v: 1;
  [k: string]: unknown | undefined;
}

/**
 * Any JSON value (opaque provider data, tool arguments and results, application metadata).
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
