// Every option of createMock() and handlers(): a value of each accepted form works, a wrong one throws at once
// with one message naming the option and what it takes (mock.npm.options). And what those options promise:
// baseUrl's path prefix in links, image URLs and redirects; the inlined core through `wasm`.
import assert from "node:assert/strict";
import test from "node:test";
import { setupServer } from "msw/node";
import { createMock, OPTIONS } from "entities-images-mock";
import { handlers } from "entities-images-mock/msw";
import inlineWasm from "entities-images-mock/inline-wasm";

// name: [accepted values], [[wrong value, the message it must give]]
const CASES = {
  records: [[10, "10"], [["ten", /^option records needs a whole number from 0 to 1000000000000, got 'ten'$/], [-1, /option records/]]],
  seed: [[7, "18446744073709551615", 2n ** 64n - 1n], [["x", /^option seed needs .* from 0 to 18446744073709551615, got 'x'$/]]],
  dataset: [["", []], [[42, /^option dataset needs an array of records or their JSON Lines/]]],
  sizedPictures: [[true, false], [["yes", /^option sizedPictures needs true or false, got 'yes'$/]]],
  churn: [["30:10", { inserts: 1 }], [["30", /^option churn needs/], ["0:0", /not both 0/]]],
  user: [["alice:s3cret", { name: "a", password: "b" }], [["alice", /^option user needs NAME:PASSWORD, got 'alice'$/]]],
  uploadBytes: [[1, 1048576, "65536"], [["x", /^option uploadBytes needs a size in bytes from 1 to 1099511627776, got 'x'$/], [-1, /got -1$/]]],
  latency: [[150, "150:100", { ms: 1 }], [["fast", /^option latency needs MS or MS:JITTER/]]],
  maxDelay: [[1000], [[-5, /^option maxDelay needs/]]],
  failRate: [[0.5, "0.5"], [[2, /^option failRate needs a share from 0 to 1, got 2$/]]],
  failStatus: [[503, 429], [[418, /^option failStatus .*got 418$/]]],
  dropRate: [[0.1], [["x", /^option dropRate needs a share from 0 to 1, got 'x'$/]]],
  slowBody: [[1000], [[0, /^option slowBody needs .* from 1 to/]]],
  cors: [["http://localhost:3000", ["*"]], [["localhost:3000", /^option cors needs .*got 'localhost:3000'$/]]],
  gzip: [[true, false], [["no", /^option gzip needs true or false, got 'no'$/], ["false", /got 'false'$/], [1, /got 1$/]]],
  noSecurityHeaders: [[true, false], [["yes", /^option noSecurityHeaders needs true or false, got 'yes'$/]]],
  admin: [[true, false], [["yes", /^option admin needs true or false, got 'yes'$/]]],
  journalSize: [[100], [[0, /^option journalSize needs .* from 1 to/]]],
  journalBytes: [[65536], [[10, /^option journalBytes needs .* from 65536 to 4294967295, got 10$/]]],
  journalCredentials: [[true, false], [["yes", /^option journalCredentials needs true or false, got 'yes'$/]]],
  adminHost: [["mock.test", "*"], [[42, /^option adminHost needs/]]],
  log: [["none", "text", "json"], [["verbose", /^option log is 'none', 'text' or 'json', got 'verbose'$/]]],
  onLog: [[() => {}], [["console", /^option onLog needs a function/]]],
  wasm: [[inlineWasm], [[42, /^option wasm needs the core's WebAssembly/]]],
};

test("every option has its case here", () => {
  assert.deepEqual(Object.keys(CASES).sort(), [...OPTIONS.map((o) => o[0]), "log", "onLog", "wasm"].sort());
});

for (const [name, [good, bad]] of Object.entries(CASES)) {
  test(`option ${name}`, () => {
    for (const value of good) assert.doesNotThrow(() => createMock({ [name]: value }), `${name}: ${String(value)}`);
    for (const [value, message] of bad) assert.throws(() => createMock({ [name]: value }), { message }, `${name}: ${String(value)}`);
  });
}

test("option baseUrl: an absolute http(s) URL of the deployment, not of the endpoint", () => {
  for (const make of [handlers, createMock]) {
    for (const value of ["http://localhost:8000", "https://api.example.org/backend/", new URL("http://a:1"), "http://x/edwin/"])
      assert.doesNotThrow(() => make({ baseUrl: value }));
    const message = /^option baseUrl needs an absolute http\(s\) URL such as 'http:\/\/localhost:8000'/;
    for (const value of ["localhost:8000", "/", "ftp://example.org", "http://x/?q=1", 8000, "//example.org"])
      assert.throws(() => make({ baseUrl: value }), { name: "TypeError", message }, String(value));
    // The endpoint's URL, or a picture's, taken as a prefix no request would be under (issue 44): refused at once.
    for (const [value, meant] of [["http://localhost:8000/edw/api/entities-images/", "http://localhost:8000"],
                                  ["https://example.org/backend/edw/api/", "https://example.org/backend"],
                                  ["http://localhost:8000/media/filer_public/", "http://localhost:8000"]])
      assert.throws(() => make({ baseUrl: value }), {
        name: "TypeError", message: new RegExp(`^option baseUrl is where the deployment answers, not the endpoint: .*; give '${meant}'$`),
      }, value);
  }
});

test("relative URLs: resolved against baseUrl, or said to need one where there is no location", async () => {
  const page = await (await createMock({ records: 3, baseUrl: "http://api.test:8000" }).fetch("/edw/api/entities-images/?limit=1")).json();
  assert.equal(page.next, "http://api.test:8000/edw/api/entities-images/?limit=1&offset=1");
  const prefixed = createMock({ records: 3, baseUrl: "http://api.test:8000/backend" });
  const under = await (await prefixed.fetch("/backend/edw/api/entities-images/?limit=1")).json();
  assert.equal(under.next, "http://api.test:8000/backend/edw/api/entities-images/?limit=1&offset=1");
  assert.equal(typeof globalThis.location, "undefined");  // Node: nothing to resolve against
  await assert.rejects(createMock({ records: 3 }).fetch("/edw/api/entities-images/"), {
    name: "TypeError",
    message: "entities-images-mock: cannot resolve the relative URL '/edw/api/entities-images/': this environment has no " +
             "location to resolve it against; give createMock() a baseUrl (createMock({ baseUrl: \"http://localhost:8000\" })), " +
             "or fetch an absolute URL",
  });
});

test("option dataset: a path, or text that cannot be JSON, is named as such", () => {
  for (const path of ["fixtures/records.jsonl", "records.json", "C:\\data\\records.ndjson", "./snapshots/2026-11-22"])
    assert.throws(() => createMock({ dataset: path }), { name: "TypeError", message: /^option dataset takes the records' text, not a file path: .* looks like a path\. Read the file first: createMock\(\{ dataset: fs\.readFileSync\(/ }, path);
  assert.throws(() => createMock({ dataset: "id,file\n1,a.png" }), { message: /^option dataset needs .*: got text starting 'id,file/ });
  for (const text of ["", "  [ ]", "\n[]"]) assert.doesNotThrow(() => createMock({ dataset: text }), JSON.stringify(text));
});

test("an unknown option is named with every option", () => {
  const names = [...OPTIONS.map((o) => o[0]), "baseUrl", "log", "onLog", "wasm"];
  assert.throws(() => createMock({ colour: 1 }), { message: `unknown option 'colour' (options: ${names.join(", ")})` });
  assert.throws(() => createMock("records=3"), /takes an object of options/);
});

test("wasm: the inlined core answers as the file's", async () => {
  const mock = createMock({ records: 3, wasm: inlineWasm });
  assert.equal(await mock.describe(), "3 generated records (seed 1)");
  const module = await WebAssembly.compile(inlineWasm);
  assert.equal(await createMock({ records: 4, wasm: module }).describe(), "4 generated records (seed 1)");
  await assert.rejects(createMock({ records: 4, wasm: new Uint8Array([0, 97, 115, 109]) }).ready, /CompileError|WebAssembly/);
});

test("baseUrl's path prefix: links, image URLs and redirects under it, gzipped or not", async () => {
  const base = "http://localhost:8000/backend";
  const server = setupServer(...handlers({ baseUrl: `${base}/`, records: 30, gzip: true }));
  server.listen({ onUnhandledRequest: "error" });
  try {
    for (const headers of [{}, { "Accept-Encoding": "gzip" }]) {
      const page = await (await fetch(`${base}/edw/api/entities-images/?limit=5`, { headers })).json();
      assert.equal(page.next, `${base}/edw/api/entities-images/?limit=5&offset=5`);
      assert.ok(page.results.every((r) => r.image === `${base}/media/${r.file}`), page.results[0].image);
      const picture = await fetch(page.results[0].image);
      assert.equal(picture.status, 200);
      assert.equal(picture.headers.get("content-type"), page.results[0].mime_type);
    }
    const redirect = await fetch(`${base}/edw/api/entities-images?limit=2`, { redirect: "manual" });
    assert.deepEqual([redirect.status, redirect.headers.get("location")], [301, "/backend/edw/api/entities-images/?limit=2"]);
    await assert.rejects(fetch("http://localhost:8000/edw/api/entities-images/"));  // not under the prefix: not answered
  } finally {
    server.close();
  }
});
