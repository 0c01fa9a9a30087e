// What a frontend team's unit tests do with entities-images-mock/msw under msw/node (node --test; Vitest
// runs the same code): the example client (examples/typescript/client.ts, compiled by tsc) walks every
// page of a 3,000-record collection in order; an upload as the user is listed first; X-Mock-Fail gives a
// 503; the latency option holds answers back; X-Mock-Drop is a network error; a file whose bytes cannot be
// read is a 400; createMock().fetch answers a URL's text as the Request of it, and a Response's body is its own.
// Run in the app folder install_package.sh made; ENTIMG_TYPED_CLIENT names the folder of client.js.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { readFileSync } from "node:fs";
import { setupServer } from "msw/node";
import { createMock } from "entities-images-mock";
import { handlers } from "entities-images-mock/msw";

const API = "http://localhost:8000";
const LIST = `${API}/edw/api/entities-images/`;
const AUTH = `Basic ${Buffer.from("alice:s3cret").toString("base64")}`;
// tsc's output is an ES module in a folder that does not say so: loaded from its text.
const client = readFileSync(`${process.env.ENTIMG_TYPED_CLIENT}/client.js`, "utf8");
const { walk } = await import(`data:text/javascript,${encodeURIComponent(client)}`);

const server = setupServer(...handlers({ baseUrl: API, records: 3000, seed: 3, user: "alice:s3cret" }),
                           ...handlers({ baseUrl: "http://slow.test", records: 50, latency: 1000 }));
before(() => server.listen({ onUnhandledRequest: "error" }));
after(() => server.close());

test("the example client walks every page of 3,000 records in the mock's order", async () => {
  const walked = await walk(`${LIST}?limit=100`, 40);
  // The same collection from a mock of its own, in one page: the order every walk must follow.
  const one = await (await createMock({ records: 3000, seed: 3 }).fetch(`${LIST}?limit=3000`)).json();
  assert.equal(walked.pages, 30);
  assert.equal(walked.count, 3000);
  assert.deepEqual(walked.records.map((r) => r.id), one.results.map((r) => r.id));
  assert.equal(new Set(walked.records.map((r) => r.id)).size, 3000);
  assert.ok(walked.records.every((r) => r.image.startsWith(`${API}/media/filer_public/`)), "images on the app's origin");
});

test("an upload as the user is answered 201 and listed first, its picture served", async () => {
  const picture = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
  const first = (await (await fetch(LIST)).json()).results[0];
  const form = new FormData();
  form.append("image", new File([picture], "holiday.png", { type: "image/png" }));
  form.append("entity", String(first.entity));
  form.append("order", String(first.order - 1));  // listed by order, then id: before the first record
  const created = await fetch(LIST, { method: "POST", body: form, headers: { Authorization: AUTH } });
  assert.equal(created.status, 201, await created.clone().text());
  const record = await created.json();
  const page = await (await fetch(LIST)).json();
  assert.equal(page.count, 3001);
  assert.equal(page.results[0].id, record.id);
  assert.equal(page.results[0].original_filename, "holiday.png");
  const served = new Uint8Array(await (await fetch(record.image)).arrayBuffer());
  assert.deepEqual(served, picture);
  const anonymous = await fetch(LIST, { method: "POST", body: form });
  assert.equal(anonymous.status, 403);
});

test("X-Mock-Fail: 503 answers as a proxy's 503, with Retry-After", async () => {
  const response = await fetch(`${LIST}?offset=12`, { headers: { "X-Mock-Fail": "503" } });
  assert.equal(response.status, 503);
  assert.equal(response.headers.get("retry-after"), "1");
  assert.match(await response.text(), /503 Service Temporarily Unavailable/);
});

test("the latency option holds each answer back (MSW's delay)", async () => {
  // A lower bound on the delay, and the order of the answers for the rest: no wall-clock upper bound.
  const order = [];
  const started = performance.now();
  const slow = fetch("http://slow.test/edw/api/entities-images/").then((response) => {
    order.push("slow");
    return [response, performance.now() - started];
  });
  await fetch(`${LIST}?limit=1`).then(() => order.push("fast"));
  const [response, elapsed] = await slow;
  assert.equal(response.status, 200);
  assert.ok(elapsed >= 990, `answered after ${elapsed.toFixed(0)} ms, asked 1000 ms`);
  assert.deepEqual(order, ["fast", "slow"], "the fast mock is not held back by the slow one's delay");
});

