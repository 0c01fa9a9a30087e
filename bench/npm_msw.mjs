// MSW's figures for bench/npm.sh, run from the app folder (copied there) so that "msw/node" and the package resolve
// as an app's imports do. Pages a second through the app's own fetch() under setupServer, in alternating rounds
// in one process, with three handlers answering the same pages (the same offsets as npm_pages.mjs):
//   mock:        the package's handlers() (the core computes each page);
//   handWritten: what a team writes by hand: the records as a fixture array of objects (those of the pages
//                asked, as the package served them), the page sliced from it by ?offset=, its links built, and
//                HttpResponse.json(); checked to give the package's bytes for every page before timing;
//   replay:      each page's recorded bytes returned as they are (no page is built: MSW's own ceiling).
// Usage: node npm_msw.mjs [PAGES] [ROUNDS]. Prints pages a second (medians of the rounds) as JSON.
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { handlers } from "entities-images-mock/msw";

const pages = Number(process.argv[2] ?? 3000);
const rounds = Number(process.argv[3] ?? 3);
const base = "http://localhost:8000";
const list = `${base}/edw/api/entities-images/`;
const offsetOf = (i) => (i * 7919) % 299988;
const url = (i) => `${list}?offset=${offsetOf(i)}`;
const ours = handlers({ baseUrl: base });
await ours.mock.ready;

const recorded = new Map();  // URL -> the package's answer
const fixture = [];  // position -> record object, for the pages asked
let count = 0;
for (let i = 0; i < pages + 200; ++i) {
  const response = await ours.mock.fetch(url(i));
  const body = new Uint8Array(await response.arrayBuffer());
  recorded.set(url(i), { body, headers: [...response.headers].filter(([name]) => name !== "date") });
  const page = JSON.parse(new TextDecoder().decode(body));
  count = page.count;
  page.results.forEach((record, k) => (fixture[offsetOf(i) + k] = record));
}

function handWrittenPage(request) {
  const offset = Number(new URL(request.url).searchParams.get("offset") ?? 0);
  const limit = 12;
  const page = {
    count,
    next: offset + limit < count ? `${list}?limit=${limit}&offset=${offset + limit}` : null,
    previous: offset <= 0 ? null : offset - limit <= 0 ? `${list}?limit=${limit}` : `${list}?limit=${limit}&offset=${offset - limit}`,
    results: fixture.slice(offset, offset + limit),
  };
  return HttpResponse.json(page, { headers: { Vary: "Accept", Allow: "GET, POST, HEAD, OPTIONS" } });
}

const handWritten = http.get(list, ({ request }) => handWrittenPage(request));
const replay = http.get(list, ({ request }) => {
  const page = recorded.get(request.url);
  return new HttpResponse(page.body.slice(), { status: 200, headers: page.headers });
});

// The hand-written handler must give the package's bytes, or the comparison means nothing.
for (let i = 0; i < pages + 200; ++i) {
  const mine = new Uint8Array(await handWrittenPage(new Request(url(i))).arrayBuffer());
  if (Buffer.compare(mine, recorded.get(url(i)).body) !== 0) throw new Error(`the hand-written page differs: ${url(i)}`);
}

async function pagesPerSecond(handlerList) {
  const server = setupServer(...handlerList);
  server.listen({ onUnhandledRequest: "error" });
  const run = async (from, n) => {
    for (let i = from; i < from + n; ++i) await (await fetch(url(i))).arrayBuffer();
  };
  await run(0, 200);  // warm-up
  const t0 = performance.now();
  await run(200, pages);
  const seconds = (performance.now() - t0) / 1000;
  server.close();
  return pages / seconds;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const figures = { mock: [], handWritten: [], replay: [] };
for (let r = 0; r < rounds; ++r) {
  figures.mock.push(await pagesPerSecond(ours));
  figures.handWritten.push(await pagesPerSecond([handWritten]));
  figures.replay.push(await pagesPerSecond([replay]));
}
console.log(JSON.stringify({ pages, rounds, mock: median(figures.mock), handWritten: median(figures.handWritten),
                             replay: median(figures.replay), all: figures }));
