// The package under Jest's plain jsdom environment (plain_jsdom.jest.config.cjs; issue 44): it loads (before, "ReferenceError:
// TextEncoder is not defined" from inside it), answers the app's relative URLs against jsdom's location, refuses an
// upload over uploadBytes from its size without reading its body, and names a careless option at once.
const { ReadableStream } = require("node:stream/web");
const { createMock } = require("entities-images-mock");

const ALICE = { Authorization: "Basic " + btoa("alice:s3cret") };

test("the environment lacks what the package needs: this is the plain jsdom", () => {
  expect(typeof window).toBe("object");
  expect(location.href).toBe("http://localhost/");
  expect([typeof TextEncoder, typeof TextDecoder, typeof Request, typeof Response]).toEqual(Array(4).fill("undefined"));
});

test("the app's fetch('/edw/api/…') walks every page, resolved against jsdom's location", async () => {
  const mock = createMock({ records: 30 });
  globalThis.fetch = mock.fetch;  // the app's fetch, as a test would set it
  const ids = [];
  let first;
  for (let next = "/edw/api/entities-images/?limit=7"; next; ) {
    const response = await fetch(next);
    expect(response.status).toBe(200);
    const page = await response.json();
    first ??= page;
    ids.push(...page.results.map((r) => r.id));
    next = page.next;
  }
  expect(new Set(ids).size).toBe(30);
  expect(first.next).toBe("http://localhost/edw/api/entities-images/?limit=7&offset=7");  // links follow the Host
  expect(first.results[0].image.startsWith("http://localhost/media/")).toBe(true);
});

test("baseUrl gives relative URLs their origin", async () => {
  const mock = createMock({ records: 3, baseUrl: "http://api.test:8000" });
  const page = await (await mock.fetch("/edw/api/entities-images/?limit=1")).json();
  expect(page.next).toBe("http://api.test:8000/edw/api/entities-images/?limit=1&offset=1");
});

test("an upload whose Content-Length is over uploadBytes is a 507 at once, its body never pulled", async () => {
  const mock = createMock({ records: 3, user: "alice:s3cret", uploadBytes: 1 << 20 });
  let pulls = 0;
  const body = new ReadableStream({
    pull(controller) {
      pulls += 1;
      controller.enqueue(new Uint8Array(1 << 16));
    },
  }, { highWaterMark: 0 });
  const headers = { ...ALICE, "Content-Type": "multipart/form-data; boundary=x", "Content-Length": String(300e6) };
  const response = await mock.fetch("/edw/api/entities-images/", { method: "POST", headers, body, duplex: "half" });
  expect(response.status).toBe(507);
  expect((await response.json()).detail).toMatch(/at most 1048576 bytes of uploads in memory \(uploadBytes.*body is 300000000 bytes.*refused before it was read/);
  expect(pulls).toBe(0);
});

test("jsdom's File over uploadBytes in jsdom's FormData is a 507 from its size, never read", async () => {
  const mock = createMock({ records: 3, user: "alice:s3cret", uploadBytes: 1 << 20 });
  const reads = jest.spyOn(FileReader.prototype, "readAsArrayBuffer");
  const form = new FormData();
  form.append("image", new File([new Uint8Array(2 << 20)], "big.png", { type: "image/png" }));
  form.append("entity", "1");
  const response = await mock.fetch("/edw/api/entities-images/", { method: "POST", headers: ALICE, body: form });
  expect(response.status).toBe(507);
  expect(reads).not.toHaveBeenCalled();
  // ... while one within it is read through jsdom's FileReader and stored
  const entity = (await (await mock.fetch("/edw/api/entities-images/?limit=1")).json()).results[0].entity;
  const small = new FormData();
  small.append("image", new File([Uint8Array.of(1, 2, 3)], "small.png", { type: "image/png" }));
  small.append("entity", String(entity));
  const stored = await mock.fetch("/edw/api/entities-images/", { method: "POST", headers: ALICE, body: small });
  expect(reads).toHaveBeenCalledTimes(1);
  expect(stored.status).toBe(201);
});

test("careless options are named at once: a dataset path, the endpoint as baseUrl", () => {
  expect(() => createMock({ dataset: "fixtures/records.jsonl" }))
    .toThrow(/^option dataset takes the records' text, not a file path: 'fixtures\/records.jsonl' looks like a path/);
  expect(() => createMock({ dataset: "id,file\n1,a.png" })).toThrow(/^option dataset needs .* starts with '\{' or '\['/);
  expect(() => createMock({ baseUrl: "http://localhost:8000/edw/api/entities-images/" }))
    .toThrow("option baseUrl is where the deployment answers, not the endpoint: 'http://localhost:8000/edw/api/entities-images/' " +
             "holds the path /edw/, which the mock answers under it; give 'http://localhost:8000'");
});
