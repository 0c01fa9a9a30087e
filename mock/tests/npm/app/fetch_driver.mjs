// The differential test's WebAssembly side, run in the app folder where the tarball is installed next to msw:
// the requests on stdin (JSON lines) answered one JSON line each on stdout, through createMock().fetch, or with
// --msw through the app's own fetch() with msw/node's setupServer and entities-images-mock/msw's handlers().
// Usage: node fetch_driver.mjs --dataset FILE --user NAME:PASSWORD [--msw ORIGIN] [--gzip] [--cors ORIGIN]...
//        [--sized-pictures]
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { createMock } from "entities-images-mock";

const { values: args } = parseArgs({
  options: {
    dataset: { type: "string" },
    user: { type: "string" },
    msw: { type: "string" },
    gzip: { type: "boolean" },
    "sized-pictures": { type: "boolean" },
    cors: { type: "string", multiple: true },
    "break-body": { type: "boolean" },  // the differential's self-check: one byte more in each body
  },
});
const options = { dataset: readFileSync(args.dataset, "utf8"), user: args.user, gzip: args.gzip, cors: args.cors,
                  sizedPictures: args["sized-pictures"] };
let answer;
if (args.msw) {
  const { setupServer } = await import("msw/node");
  const { handlers } = await import("entities-images-mock/msw");
  const list = handlers({ baseUrl: args.msw, ...options });
  await list.mock.ready;
  // A path outside the handlers is an error (counted by the differential); MSW's message for it would
  // otherwise be printed for each such request.
  setupServer(...list).listen({ onUnhandledRequest: "error" });
  console.error = () => {};
  answer = (request) => fetch(request);
} else {
  const mock = await createMock(options).ready;
  answer = (request) => mock.fetch(request);
}
process.stdout.write("ready\n");

for await (const line of createInterface({ input: process.stdin })) {
  const q = JSON.parse(line);
  let out;
  try {
    // Header text arrives as latin-1 (the bytes on the wire), as Fetch's Headers hold it.
    // redirect "manual": the 301 itself, as the native mock answers it (fetch would follow it).
    const request = new Request(q.origin + q.target, {
      method: q.method,
      redirect: "manual",
      headers: q.headers,
      body: q.body ? Buffer.from(q.body, "base64") : undefined,
    });
    const url = new URL(request.url);
    // A plain GET goes to createMock().fetch as the URL's text, as an app most often calls it: read without a
    // Request (its own path), it must answer as the Request does. (Not through MSW: fetch() would follow a 301.)
    const plain = !args.msw && q.method === "GET" && q.headers.length === 0 && !q.body;
    const response = await answer(plain ? q.origin + q.target : request);
    const body = Buffer.from(await response.arrayBuffer());
    out = {
      target: url.pathname + url.search,
      status: response.status,
      reason: response.statusText,
      headers: [...response.headers],
      body: Buffer.concat([body, Buffer.from(args["break-body"] ? " " : "")]).toString("base64"),
    };
  } catch (e) {
    out = { refused: `${e.name}: ${e.message}${e.cause ? ` (${e.cause.message ?? e.cause})` : ""}` };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
