// A partial implementation of partwire's conformance protocol, in JavaScript: to_wire for
// openai_chat, for conversations of plain user and assistant text. It answers "unsupported"
// to everything else, and the runner skips those cases.
const readline = require("node:readline");
const plain = (m) => m.type === "message" && ["user", "assistant"].includes(m.role)
  && m.parts.length === 1 && m.parts[0].type === "text" && !(m.parts[0].citations || []).length;
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const { id, operation, api, input } = JSON.parse(line);
  let reply = { id, error: { kind: "unsupported", message: "only plain text to openai_chat" } };
  const history = operation === "to_wire" ? input.history.split("\n").filter(Boolean).map(JSON.parse) : [];
  if (api === "openai_chat" && history.length && history.every(plain) && !(input.tools || []).length) {
    const request = {
      model: input.model.slice(input.model.indexOf(":") + 1),
      messages: history.map((m) => ({ role: m.role, content: m.parts[0].text })),
    };
    const max = (input.settings || {}).max_output_tokens;
    if (max !== undefined) request.max_completion_tokens = max;
    reply = { id, output: { request, losses: [] } };
  }
  process.stdout.write(JSON.stringify(reply) + "\n");
});
