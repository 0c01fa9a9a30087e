// Where the core's WebAssembly comes from (docs/npm.md#the-webassembly-file). By default core/core.wasm
// beside this module, found with new URL(..., import.meta.url), the form Vite, webpack 5 and Parcel ship
// as an asset file of its own; Node (and Jest, Vitest) read it from disk. The `wasm` option
// gives it instead: a WebAssembly.Module, its bytes (entities-images-mock/inline-wasm, for a page or
// runner that cannot fetch a file), or the URL of a copy.
import { readFileUrl } from "./read-file.js";

const tag = (value) => Object.prototype.toString.call(value);  // realms differ under Jest and jsdom
let compiledDefault;

const defaultUrl = () => new URL("./core/core.wasm", import.meta.url);

/// The core's compiled module, from the `wasm` option or the package's own core.wasm (compiled once).
export function compileCore(source) {
  if (source === undefined) return (compiledDefault ??= compileFrom(defaultUrl()));
  return compileFrom(source);
}

// Where core.wasm is a file (Node, Jest, Vitest), its compile starts as the package is imported, in the background
// (V8 compiles on its own threads), so that a test's first request does not wait for it even when the test does
// not await mock.ready (issue 44: 1.3 s cold under load, past React Testing Library's 1 s waitFor). Not where it
// would be fetched (a page given the `wasm` option need not serve core.wasm at all).
if (defaultUrl().protocol === "file:") compileCore().catch(() => {});  // a failure is reported by `ready`

async function compileFrom(source) {
  const given = await source;
  if (tag(given) === "[object WebAssembly.Module]") return given;
  if (tag(given) === "[object ArrayBuffer]" || ArrayBuffer.isView(given)) return WebAssembly.compile(given);
  const url = given instanceof URL ? given : new URL(String(given), globalThis.location?.href);
  const bytes = await wasmBytes(url);
  try {
    return await WebAssembly.compile(bytes);
  } catch (e) {
    // e.g. a dev server answering an unknown path with its index.html
    throw new Error(`entities-images-mock: ${url.href} is not the core's WebAssembly (${e.message}); ` +
                    "serve core.wasm there, or pass the `wasm` option (docs/npm.md#the-webassembly-file)");
  }
}

async function wasmBytes(url) {
  if (url.protocol === "file:") return readFileUrl(url);
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw new Error(`entities-images-mock: cannot fetch the core's WebAssembly at ${url.href} (${e.message}); ` +
                    "pass the `wasm` option (docs/npm.md#the-webassembly-file)");
  }
  if (!response.ok)
    throw new Error(`entities-images-mock: the core's WebAssembly at ${url.href} answered ${response.status}; ` +
                    "serve core.wasm there, or pass the `wasm` option (docs/npm.md#the-webassembly-file)");
  return response.arrayBuffer();
}
