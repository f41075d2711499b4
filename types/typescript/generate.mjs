// Writes the TypeScript types of partwire's history lines from the committed JSON Schema
// (docs/schema/partwire.schema.json) with json-schema-to-typescript, pinned in package-lock.json.
// Usage: node generate.mjs [OUTPUT] (default index.d.ts). The tests regenerate to a temporary
// file and fail when the committed index.d.ts differs, so edit the schema's source, never this output.
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const here = fileURLToPath(new URL(".", import.meta.url));
const schemaPath = fileURLToPath(new URL("../../docs/schema/partwire.schema.json", import.meta.url));
const output = process.argv[2] ?? "index.d.ts";

const schema = JSON.parse(await readFile(schemaPath, "utf8"));

// pydantic titles every property after its field ("Title", "Mode"); the generator would make each
// such title a type alias of its own (Title, Title1, ...). Only the named definitions are types.
function untitleProperties(node) {
  if (Array.isArray(node)) return node.forEach(untitleProperties);
  if (node === null || typeof node !== "object") return;
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties") {
      for (const property of Object.values(value)) {
        stripTitles(property);
      }
    }
    untitleProperties(value);
  }
}
function stripTitles(node) {
  if (Array.isArray(node)) return node.forEach(stripTitles);
  if (node === null || typeof node !== "object" || "$ref" in node) return;
  delete node.title;
  for (const key of ["anyOf", "oneOf", "allOf", "items", "additionalProperties", "prefixItems"]) {
    if (key in node) stripTitles(node[key]);
  }
}
untitleProperties(schema);

// The schema's JsonValue is "{}" (any JSON). Where a property refers to it beside its own keywords
// (a description, a default), the generator reads the merged node as an object; the value is any
// JSON, so every such reference is the one recursive JsonValue type below.
function jsonValueByName(node) {
  if (Array.isArray(node)) return node.forEach(jsonValueByName);
  if (node === null || typeof node !== "object") return;
  if (node.$ref === "#/$defs/JsonValue") {
    delete node.$ref;
    node.tsType = "JsonValue";
  }
  Object.values(node).forEach(jsonValueByName);
}
jsonValueByName(schema);
delete schema.$defs.JsonValue;
const jsonValue = `
/**
 * Any JSON value (opaque provider data, tool arguments and results, application metadata).
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
`;
const banner = `/**
 * partwire's canonical history line (${schema.$id}), as TypeScript types.
 * Generated from docs/schema/partwire.schema.json by json-schema-to-typescript: do not edit;
 * run \`npm run generate\` in types/typescript after the schema changes.
 */`;

const types = await compile(schema, "HistoryLine", {
  bannerComment: banner,
  cwd: here,
  // The schema names every object it defines; keep them all, even those no line reaches.
  unreachableDefinitions: true,
  // An open object's extra keys are values nobody has typed: unknown, never any.
  unknownAny: true,
  strictIndexSignatures: true,
  format: true,
});
await writeFile(output, types + jsonValue);
