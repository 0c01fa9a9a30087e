// The global object of the Node realm that runs this one, for environment.js: Jest runs each test file in a vm
// context of its own, whose global object may be jsdom's window, while built-in modules (node:vm among them)
// belong to the outer realm, whose global object has Node's Fetch API and encoders. Undefined outside Node.
// Imported by a name bundlers leave alone, so a browser build neither bundles nor warns about node:vm; the
// CommonJS entries get mock/wasm/node_global_cjs.js in its place.
const vmName = "node:vm";

export async function nodeGlobal() {
  if (typeof process === "undefined" || !process.versions?.node) return undefined;
  const vm = await import(/* webpackIgnore: true */ /* @vite-ignore */ vmName);
  return vm.runInThisContext("globalThis");
}
