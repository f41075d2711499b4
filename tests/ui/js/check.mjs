// Judges what partwire.ui writes with the official packages, many items per process.
// stdin: {"command": NAME, "items": [...]}; stdout: {"results": [...]}, one result per item.
//
//   validate-ui     item: a UIMessage list -> {ok, error, same} (validateUIMessages accepted it,
//                   and gave back exactly what it was given: no key stripped)
//   to-model        item: a UIMessage list -> {ok, error, messages} (convertToModelMessages)
//   validate-model  item: a ModelMessage list -> {ok, error} (the SDK's model message schemas)
//   read-stream     item: SSE text of a UI message stream -> {ok, error, message, chunks, reported}
//                   (parseJsonEventStream with uiMessageChunkSchema, then readUIMessageStream;
//                   reported: the stream's own error chunks, as the SDK hands them to onError)
//   ag-ui-events    item: a list of AG-UI events -> {ok, error} (@ag-ui/core EventSchemas)
//   ag-ui-messages  item: a list of AG-UI messages -> {ok, error} (@ag-ui/core MessageSchema)
//   headers         item: anything -> the SDK's UI_MESSAGE_STREAM_HEADERS
//   chat-client     item: {url, messages} -> {ok, error, message} (DefaultChatTransport posts
//                   to a running server, readUIMessageStream reads its answer)
import {
  DefaultChatTransport,
  UI_MESSAGE_STREAM_HEADERS,
  assistantModelMessageSchema,
  systemModelMessageSchema,
  toolModelMessageSchema,
  userModelMessageSchema,
  convertToModelMessages,
  parseJsonEventStream,
  readUIMessageStream,
  safeValidateUIMessages,
  uiMessageChunkSchema,
} from "ai";
import { EventSchemas, MessageSchema } from "@ag-ui/core/schemas";

const stable = (value) => JSON.stringify(value, (_, v) =>
  v && typeof v === "object" && !Array.isArray(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]))
    : v);

async function validateUi(messages) {
  const result = await safeValidateUIMessages({ messages });
  if (!result.success) return { ok: false, error: String(result.error?.message ?? result.error) };
  return { ok: true, same: stable(result.data) === stable(messages) };
}

async function toModel(messages) {
  try {
    return { ok: true, messages: await convertToModelMessages(messages) };
  } catch (error) {
    return { ok: false, error: String(error?.message ?? error) };
  }
}

const MODEL_SCHEMAS = {
  system: systemModelMessageSchema,
  user: userModelMessageSchema,
  assistant: assistantModelMessageSchema,
  tool: toolModelMessageSchema,
};

async function validateModel(messages) {
  for (const [i, message] of messages.entries()) {
    const schema = MODEL_SCHEMAS[message.role];
    if (!schema) return { ok: false, error: `[${i}] role ${message.role}` };
    const result = schema.safeParse(message);
    if (!result.success) return { ok: false, error: `[${i}] ${result.error.message.slice(0, 800)}` };
  }
  return { ok: true };
}

async function readStream(sse) {
  const bytes = new TextEncoder().encode(sse);
  const body = new ReadableStream({ start(c) { c.enqueue(bytes); c.close(); } });
  const chunks = [];
  const errors = [];
  const parsed = parseJsonEventStream({ stream: body, schema: uiMessageChunkSchema })
    .pipeThrough(new TransformStream({
      transform(result, controller) {
        if (result.success) {
          chunks.push(result.value);
          controller.enqueue(result.value);
        } else {
          errors.push(String(result.error?.message ?? result.error).slice(0, 500));
        }
      },
    }));
  let message = null;
  const reported = [];
  try {
    const onError = (error) => reported.push(String(error?.message ?? error));
    for await (const snapshot of readUIMessageStream({ stream: parsed, onError })) {
      message = snapshot;
    }
  } catch (error) {
    errors.push(String(error?.message ?? error));
  }
  return { ok: errors.length === 0, error: errors[0], message, chunks: chunks.length, reported };
}

function agUi(schema, items) {
  for (const [i, item] of items.entries()) {
    const result = schema.safeParse(item);
    if (!result.success) return { ok: false, error: `[${i}] ${result.error.message.slice(0, 800)}` };
    if (stable(result.data) !== stable(item)) return { ok: false, error: `[${i}] keys stripped` };
  }
  return { ok: true };
}

async function chatClient({ url, messages }) {
  try {
    const transport = new DefaultChatTransport({ api: url });
    const stream = await transport.sendMessages({
      chatId: "chat", messages, trigger: "submit-message", messageId: undefined,
      abortSignal: undefined,
    });
    let message = null;
    for await (const snapshot of readUIMessageStream({ stream, terminateOnError: true })) {
      message = snapshot;
    }
    return { ok: true, message };
  } catch (error) {
    return { ok: false, error: String(error?.message ?? error) };
  }
}

const COMMANDS = {
  "validate-ui": validateUi,
  "to-model": toModel,
  "validate-model": validateModel,
  "read-stream": readStream,
  "ag-ui-events": async (items) => agUi(EventSchemas, items),
  "ag-ui-messages": async (items) => agUi(MessageSchema, items),
  "chat-client": chatClient,
  headers: async () => UI_MESSAGE_STREAM_HEADERS,
};

let input = "";
for await (const piece of process.stdin) input += piece;
const { command, items } = JSON.parse(input);
const run = COMMANDS[command];
if (!run) throw new Error(`unknown command ${command}`);
const results = [];
for (const item of items) results.push(await run(item));
process.stdout.write(JSON.stringify({ results }));
