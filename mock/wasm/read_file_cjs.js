// The CommonJS entries' reading of core.wasm (in place of mock/npm/read-file.js): require, since a dynamic
// import() fails in Jest's default CommonJS mode.
export async function readFileUrl(url) {
  return require("node:fs").promises.readFile(url);
}
