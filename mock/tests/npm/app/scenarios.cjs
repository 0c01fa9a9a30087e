// What a frontend team's tests do with the package, run by Jest (CommonJS and ESM mode, node and jsdom
// environments: jest.config.cjs) and Vitest (node and jsdom: vitest.config.mjs): walk the pages, meet a
// failure, upload a picture and fetch it back byte for byte. Each runner hands in its own test functions,
// and the app's fetch: the global one under MSW's handlers, or createMock().fetch where MSW cannot load
// (Jest's CommonJS mode on Node before 24.9: MSW 2's dependencies rettime and until-async are ES modules only).
const API = "http://localhost:8000/edw/api/entities-images/";
const ALICE = { Authorization: "Basic " + btoa("alice:s3cret") };
// A 1x1 PNG: the bytes must come back exactly.
const PNG = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));

let fetch;  // the app's: set by scenarios()

async function walk(url) {
  const records = [];
  for (let next = url; next; ) {
    const response = await fetch(next);
    if (response.status !== 200) throw new Error(`${next}: ${response.status}`);
    const page = await response.json();
    records.push(...page.results);
    next = page.next;
  }
  return records;
}

async function upload(File, FormData) {
  const entity = (await (await fetch(`${API}?limit=1`)).json()).results[0].entity;
  const form = new FormData();
  form.append("image", new File([PNG], "pixel.png", { type: "image/png" }));
  form.append("entity", String(entity));
  return fetch(API, { method: "POST", headers: ALICE, body: form });
}

/// The scenarios, with the runner's { test, expect, beforeAll, afterAll } and the package's modules
/// (setupServer and handlers: through MSW and the global fetch; without: through createMock().fetch).
function scenarios({ test, expect, beforeAll, afterAll }, { setupServer, handlers, createMock }) {
  const options = { records: 40, user: "alice:s3cret" };
  if (setupServer) {
    const server = setupServer(...handlers({ baseUrl: "http://localhost:8000", ...options }));
    beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
    afterAll(() => server.close());
    fetch = (...args) => globalThis.fetch(...args);
  } else {
    const mock = createMock(options);
    fetch = mock.fetch;
  }

  test("walks every page", async () => {
    const records = await walk(`${API}?limit=7`);
    expect(records.length).toBe(40);
    expect(new Set(records.map((r) => r.id)).size).toBe(40);
  });

  test("fails as asked (X-Mock-Fail) and as a bad request", async () => {
    expect((await fetch(API, { headers: { "X-Mock-Fail": "503" } })).status).toBe(503);
    expect((await fetch(`${API}?limit=x`)).status).toBe(200);  // DRF ignores a limit it cannot read
    expect((await fetch(`${API}?offset=1&format=xml`)).status).toBe(404);
  });

  test("uploads a picture, lists it last and serves its bytes", async () => {
    const response = await upload(globalThis.File, globalThis.FormData);
    const text = await response.text();
    expect(`${response.status} ${text.slice(0, 300)}`).toMatch(/^201 /);
    const record = JSON.parse(text);
    const records = await walk(`${API}?limit=12`);
    expect(records[records.length - 1].id).toBe(record.id);  // ordered by `order`, then id
    const picture = new Uint8Array(await (await fetch(record.image)).arrayBuffer());
    expect(Array.from(picture)).toEqual(Array.from(PNG));
  });

  test("createMock().fetch answers without MSW", async () => {
    const mock = createMock({ records: 5 });
    const page = await (await mock.fetch(`${API}?limit=2`)).json();
    expect([page.count, page.results.length]).toEqual([5, 2]);
    expect(await mock.describe()).toBe("5 generated records (seed 1)");
  });
}

/// In jsdom: a File of jsdom's own, in the environment's FormData, which Node's fetch (and Node's FormData)
/// cannot read. Through MSW the upload must be a 400 that says why (it was 'undefined' or '[object File]'
/// stored and listed, or a 500 page); through createMock().fetch, which reads the File itself, a 201 with the
/// picture's own bytes. `jsdom`: { File, FormData } as the environment had them before the setup file.
function jsdomUpload({ test, expect }, jsdom, { createMock }) {
  test("an upload of jsdom's File through the app's fetch is refused saying why, never stored wrong", async () => {
    const response = await upload(jsdom.File, jsdom.FormData ?? globalThis.FormData);
    const text = await response.text();
    expect(`${response.status} ${text}`).toMatch(/^400 .*form field 'image' arrived as the text '(undefined|\[object File\])'/);
  });
  if (!jsdom.FormData) return;  // jest-fixed-jsdom leaves no jsdom FormData
  test("createMock().fetch reads the bytes of jsdom's File", async () => {
    const mock = createMock({ records: 5, user: "alice:s3cret" });
    const form = new jsdom.FormData();
    form.append("image", new jsdom.File([PNG], "pixel.png", { type: "image/png" }));
    form.append("entity", String((await (await mock.fetch(`${API}?limit=1`)).json()).results[0].entity));
    const response = await mock.fetch(API, { method: "POST", headers: ALICE, body: form });
    const text = await response.text();
    expect(`${response.status} ${text.slice(0, 200)}`).toMatch(/^201 /);
    const picture = new Uint8Array(await (await mock.fetch(JSON.parse(text).image)).arrayBuffer());
    expect(Array.from(picture)).toEqual(Array.from(PNG));
  });
}

module.exports = { scenarios, jsdomUpload };
