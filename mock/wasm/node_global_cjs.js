// The CommonJS entries' nodeGlobal() (in place of mock/npm/node-global.js): require, since a dynamic import()
// fails in Jest's default CommonJS mode.
export async function nodeGlobal() {
  if (typeof process === "undefined" || !process.versions?.node) return undefined;
  return require("node:vm").runInThisContext("globalThis");
}
