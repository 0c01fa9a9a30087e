// Puts the WebAssembly core into the npm package's core/ folder:
//   core.wasm     the module as a file, which the package's loader (mock/npm/wasm.js) finds with
//                 new URL("./core/core.wasm", import.meta.url): bundlers ship it as an asset, Node reads it;
//   core.mjs      emscripten's glue without its own import.meta.url (the loader hands it the compiled module,
//                 so the glue never locates a file; left in, Vite warns that "core.wasm" does not exist beside
//                 it and Jest's CommonJS mode cannot parse it);
//   core-wasm.js  the same bytes inlined as base64 (entities-images-mock/inline-wasm, the `wasm` option), for
//                 a page or runner that cannot fetch a file.
// Usage: node package_core.mjs core.mjs core.wasm OUT_DIR
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";

const [glue, wasm, out] = process.argv.slice(2);

// Each of emscripten 3.1.6's uses of import.meta, replaced by what the loader makes of it.
const GLUE_EDITS = [
  ["var _scriptDir = import.meta.url;", "var _scriptDir = undefined;"],
  ['wasmBinaryFile=new URL("core.wasm",import.meta.url).toString()', 'wasmBinaryFile="core.wasm"'],
];
let text = readFileSync(glue, "utf8");
for (const [from, to] of GLUE_EDITS) {
  if (!text.includes(from)) throw new Error(`${glue}: no '${from}' to replace: has emscripten's glue changed?`);
  text = text.replaceAll(from, to);
}
if (text.includes("import.meta")) throw new Error(`${glue}: import.meta is still used after the edits`);
writeFileSync(`${out}/core.mjs`, text);
copyFileSync(wasm, `${out}/core.wasm`);

const base64 = readFileSync(wasm).toString("base64");
const decode = `typeof Buffer === "function" ? new Uint8Array(Buffer.from(base64, "base64")) : Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))`;
const head = "// Generated from core.wasm by mock/wasm/package_core.mjs: the core's bytes, for the `wasm` option.\n";
writeFileSync(`${out}/core-wasm.js`, `${head}const base64 = "${base64}";\nexport default ${decode};\n`);
