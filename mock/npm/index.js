// entities-images-mock: the Entity Images Listing Service mock, the native mock's own C++ core compiled to
// WebAssembly, answering standard Fetch Requests. docs/npm.md.
import { Core } from "./core.js";
import { incomplete, missingMessage, web } from "./environment.js";
import { baseUrlParts, coreOptions, uploadLimit } from "./options.js";
import { withPrefix } from "./prefix.js";
import { formDataBody, isFormData, unreadableUpload } from "./upload.js";

export { OPTIONS } from "./options.js";

const NO_BODY = new Set([204, 205, 304]);
/// handlers()' way to plan a request under baseUrl's path prefix.
export const PLAN_UNDER = Symbol("entities-images-mock plan under a prefix");

/// What every front adds to the core's answer: Content-Type, Content-Length (a HEAD's is its GET's; none
/// where the core frames it without, as gunicorn sends Django's bad-Host 400), and Date as a deployment sends
/// it. Framing is the front's own. `headers`: the array to add them to (a copy of the answer's by default).
export function answerHeaders(answer, headers = [...answer.headers]) {
  if (answer.contentType) headers.push(["Content-Type", answer.contentType]);
  if (!NO_BODY.has(answer.status) && answer.status >= 200 && !answer.withoutContentLength)
    headers.push(["Content-Length", String(answer.body.length)]);
  headers.push(["Date", httpDate()]);
  return headers;
}

