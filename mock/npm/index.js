// entities-images-mock: the Entity Images Listing Service mock, the native mock's own C++ core compiled to
// WebAssembly, answering standard Fetch Requests. docs/npm.md.
import { Core } from "./core.js";
import { coreOptions } from "./options.js";
import { withPrefix } from "./prefix.js";
import { formDataBody, isFormData, unreadableUpload } from "./upload.js";

export { OPTIONS } from "./options.js";

const NO_BODY = new Set([204, 205, 304]);
/// handlers()' way to plan a request under baseUrl's path prefix.
export const PLAN_UNDER = Symbol("entities-images-mock plan under a prefix");

/// What every front adds to the core's answer: Content-Type, Content-Length (a HEAD's is its GET's; none
/// where the core frames it without, as gunicorn sends Django's bad-Host 400), and Date as a deployment sends
/// it. Framing is the front's own.
export function answerHeaders(answer) {
  const headers = [...answer.headers];
  if (answer.contentType) headers.push(["Content-Type", answer.contentType]);
  if (!NO_BODY.has(answer.status) && answer.status >= 200 && !answer.withoutContentLength)
    headers.push(["Content-Length", String(answer.body.length)]);
  headers.push(["Date", new Date().toUTCString()]);
  return headers;
}

/// A body that arrives at `bps` bytes a second (X-Mock-Slow-Body, slowBody), in tenths of a second.
function trickle(body, bps) {
  const step = Math.max(1, Math.floor(bps / 10));
  let at = 0;
  return new ReadableStream({
    async pull(controller) {
      if (at > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      controller.enqueue(body.slice(at, at + step));
      at += step;
      if (at >= body.length) controller.close();
    },
  });
}

// `prefix`: a path handlers() answer under, not the core's (prefix.js).
async function coreRequest(request, prefix = "") {
  const url = new URL(request.url);
  const headers = [];
  let host = false, length = false;
  for (const [name, value] of request.headers) {
    host ||= name === "host";
    length ||= name === "content-length";
    headers.push([name, value]);
  }
  if (!host) headers.unshift(["host", url.host]);  // as a browser sends it: the URL's host and port
  const body = request.body ? new Uint8Array(await request.arrayBuffer()) : new Uint8Array(0);
  if (body.length > 0 && !length) headers.push(["content-length", String(body.length)]);
  return { method: request.method, target: url.pathname.slice(prefix.length) + url.search, authority: url.host, headers, body };
}

// A 400 of the front's own, for a request the core must not see (an upload whose file arrived as text).
function refusal(detail) {
  const body = new TextEncoder().encode(JSON.stringify({ detail: `entities-images-mock: ${detail}` }));
  const answer = { status: 400, reason: "Bad Request", contentType: "application/json", headers: [], body };
  return { delayMs: 0, drop: false, slowBodyBps: 0, dropped() {}, answer: () => answer };
}

// The plan of a request already in the core's terms ({ method, target, authority, headers, body }):
// wait delayMs (the front's way), then answer() or, when drop, dropped().
async function planRaw(core, req) {
  const started = performance.now();
  const c = await core;
  const contentType = req.headers.find(([name]) => name.toLowerCase() === "content-type")?.[1];
  const unreadable = unreadableUpload(contentType, req.body);
  if (unreadable) return refusal(unreadable);
  const admitted = c.admit(req);
  return {
    delayMs: admitted.response ? 0 : admitted.delayMs,
    drop: !admitted.response && admitted.drop,
    slowBodyBps: admitted.slowBodyBps,
    dropped() {
      c.finished(admitted.ticket, 0, 0, performance.now() - started);
    },
    /// { status, reason, contentType, headers, body }; `sent` body bytes go to the journal and log.
    answer(sent) {
      const answer = admitted.response ?? c.respond(admitted.ticket);
      const bytes = sent ?? (req.method === "HEAD" || NO_BODY.has(answer.status) ? 0 : answer.body.length);
      c.finished(admitted.ticket, answer.status, bytes, performance.now() - started);
      return answer;
    },
  };
}

// A FormData body is written out here (upload.js), so that each file's own bytes are sent whatever Blob it is.
async function fetchRequest(input, init) {
  if (isFormData(init?.body)) {
    const { body, contentType } = await formDataBody(init.body);
    const headers = new Headers(init.headers);
    headers.set("content-type", contentType);
    return new Request(input, { ...init, body, headers });
  }
  return input instanceof Request && init === undefined ? input : new Request(input, init);
}

// The plan of a Fetch Request: as planRaw, with response() making the Fetch Response. `prefix`: the path
// handlers() answer under (prefix.js).
async function plan(core, input, init, prefix = "") {
  let request;
  try {
    request = await fetchRequest(input, init);
  } catch (e) {
    if (!e.unreadableUpload) throw e;
    const refused = refusal(e.message);  // a file of the FormData whose bytes cannot be read
    refused.response = () => fetchResponse(refused.answer(), "POST", 0);
    return refused;
  }
  const req = await coreRequest(request, prefix);
  const planned = await planRaw(core, req);
  planned.response = () =>
    fetchResponse(prefix ? withPrefix(planned.answer(), prefix) : planned.answer(), req.method, planned.slowBodyBps);
  return planned;
}

function fetchResponse(answer, method, bps) {
  const noBody = method === "HEAD" || NO_BODY.has(answer.status);
  const body = noBody ? null : bps > 0 && answer.body.length > 0 ? trickle(answer.body, bps) : answer.body;
  return new Response(body, { status: answer.status, statusText: answer.reason, headers: answerHeaders(answer) });
}

/// Creates a mock. Options are the CLI's (records, seed, dataset, user, cors, latency, failRate, failStatus,
/// dropRate, slowBody, churn, gzip, admin, ...); a bad one throws here. `ready` resolves once the core runs.
export function createMock(options = {}) {
  for (const name of ["Request", "Response", "Headers", "TextEncoder", "WebAssembly"])
    if (typeof globalThis[name] === "undefined")
      throw new Error(`entities-images-mock needs the global ${name} (the Fetch API of Node 18+ or a browser); under Jest's ` +
                      `jsdom use testEnvironment "jest-fixed-jsdom", which keeps Node's (docs/npm.md#jest-and-vitest)`);
  const optionsJson = coreOptions(options);
  const onLog = options.onLog ?? (options.log && options.log !== "none" ? (line) => console.error(line) : undefined);
  const core = Core.create(optionsJson, onLog, options.wasm);
  core.catch(() => {});  // reported by `ready` and by every request

  const mock = {
    /// Resolves to the mock once its core is compiled and its collection made; rejects saying why not.
    ready: core.then(() => mock),
    plan: (input, init) => plan(core, input, init),
    [PLAN_UNDER]: (prefix, request) => plan(core, request, undefined, prefix),
    planRaw: (req) => planRaw(core, req),
    /// Answers as the native mock answers the same request (status, headers, body bytes), after the
    /// latency the options or X-Mock-Latency ask for; a dropped request rejects as fetch does (TypeError).
    async fetch(input, init) {
      const planned = await plan(core, input, init);
      if (planned.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, planned.delayMs));
      if (planned.drop) {
        planned.dropped();
        throw new TypeError("Failed to fetch (entities-images-mock dropped the request: X-Mock-Drop or dropRate)");
      }
      return planned.response();
    },
    /// "300000 generated records (seed 1)"
    async describe() {
      return (await core).describe();
    },
    /// Bytes of WebAssembly memory this mock holds.
    async memoryBytes() {
      return (await core).memoryBytes();
    },
    /// The answer a failing deployment gives for `status` (500, 502, 503, 429, or nginx's 413).
    async failure(status) {
      return (await core).failure(status);
    },
  };
  return mock;
}
