// Writes the core's flag table, the rows the npm mock takes (mock_flags in binding.cpp, from
// mock/django/flags.hpp), as an ES module for the package's options.js: the npm mock's option names,
// flags, help, kinds, ranges and defaults come from the native mock's one table, not written again; and
// the flags npx refuses with their reasons, for bin/entities-images-mock.js.
// Usage: node flag_table.mjs core.mjs core.wasm flags.js
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [glue, wasm, output] = process.argv.slice(2);
const createCore = (await import(pathToFileURL(glue).href)).default;
const module = await WebAssembly.compile(readFileSync(wasm));
const core = await createCore({
  instantiateWasm(imports, receive) {
    WebAssembly.instantiate(module, imports).then((instance) => receive(instance, module));
    return {};
  },
});
const at = core._mock_flags();
const size = new DataView(core.HEAPU8.buffer).getUint32(at, true);
const reply = new TextDecoder().decode(core.HEAPU8.subarray(at + 4, at + 4 + size));
if (!reply.startsWith("O")) throw new Error(`mock_flags: ${reply.slice(1)}`);
const { options, front, nativeOnly } = JSON.parse(reply.slice(1));
writeFileSync(output, `// Generated from the core's flag table (mock/django/flags.hpp) by mock/wasm/flag_table.mjs.\n` +
                      `export default ${JSON.stringify(options, null, 1)};\n` +
                      `// The whole-number flags npx's own front reads (kNpxFront), with their ranges and defaults.\n` +
                      `export const FRONT = ${JSON.stringify(front, null, 1)};\n` +
                      `// The native mock's flags npx refuses, and why.\n` +
                      `export const NATIVE_ONLY = ${JSON.stringify(nativeOnly, null, 1)};\n`);