// The Date header's text, made once a second (a second is its resolution): 0.5 µs a page otherwise.
let dateSecond = -1;
let dateText = "";
function httpDate() {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

/// A body that arrives at `bps` bytes a second (X-Mock-Slow-Body, slowBody), in tenths of a second.
function trickle(body, bps) {
  const step = Math.max(1, Math.floor(bps / 10));
  let at = 0;
  return new web.ReadableStream({
    async pull(controller) {
      if (at > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      controller.enqueue(body.slice(at, at + step));
      at += step;
      if (at >= body.length) controller.close();
    },
  });
}

const EMPTY = new Uint8Array(0);

// The core's request for a URL fetched as it is (a string or a URL, no init): what a Request of it carries (GET,
// no body, no headers but the Host a browser sends), read without making the Request, which cost 4 µs of a
// page's 40. Undefined where a Request must decide: a relative URL (the environment's base resolves it, or
// Request refuses it), or one with credentials (Request refuses it).
function urlRequest(input) {
  if (typeof input !== "string" && !(input instanceof URL)) return undefined;
  let url;
  try {
    url = new URL(input);
  } catch {
    return undefined;
  }
  if (url.username || url.password) return undefined;
  const host = url.host;
  return { method: "GET", target: url.pathname + url.search, authority: host, headers: [["host", host]], body: EMPTY };
}

// The core's request for a Fetch Request, its body read (`body`: the bytes, EMPTY for none). `prefix`: a path
// handlers() answer under, not the core's (prefix.js).
function coreRequest(request, prefix = "", body = EMPTY) {
  const url = new URL(request.url);
  const headers = [];
  let host = false, length = false;
  for (const [name, value] of request.headers) {
    host ||= name === "host";
    length ||= name === "content-length";
    headers.push([name, value]);
  }
  if (!host) headers.unshift(["host", url.host]);  // as a browser sends it: the URL's host and port
  if (body.length > 0 && !length) headers.push(["content-length", String(body.length)]);
  return { method: request.method, target: url.pathname.slice(prefix.length) + url.search, authority: url.host, headers, body };
}

// The core's request for a fetch input without waiting (a URL, or a Request with no body), else undefined.
function readyRequest(input, init, prefix) {
  if (init !== undefined) return undefined;
  if (input instanceof web.Request) return input.body === null ? coreRequest(input, prefix) : undefined;
  return prefix ? undefined : urlRequest(input);
}

// A 400 of the front's own, for a request the core must not see (an upload whose file arrived as text).
function refusal(detail) {
  return frontAnswer(400, "Bad Request", detail);
}

// An answer of the front's own, `{"detail": "entities-images-mock: …"}`, as a plan.
function frontAnswer(status, reason, detail) {
  const body = new web.TextEncoder().encode(JSON.stringify({ detail: `entities-images-mock: ${detail}` }));
  const answer = () => ({ status, reason, contentType: "application/json", headers: [], body });
  return { delayMs: 0, drop: false, slowBodyBps: 0, dropped() {}, answer, response: () => fetchResponse(answer(), "POST", 0) };
}

// The plan of a request in the core's terms ({ method, target, authority, headers, body }), once the core `c`
// runs: wait delayMs (the front's way), then answer() or response(), or, when drop, dropped(). `prefix`: the
// path handlers() answer under, put back into response()'s links (prefix.js).
// `serve`: answer it in the same call into the core when nothing holds it back and there is no log or journal
// to time (its body then read in place: response() must follow before anything else calls the core).
function planNow(c, req, prefix = "", serve = false) {
  const started = c.timed ? performance.now() : 0;  // the log's and the journal's milliseconds
  if (req.body.length > 0) {
    const contentType = req.headers.find(([name]) => name.toLowerCase() === "content-type")?.[1];
    const unreadable = unreadableUpload(contentType, req.body);
    if (unreadable) return refusal(unreadable);
  }
  return new Planned(c, req, prefix, c.admit(req, serve && !c.timed), started);
}

// A class, not an object of closures: five functions less to make a request.
class Planned {
  #c;
  #req;
  #prefix;
  #admitted;
  #started;

  constructor(c, req, prefix, admitted, started) {
    this.delayMs = admitted.response ? 0 : admitted.delayMs;
    this.drop = !admitted.response && admitted.drop;
    this.slowBodyBps = admitted.slowBodyBps;
    this.#c = c;
    this.#req = req;
    this.#prefix = prefix;
    this.#admitted = admitted;
    this.#started = started;
  }

  dropped() {
    this.#c.finished(this.#admitted.ticket, 0, 0, this.#milliseconds());
  }

  /// { status, reason, contentType, headers, body }; `sent` body bytes go to the journal and log.
  answer(sent) {
    const served = this.#admitted.served;
    if (served) return { ...served, body: served.body.slice() };  // answered and finished by the core already
    const answer = this.#admitted.response ?? this.#c.respond(this.#admitted.ticket);
    this.#finish(answer, sent);
    return answer;
  }

  /// The Fetch Response. Its body goes to the Response constructor where the core wrote it (the constructor
  /// copies it: a copy less, 1 µs a page), unless it outlives this call: a slow body, or a prefix put back.
  response() {
    if (this.#admitted.served) return fetchResponse(this.#admitted.served, this.#req.method, 0);
    const inPlace = !this.#prefix && !(this.slowBodyBps > 0);
    const answer = this.#admitted.response ?? this.#c.respond(this.#admitted.ticket, !inPlace);
    try {
      return fetchResponse(this.#prefix ? withPrefix(answer, this.#prefix) : answer, this.#req.method, this.slowBodyBps);
    } finally {
      this.#finish(answer);  // after: the log may run the app's code, which may call the core again
    }
  }

  #finish(answer, sent) {
    const noBody = this.#req.method === "HEAD" || NO_BODY.has(answer.status);
    this.#c.finished(this.#admitted.ticket, answer.status, sent ?? (noBody ? 0 : answer.body.length), this.#milliseconds());
  }

  #milliseconds() {
    return this.#c.timed ? performance.now() - this.#started : 0;
  }
}

// The plan of a Fetch input: a Request, or what makes one with init. `state`: the core's promise, and the
// core itself once it runs (no promise to wait for then); createMock()'s baseUrl ({ origin, prefix }) and
// upload limit. `prefix`: handlers()' path prefix, else baseUrl's for a URL under it.
async function plan(state, input, init, prefix = "") {
  const c = state.core ?? (await state.corePromise);  // and the environment's classes with it (environment.js)
  input = absolute(input, state.base);
  prefix ||= underPrefix(input, state.base);
  const ready = readyRequest(input, init, prefix);
  if (ready) return planNow(c, ready, prefix);
  const tooBig = oversizedUpload(input, init, state.uploadBytes);
  if (tooBig) return tooBig;  // before a byte of the body is read
  let request;
  try {
    request = await fetchRequest(input, init);
  } catch (e) {
    if (!e.unreadableUpload) throw e;
    return refusal(e.message);  // a file of the FormData whose bytes cannot be read
  }
  const body = request.body ? new Uint8Array(await request.arrayBuffer()) : EMPTY;
  return planNow(c, coreRequest(request, prefix, body), prefix);
}

// A relative URL (text) made absolute as fetch() would where the app runs: against createMock()'s baseUrl, else
// the environment's location (jsdom's http://localhost/, a page's); with neither, a TypeError naming baseUrl.
function absolute(input, base) {
  if (typeof input !== "string") return input;
  try {
    return new URL(input).href;
  } catch {
    // relative, or not a URL at all: resolved below, or refused by Request as fetch() refuses it
  }
  const against = base?.origin ?? globalThis.location?.href;
  try {
    return new URL(input, against).href;
  } catch {
    throw new TypeError(`entities-images-mock: cannot resolve the relative URL '${input}': ` +
                        (against === undefined ? "this environment has no location to resolve it against"
                                               : `it does not resolve against ${against}`) +
                        `; give createMock() a baseUrl (createMock({ baseUrl: "http://localhost:8000" })), or fetch an absolute URL`);
  }
}

// baseUrl's path prefix where the input's URL is under it (createMock({ baseUrl: "https://example.org/backend" })).
function underPrefix(input, base) {
  if (!base?.prefix) return "";
  const url = input instanceof web.Request ? input.url : String(input);
  return url.startsWith(`${base.origin}${base.prefix}/`) ? base.prefix : "";
}

const tagOf = (value) => Object.prototype.toString.call(value);
const isBlob = (value) => /^\[object (Blob|File)\]$/.test(tagOf(value));

// The size of a request's body where it is known without reading it: a Blob's size, a FormData's files and
// fields, bytes' or text's length, else its Content-Length. Undefined where only reading it would tell.
function declaredSize(input, init) {
  const body = init?.body;
  if (body !== undefined && body !== null) {
    if (isBlob(body)) return body.size;
    if (isFormData(body)) {
      let n = 0;
      for (const [, value] of body.entries()) n += isBlob(value) ? value.size : String(value).length;
      return n;  // NaN where a file does not say its size
    }
    if (tagOf(body) === "[object ArrayBuffer]" || ArrayBuffer.isView(body)) return body.byteLength;
    if (typeof body === "string") return body.length;
  }
  const headers = init?.headers !== undefined ? new web.Headers(init.headers)
    : input instanceof web.Request ? input.headers : undefined;
  const length = headers?.get("content-length");
  return length && /^\d{1,16}$/.test(length) ? Number(length) : undefined;
}

// An upload whose body alone is more than uploadBytes can never be kept: answered 507 at once, as the core would
// answer it once the body was in, without reading or copying the body (issue 44: a 300 MB Blob took 173 s to
// its 507 and held 1.2 GiB). Undefined for anything else.
function oversizedUpload(input, init, limit) {
  const method = (init?.method ?? (input instanceof web.Request ? input.method : "GET")).toUpperCase();
  if (method !== "POST") return undefined;
  const size = declaredSize(input, init);
  if (!Number.isFinite(size) || size <= limit) return undefined;  // unknown, or within: read it
  return frontAnswer(507, "Insufficient Storage",
    `the mock keeps at most ${limit} bytes of uploads in memory (uploadBytes; --upload-bytes natively), and this ` +
    `upload's body is ${size} bytes: it cannot fit, and was refused before it was read`);
}

// A FormData body is written out here (upload.js), so that each file's own bytes are sent whatever Blob it is.
async function fetchRequest(input, init) {
  if (isFormData(init?.body)) {
    const { body, contentType } = await formDataBody(init.body);
    const headers = new web.Headers(init.headers);
    headers.set("content-type", contentType);
    return new web.Request(input, { ...init, body, headers });
  }
  return input instanceof web.Request && init === undefined ? input : new web.Request(input, init);
}

function fetchResponse(answer, method, bps) {
  const noBody = method === "HEAD" || NO_BODY.has(answer.status);
  const body = noBody ? null : bps > 0 && answer.body.length > 0 ? trickle(answer.body, bps) : answer.body;
  return new web.Response(body, { status: answer.status, statusText: answer.reason, headers: answerHeaders(answer, answer.headers) });
}

/// Creates a mock. Options are the CLI's (records, seed, dataset, user, cors, latency, failRate, failStatus,
/// dropRate, slowBody, churn, gzip, admin, ...); a bad one throws here. `ready` resolves once the core runs.
export function createMock(options = {}) {
  // Outside Node nothing stands in for a missing class (environment.js): said at once.
  if (incomplete() && !(typeof process !== "undefined" && process.versions?.node))
    throw new Error(missingMessage(["TextEncoder", "TextDecoder", "Request", "Response", "Headers", "ReadableStream"]
      .filter((name) => typeof globalThis[name] === "undefined")));
  const optionsJson = coreOptions(options);
  const onLog = options.onLog ?? (options.log && options.log !== "none" ? (line) => console.error(line) : undefined);
  const core = Core.create(optionsJson, onLog, options.wasm).then((c) => {
    c.timed = (options.log !== undefined && options.log !== "none") || options.admin === true;  // a log or a journal
    return c;
  });
  core.catch(() => {});  // reported by `ready` and by every request
  const base = options.baseUrl === undefined ? undefined : baseUrlParts(options.baseUrl);
  const state = { corePromise: core, core: undefined, base, uploadBytes: uploadLimit(options) };
  core.then((c) => (state.core = c), () => {});
  const direct = !base?.prefix;  // no prefix to look for: a URL may be planned without a promise

  const mock = {
    /// Resolves to the mock once its core is compiled and its collection made; rejects saying why not.
    ready: core.then(() => mock),
    plan: (input, init) => plan(state, input, init),
    [PLAN_UNDER]: (prefix, request) => plan(state, request, undefined, prefix),
    planRaw: async (req) => planNow(state.core ?? (await core), req),
    /// Answers as the native mock answers the same request (status, headers, body bytes), after the
    /// latency the options or X-Mock-Latency ask for; a dropped request rejects as fetch does (TypeError).
    async fetch(input, init) {
      // Without a promise to wait for, the plan is made, and its answer read, in this call: the core may serve it at once.
      const ready = direct && state.core && readyRequest(input, init, "");
      const planned = ready ? planNow(state.core, ready, "", true) : await plan(state, input, init);
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
