// Node's file reading for the loader (wasm.js), imported only when the core.wasm URL is a file: URL, by a
// name bundlers leave alone, so a browser build neither bundles nor warns about node:fs. The CommonJS
// entries (index.cjs) get mock/wasm/read_file_cjs.js in its place.
const fsName = "node:fs/promises";

export async function readFileUrl(url) {
  const fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ fsName);
  return fs.readFile(url);
}
