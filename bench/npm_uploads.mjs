// Uploads through createMock().fetch until they are refused or `count` are sent (issue 36, item 3), for
// bench/bounds.py --only uploads: prints one JSON object, the answers' statuses counted, the first refusal's status
// and detail, WebAssembly memory and Node's peak RSS at the end, and the seconds taken.
// Usage: node npm_uploads.mjs PACKAGE_DIR COUNT BYTES [UPLOAD_BYTES]
import { pathToFileURL } from "node:url";

const [pkg, count, bytes, uploadBytes] = process.argv.slice(2);
const { createMock } = await import(pathToFileURL(`${pkg}/index.js`).href);
const options = { records: 1000, user: "bench:bench" };
if (uploadBytes) options.uploadBytes = Number(uploadBytes);
const mock = createMock(options);
await mock.ready;
const url = "http://localhost:8000/edw/api/entities-images/";
const auth = `Basic ${Buffer.from("bench:bench").toString("base64")}`;
const { entity } = (await (await mock.fetch(`${url}?limit=1`)).json()).results[0];
const file = new Uint8Array(Number(bytes)).fill(0xab);
const statuses = {};
let refused;
const started = performance.now();
for (let i = 0; i < Number(count); ++i) {
  const form = new FormData();
  form.append("image", new File([file], `u${i}.jpg`, { type: "image/jpeg" }));
  form.append("entity", String(entity));
  const answer = await mock.fetch(new Request(url, { method: "POST", body: form, headers: { Authorization: auth } }));
  statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
  const text = await answer.text();
  if (answer.status !== 201 && !refused) refused = { at: i + 1, status: answer.status, body: text.slice(0, 300) };
}
const listed = await (await mock.fetch(`${url}?limit=1`)).json();
console.log(JSON.stringify({
  statuses, refused, count: listed.count, seconds: (performance.now() - started) / 1000,
  memoryBytes: await mock.memoryBytes(), maxRssKib: process.resourceUsage().maxRSS,
}));
