// What the package holds in WebAssembly memory (issue 36): inputs larger than the memory it starts with (2 MiB)
// are taken whole (a team's own dataset, a long cors list, a long password: before, each threw "Cannot perform
// %TypedArray%.prototype.set on a detached ArrayBuffer").
// Run in the app folder install_package.sh made: node --test limits.test.mjs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createMock } from "entities-images-mock";

const LIST = "http://localhost:8000/edw/api/entities-images/";

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
