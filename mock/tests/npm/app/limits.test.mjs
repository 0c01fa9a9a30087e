// What the package holds in WebAssembly memory (issue 36): inputs larger than the memory it starts with (2 MiB)
// are taken whole (a team's own dataset, a long cors list, a long password: before, each threw "Cannot perform
// %TypedArray%.prototype.set on a detached ArrayBuffer"), and uploads kept in memory stop at uploadBytes with a
// 507 naming it (before, they filled the 2 GiB the instance may grow to, then every request failed with a bare
// 500). Small sizes: bench/bounds.sh --only uploads measures 5,000 x 1 MiB.
// Run in the app folder install_package.sh made: node --test limits.test.mjs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createMock } from "entities-images-mock";

const LIST = "http://localhost:8000/edw/api/entities-images/";
const AUTH = `Basic ${Buffer.from("alice:s3cret").toString("base64")}`;

function record(id) {
  const uuid = `00000000-0000-4000-8000-${String(id).padStart(12, "0")}`;
  return {
    id, file: `filer_public/00/00/${uuid}/photo_${id}.jpg`, original_filename: `photo_${id}.jpg`, file_size: 1000 + id,
    author: "", name: `a record with a long name, ${"so that the dataset is large ".repeat(8)}${id}`, default_caption: "",
    alt: "", description: "", subject_location: "", mime_type: "image/jpeg", order: id, key: null, entity: 1 + (id % 7),
  };
}

test("a dataset of 5,000 records (3 MB of JSON Lines, over the 2 MiB memory the core starts with) is served", async () => {
  const text = Array.from({ length: 5000 }, (_, i) => JSON.stringify(record(i + 1))).join("\n");
  assert.ok(text.length > 2.5e6, `the dataset is ${text.length} bytes`);
  const mock = createMock({ dataset: text });
  await mock.ready;
  const page = await (await mock.fetch(`${LIST}?offset=4998`)).json();
  assert.equal(page.count, 5000);
  assert.deepEqual(page.results.map((r) => r.id), [4999, 5000]);
});

test("a long cors list and a long password are taken whole (2.3 MB of options)", async () => {
  const cors = Array.from({ length: 40000 }, (_, i) => `http://app-${i}.localhost:3000`);
  const password = "p".repeat(1 << 20);
  const mock = createMock({ records: 10, cors, user: { name: "alice", password } });
  await mock.ready;
  const page = await mock.fetch(LIST, { headers: { Origin: cors.at(-1) } });
  assert.equal(page.headers.get("access-control-allow-origin"), cors.at(-1));
  const auth = `Basic ${Buffer.from(`alice:${password}`).toString("base64")}`;
  const options = await mock.fetch(LIST, { method: "OPTIONS", headers: { Authorization: auth } });
  assert.match(await options.text(), /"POST"/, "the user is authenticated: OPTIONS lists POST");
});

function upload(bytes, name, entity) {
  const form = new FormData();
  form.append("image", new File([new Uint8Array(bytes).fill(7)], name, { type: "image/jpeg" }));
  form.append("entity", String(entity));
  return new Request(LIST, { method: "POST", body: form, headers: { Authorization: AUTH } });
}

test("uploads kept in memory stop at uploadBytes: 507 naming it, the uploads before it served", async () => {
  const mock = createMock({ records: 10, seed: 2, user: "alice:s3cret", uploadBytes: 1 << 20, admin: true });
  const { entity } = (await (await mock.fetch(LIST)).json()).results[0];
  const statuses = [];
  let refused;
  for (let i = 0; i < 4; ++i) {
    const answer = await mock.fetch(upload(300 * 1024, `u${i}.jpg`, entity));
    statuses.push(answer.status);
    if (answer.status !== 201) refused = await answer.json();
  }
  assert.deepEqual(statuses, [201, 201, 201, 507]);  // 3 x (300 KiB + names + 1 KiB) fit in 1 MiB, a fourth not
  assert.match(refused.detail, /at most 1048576 bytes of uploads in memory \(--upload-bytes; uploadBytes in the npm package\)/);
  const page = await (await mock.fetch(LIST)).json();
  assert.equal(page.count, 13);
  // POST /__mock/reset removes them, and uploads are taken again.
  assert.equal((await mock.fetch(new Request("http://localhost:8000/__mock/reset", { method: "POST" }))).status, 200);
  assert.equal((await mock.fetch(upload(300 * 1024, "again.jpg", entity))).status, 201);
  assert.ok(await mock.memoryBytes() < 32 << 20, `${await mock.memoryBytes()} bytes of WebAssembly memory`);
});

