// Writes the wasm bytes as an ES module of one base64 string, which the package's loader hands to the
// emscripten glue itself (mock/npm/core.js): no file to locate or fetch in Node, a bundler or a browser.
// Usage: node embed_wasm.mjs core.wasm core-wasm.js
import { readFileSync, writeFileSync } from "node:fs";

const [input, output] = process.argv.slice(2);
const base64 = readFileSync(input).toString("base64");
writeFileSync(output, `// Generated from ${input.split("/").pop()} by mock/wasm/embed_wasm.mjs.\nexport default "${base64}";\n`);