test("X-Mock-Drop: 1 is a network error", async () => {
  await assert.rejects(fetch(LIST, { headers: { "X-Mock-Drop": "1" } }), TypeError);
});

test("the journal's body_sha256 is the body's SHA-256 (the WebAssembly build's own, checked against Node's)", async () => {
  const { createHash } = await import("node:crypto");
  const mock = createMock({ records: 10, admin: true });
  // Lengths around SHA-256's block and padding edges, and a body the journal cuts (over 16 KiB).
  const lengths = [1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 20000];
  for (const n of lengths) {
    const body = new Uint8Array(n).map((_, i) => (i * 31 + n) & 0xff);
    await mock.fetch(new Request(LIST, { method: "POST", body }));
  }
  const listing = await (await mock.fetch(`${API}/__mock/requests?method=POST`)).json();
  const entries = listing.requests ?? listing;
  assert.equal(entries.length, lengths.length);
  for (const [i, n] of lengths.entries()) {
    const body = new Uint8Array(n).map((_, k) => (k * 31 + n) & 0xff);
    assert.equal(entries[i].body_length, n);
    assert.equal(entries[i].body_sha256, createHash("sha256").update(body).digest("hex"), `a body of ${n} bytes`);
  }
});

test("an upload whose file's bytes cannot be read is a 400 saying so, not a stored picture", async () => {
  const mock = createMock({ records: 5, user: "alice:s3cret" });
  const file = { name: "a.png", type: "image/png", [Symbol.toStringTag]: "File" };  // no arrayBuffer(), no FileReader
  const form = { entries: () => [["image", file], ["entity", "1"]][Symbol.iterator](), [Symbol.toStringTag]: "FormData" };
  const response = await mock.fetch(LIST, { method: "POST", headers: { Authorization: AUTH }, body: form });
  assert.equal(response.status, 400);
  assert.match((await response.json()).detail, /^entities-images-mock: cannot read the bytes of form field 'image'/);
  const listed = await (await mock.fetch(`${LIST}?limit=10`)).json();
  assert.equal(listed.count, 5);
});

test("createMock().fetch: a URL's text, a URL and a Request of it answer alike; Request's refusals kept", async () => {
  const mock = createMock({ records: 40, seed: 9 });
  const url = `${LIST}?limit=5&offset=7`;
  const bodies = [];
  for (const input of [url, new URL(url), new Request(url)]) {
    const response = await mock.fetch(input);
    bodies.push({ status: response.status, headers: [...response.headers].filter(([n]) => n !== "date"), text: await response.text() });
  }
  assert.deepEqual(bodies[0], bodies[1]);
  assert.deepEqual(bodies[0], bodies[2]);
  // What new Request() refuses is refused the same way (read without a Request, a URL must not pass where it would not).
  for (const bad of ["/edw/api/entities-images/", "http://alice:s3cret@localhost:8000/edw/api/entities-images/"])
    await assert.rejects(mock.fetch(bad), TypeError, bad);
});

test("a Response's body is its own: later requests, and the core's memory growing, leave it as it was", async () => {
  const mock = createMock({ records: 3000, seed: 4 });
  const url = (offset) => `${LIST}?limit=12&offset=${offset}`;
  const unread = [];
  for (let offset = 0; offset < 240; offset += 12) unread.push(await mock.fetch(url(offset)));
  await (await mock.fetch(`${LIST}?limit=3000`)).arrayBuffer();  // 2 MB of answer: the memory grows
  for (const [i, response] of unread.entries()) {
    const page = await response.json();
    assert.deepEqual(page.results.map((r) => r.id), (await (await mock.fetch(url(12 * i))).json()).results.map((r) => r.id));
    assert.equal(page.results.length, 12);
  }
});