// Issue 44: an upload over uploadBytes is refused from the size it declares, before its body is read or copied
// (before, a 300 MB Blob took 173 s to its 507 and held 1.2 GiB). Shown by counting reads, not by a clock: every
// way of reading a Blob or File (their prototype's methods) and each stream's pulls are counted, and none may
// happen; an upload within the limit then counts its reads, which shows the counting works.
function countBlobReads() {
  const counted = { reads: 0 };
  const methods = ["arrayBuffer", "stream", "text", "bytes", "slice"].filter((m) => typeof Blob.prototype[m] === "function");
  const own = methods.map((m) => Blob.prototype[m]);
  methods.forEach((m, i) => {
    Blob.prototype[m] = function (...args) {
      counted.reads += 1;
      return own[i].apply(this, args);
    };
  });
  counted.restore = () => methods.forEach((m, i) => (Blob.prototype[m] = own[i]));
  return counted;
}

test("an upload over uploadBytes is a 507 from its declared size, its body never read", async () => {
  const mock = createMock({ records: 3, user: "alice:s3cret", uploadBytes: 1 << 20 });
  const { entity } = (await (await mock.fetch(LIST)).json()).results[0];
  const over = () => new Uint8Array((1 << 20) + 1);
  const form = new FormData();
  form.append("image", new File([over()], "big.png", { type: "image/png" }));
  form.append("entity", String(entity));
  let pulls = 0;
  const stream = () => new ReadableStream({ pull(c) { pulls += 1; c.enqueue(new Uint8Array(65536)); } }, { highWaterMark: 0 });
  const headers = { Authorization: AUTH, "Content-Type": "multipart/form-data; boundary=x" };
  const length = { ...headers, "Content-Length": "300000000" };
  const sends = [
    ["a Blob", LIST, { body: new Blob([over()], { type: "image/png" }), headers }],
    ["a FormData with a File", LIST, { body: form, headers: { Authorization: AUTH } }],
    ["a stream with Content-Length", LIST, { body: stream(), duplex: "half", headers: length }],
    ["a Request with Content-Length", new Request(LIST, { method: "POST", body: stream(), duplex: "half", headers: length })],
  ];
  const blobs = countBlobReads();
  try {
    for (const [what, input, init] of sends) {
      const response = await mock.fetch(input, init && { method: "POST", ...init });
      assert.equal(response.status, 507, what);
      assert.match((await response.json()).detail, /^entities-images-mock: the mock keeps at most 1048576 bytes of uploads in memory \(uploadBytes; --upload-bytes natively\), and this upload's body is \d+ bytes: it cannot fit, and was refused before it was read$/, what);
    }
    assert.deepEqual({ blobReads: blobs.reads, pulls }, { blobReads: 0, pulls: 0 }, "no body was read");
    // One within the limit is read (its File's bytes, counted) and kept as before.
    const small = new FormData();
    small.append("image", new File([new Uint8Array(1000)], "small.jpg", { type: "image/jpeg" }));
    small.append("entity", String(entity));
    assert.equal((await mock.fetch(LIST, { method: "POST", body: small, headers: { Authorization: AUTH } })).status, 201);
    assert.ok(blobs.reads > 0, "the counting sees a read");
  } finally {
    blobs.restore();
  }
});
