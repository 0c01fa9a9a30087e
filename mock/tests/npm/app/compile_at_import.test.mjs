// Issue 44: importing the package starts compiling its core where core.wasm is a file (Node, Jest, Vitest), so a
// test that forgets `await mock.ready` does not pay the compile in its first request (1.3 s cold under load, past
// React Testing Library's 1 s waitFor). Counted, not timed: WebAssembly.compile is called once, with no
// createMock() yet, and createMock() then compiles nothing more. Run: node --test compile_at_import.test.mjs.
import assert from "node:assert/strict";
import { test } from "node:test";

// The package's compiles only: Node's own fetch compiles its HTTP parser (llhttp) when it first loads.
const compile = WebAssembly.compile;
let compiles = 0;
WebAssembly.compile = (...args) => {
  if (/entities-images-mock/.test(new Error().stack)) compiles += 1;
  return compile.apply(WebAssembly, args);
};

test("the core is compiled once, as the package is imported, before any createMock()", async () => {
  const { createMock } = await import("entities-images-mock");
  // The file is read, then compiled, in the background; wait for the call, bounded generously (10 s in 10 ms
  // steps: a loaded machine reads a 0.8 MB file in far less) since only the count matters.
  for (let i = 0; i < 1000 && compiles === 0; ++i) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(compiles, 1, "compiled at import");
  const mock = createMock({ records: 5 });
  const page = await (await mock.fetch("http://localhost:8000/edw/api/entities-images/?limit=2")).json();
  assert.equal(page.count, 5);
  await createMock({ records: 3 }).ready;
  assert.equal(compiles, 1, "no compile more for the mocks");
});
