// The differential test's WebAssembly side: one mock made with createMock() from the installed package,
// answering the requests on stdin (JSON lines) through fetch(), one JSON line each on stdout.
// Usage: node fetch_driver.mjs --package DIR --dataset FILE --user NAME:PASSWORD [--gzip] [--cors ORIGIN]...
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    package: { type: "string" },
    dataset: { type: "string" },
    user: { type: "string" },
    gzip: { type: "boolean" },
    cors: { type: "string", multiple: true },
    "break-body": { type: "boolean" },  // the differential's self-check: one byte more in each body
  },
});
const { createMock } = await import(pathToFileURL(`${args.package}/index.js`).href);
const mock = createMock({ dataset: readFileSync(args.dataset, "utf8"), user: args.user, gzip: args.gzip, cors: args.cors });
await mock.ready;
process.stdout.write("ready\n");

for await (const line of createInterface({ input: process.stdin })) {
  const q = JSON.parse(line);
  let out;
  try {
    // Header text arrives as latin-1 (the bytes on the wire), as Fetch's Headers hold it.
    const request = new Request(q.origin + q.target, {
      method: q.method,
      headers: q.headers,
      body: q.body ? Buffer.from(q.body, "base64") : undefined,
    });
    const url = new URL(request.url);
    const response = await mock.fetch(request);
    out = {
      target: url.pathname + url.search,
      status: response.status,
      reason: response.statusText,
      headers: [...response.headers],
      body: Buffer.concat([Buffer.from(await response.arrayBuffer()), Buffer.from(args["break-body"] ? " " : "")]).toString("base64"),
    };
  } catch (e) {
    out = { refused: `${e.name}: ${e.message}${e.cause ? ` (${e.cause.message ?? e.cause})` : ""}` };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
