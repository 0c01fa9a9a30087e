#!/usr/bin/env node
// Writes the TypeScript types of the record and the page, schema/types/entities-images.d.ts, from the
// schema files with json-schema-to-typescript (npm, pinned in package.json). Each schema file that no other
// one references is compiled with what it references, so every file in schema/ is reached once.
// Usage: node ci/schema_types.mjs                   rewrite the committed file after a schema change
//        node ci/schema_types.mjs --out FILE --check  write FILE and fail unless it equals the committed one
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const schemaDir = path.join(repo, "schema");
const committed = path.join(schemaDir, "types", "entities-images.d.ts");
const args = process.argv.slice(2);
const out = args.includes("--out") ? path.resolve(args[args.indexOf("--out") + 1]) : committed;
const check = args.includes("--check");

const require = createRequire(path.join(repo, "package.json"));
let compileFromFile;
try {
  ({ compileFromFile } = require("json-schema-to-typescript"));
} catch {
  console.error(`json-schema-to-typescript is not installed under ${repo}/node_modules: run ci/setup.sh (npm ci) first`);
  process.exit(1);
}

// The $ref values of a schema that name a sibling file ("image-record.schema.json", not "#/definitions/…").
function fileRefs(node, found = new Set()) {
  if (Array.isArray(node)) node.forEach((child) => fileRefs(child, found));
  else if (node !== null && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && !value.startsWith("#")) found.add(value.split("#")[0]);
      else fileRefs(value, found);
    }
  }
  return found;
}

const files = fs.readdirSync(schemaDir).filter((name) => name.endsWith(".schema.json")).sort();
const referenced = new Set(files.flatMap((name) => [...fileRefs(JSON.parse(fs.readFileSync(path.join(schemaDir, name), "utf8")))]));
const roots = files.filter((name) => !referenced.has(name));

const banner = `/**
 * The record and the page of GET /edw/api/entities-images/, generated from ${roots.map((name) => `schema/${name}`).join(", ")}
 * (and what they reference) by json-schema-to-typescript. Do not edit: change the schema, then run
 * \`node ci/schema_types.mjs\`. A test fails while this file differs from what the schema gives (docs/typescript.md).
 * Types only: patterns, bounds and cross-field rules are checked by the schema and the contract suite.
 */`;
const parts = [];
for (const [index, name] of roots.entries()) {
  parts.push(await compileFromFile(path.join(schemaDir, name), {
    cwd: schemaDir, bannerComment: index === 0 ? banner : "" }));
}
const text = parts.join("\n");

fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, text);
if (!check) {
  console.log(`schema_types: wrote ${path.relative(process.cwd(), out)} from ${roots.join(", ")}`);
  process.exit(0);
}
const before = fs.existsSync(committed) ? fs.readFileSync(committed, "utf8") : "";
if (before === text) {
  console.log(`schema_types: ${path.relative(repo, committed)} is what schema/ gives`);
  process.exit(0);
}
const [a, b] = [before.split("\n"), text.split("\n")];
let line = 0;
while (line < a.length && line < b.length && a[line] === b[line]) line++;
console.error(`schema_types: ${path.relative(repo, committed)} is stale: line ${line + 1} is\n  ${a[line] ?? "(end of file)"}\n` +
              `but the schema gives\n  ${b[line] ?? "(end of file)"}\n(full output in ${out}); run \`node ci/schema_types.mjs\` and commit it`);
process.exit(1);
