// The WebAssembly core's figures for bench/npm.sh. Usage: node npm_pages.mjs PACKAGE_DIR MODE [PAGES]
//   ready:  createMock() from a fresh process until the first page is answered (the module compiled), in ms
//   pages:  computed pages a second through createMock().fetch, one thread (the offsets npm_pages_bench.cpp asks)
//   requests: the same, each page's URL handed over as a Fetch Request the app made (as MSW hands it over)
//   core:   the same pages through the WebAssembly core alone (mock.planRaw: the request as the core's fields, the
//           answer's bytes back), no Fetch objects: what bench/npm.sh sets against the native library per page
//   floor:  the same pages' Fetch Request read and Response made and read, with no core: what Node itself allows
//   memory: WebAssembly memory of the default collection (300,000 generated records) after pages across it
import { pathToFileURL } from "node:url";

const [pkg, mode, pagesArg] = process.argv.slice(2);
// Pages asked before timing. V8 runs WebAssembly first as its baseline compiler (Liftoff) made it and optimises
// the hot functions in the background (TurboFan); on two busy cores that takes a few thousand pages, and a page
// costs twice as much before: the figures are the steady state's, as the native reference's (500 pages warm it).
const WARM = 5000;
const started = performance.now();
const { createMock } = await import(pathToFileURL(`${pkg}/index.js`).href);
const imported = performance.now();
const mock = createMock({});
const first = await mock.fetch("http://localhost:8000/edw/api/entities-images/");
await first.arrayBuffer();
const ready = performance.now();
if (mode === "ready") {
  console.log(JSON.stringify({ importMs: imported - started, readyMs: ready - imported, totalMs: ready - started }));
} else if (mode === "pages" || mode === "requests") {
  const pages = Number(pagesArg ?? 20000);
  let bytes = 0;
  const run = async (from, count) => {
    for (let i = from; i < from + count; ++i) {
      const url = `http://localhost:8000/edw/api/entities-images/?offset=${(i * 7919) % 299988}`;
      const response = await mock.fetch(mode === "pages" ? url : new Request(url));
      bytes += (await response.arrayBuffer()).byteLength;
    }
  };
  await run(100000, WARM);  // warm-up (other offsets), as the native reference
  const t0 = performance.now();
  await run(500, pages);
  const seconds = (performance.now() - t0) / 1000;
  console.log(JSON.stringify({ pages, seconds, pagesPerSecond: pages / seconds, bytes }));
} else if (mode === "core") {
  const pages = Number(pagesArg ?? 20000);
  let bytes = 0;
  const headers = [["host", "localhost:8000"]];
  const body = new Uint8Array(0);
  const run = async (from, count) => {
    for (let i = from; i < from + count; ++i) {
      const target = `/edw/api/entities-images/?offset=${(i * 7919) % 299988}`;
      const planned = await mock.planRaw({ method: "GET", target, authority: "localhost:8000", headers, body });
      bytes += planned.answer().body.byteLength;
    }
  };
  await run(100000, WARM);
  const t0 = performance.now();
  await run(500, pages);
  const seconds = (performance.now() - t0) / 1000;
  console.log(JSON.stringify({ pages, seconds, pagesPerSecond: pages / seconds, microsecondsPerPage: 1e6 * seconds / pages, bytes }));
} else if (mode === "floor") {
  // What any front answering a Fetch Request with a Fetch Response spends with no core at all: the Request
  // read (its URL and headers), a Response of the same page bytes, status and headers, and its body read.
  // The same pages and loop as "pages"; the bytes are those of real pages, handed to the Response as they are
  // (the constructor copies them), as createMock().fetch hands over the core's.
  const pages = Number(pagesArg ?? 20000);
  const sample = [];
  for (let i = 0; i < 16; ++i) {
    const response = await mock.fetch(`http://localhost:8000/edw/api/entities-images/?offset=${(i * 7919) % 299988}`);
    sample.push({ body: new Uint8Array(await response.arrayBuffer()), headers: [...response.headers] });
  }
  let bytes = 0;
  const run = async (from, count) => {
    for (let i = from; i < from + count; ++i) {
      const request = new Request(`http://localhost:8000/edw/api/entities-images/?offset=${(i * 7919) % 299988}`);
      const url = new URL(request.url);
      const headers = [];
      for (const header of request.headers) headers.push(header);
      headers.push(["host", url.host]);
      const page = sample[i % sample.length];
      const response = new Response(page.body, { status: 200, statusText: "OK", headers: page.headers });
      bytes += (await response.arrayBuffer()).byteLength;
    }
  };
  await run(100000, WARM);
  const t0 = performance.now();
  await run(500, pages);
  const seconds = (performance.now() - t0) / 1000;
  console.log(JSON.stringify({ pages, seconds, pagesPerSecond: pages / seconds, bytes }));
} else if (mode === "memory") {
  for (const target of ["?offset=299988", "?limit=1000&offset=150000", "?entity=7", "?format=api&offset=120000"])
    await (await mock.fetch(`http://localhost:8000/edw/api/entities-images/${target}`)).arrayBuffer();
  for (let i = 0; i < 2000; ++i)
    await (await mock.fetch(`http://localhost:8000/edw/api/entities-images/?offset=${(i * 7919) % 299988}`)).arrayBuffer();
  console.log(JSON.stringify({ memoryBytes: await mock.memoryBytes(), describe: await mock.describe() }));
}
