// The mock's options, declared once: createMock()'s names, the CLI flags of `npx entities-images-mock`
// (the native mock's, where they apply), their checks and help. Checked here, so the WebAssembly core
// gets clean values; a bad value is a TypeError or RangeError saying what was expected and what came.

const MAX_RECORDS = 1e12;
const MAX_DELAY = 3_600_000;

function whole(name, value, min, max) {
  const n = typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new RangeError(`option ${name} needs a whole number from ${min} to ${max}, got ${show(value)}`);
  return n;
}

function share(name, value) {
  const p = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof p !== "number" || !Number.isFinite(p) || p < 0 || p > 1)
    throw new RangeError(`option ${name} needs a share from 0 to 1, got ${show(value)}`);
  return p;
}

function show(value) {
  return typeof value === "string" ? `'${value}'` : String(value);
}

function latency(name, value) {
  if (typeof value === "number") return { latencyMs: whole(name, value, 0, MAX_DELAY), jitterMs: 0 };
  const m = typeof value === "string" ? /^(\d+)(?::(\d+))?$/.exec(value) : null;
  if (m) return { latencyMs: whole(name, m[1], 0, MAX_DELAY), jitterMs: whole(name, m[2] ?? "0", 0, MAX_DELAY) };
  if (value && typeof value === "object")
    return { latencyMs: whole(name, value.ms ?? 0, 0, MAX_DELAY), jitterMs: whole(name, value.jitter ?? 0, 0, MAX_DELAY) };
  throw new RangeError(`option ${name} needs MS or MS:JITTER (milliseconds up to ${MAX_DELAY}), got ${show(value)}`);
}

function isOrigin(text) {
  if (text === "*") return true;
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === text;
  } catch {
    return false;
  }
}

//  name         flag              kind    help
export const OPTIONS = [
  ["records", "--records", "N", "size of the generated collection (default 300000)",
    (v) => ({ records: whole("records", v, 0, MAX_RECORDS) })],
  ["seed", "--seed", "S", "seed of the generated collection and of the faults (default 1)",
    (v) => {
      const text = typeof v === "bigint" ? v.toString() : typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? String(v) : v;
      if (typeof text !== "string" || !/^\d{1,20}$/.test(text) || BigInt(text) >= 2n ** 64n)
        throw new RangeError(`option seed needs a whole number from 0 to 2^64-1, got ${show(v)}`);
      return { seed: BigInt(text) };
    }],
  ["dataset", "--dataset", "PATH", "serve these records instead: an array of records, or JSON Lines / JSON array text (the CLI reads a file)",
    (v) => {
      if (Array.isArray(v)) return { dataset: JSON.stringify(v) };
      if (typeof v === "string") return { dataset: v };
      throw new TypeError("option dataset needs an array of records or their JSON Lines (or JSON array) text");
    }],
  ["user", "--user", "NAME:PASSWORD", "a user HTTP Basic authenticates, as DRF does: uploads (multipart POST -> 201)",
    (v) => {
      const [name, password] = typeof v === "string" ? [v.slice(0, v.indexOf(":")), v.slice(v.indexOf(":") + 1)] : [v?.name, v?.password];
      if (typeof v === "string" && v.indexOf(":") <= 0) throw new RangeError(`option user needs NAME:PASSWORD, got ${show(v)}`);
      if (typeof name !== "string" || typeof password !== "string" || name === "")
        throw new TypeError("option user needs 'NAME:PASSWORD' or { name, password }");
      return { user: [name, password] };
    }],
  ["cors", "--cors", "ORIGIN", "allow this origin (repeatable) or '*' any, as django-cors-headers would",
    (v) => {
      const list = Array.isArray(v) ? v : [v];
      for (const o of list)
        if (typeof o !== "string" || !isOrigin(o))
          throw new RangeError(`option cors needs '*' or an origin such as http://localhost:3000 (no path), got ${show(o)}`);
      return { cors: list };
    }],
  ["latency", "--latency", "MS[:JITTER]", "every answer waits MS, plus 0..JITTER (seeded)", (v) => latency("latency", v)],
  ["maxDelay", "--max-delay", "MS", "the longest delay X-Mock-Latency may ask for (default 60000)",
    (v) => ({ maxDelayMs: whole("maxDelay", v, 0, MAX_DELAY) })],
  ["failRate", "--fail-rate", "P", "answer this share of requests with failStatus instead", (v) => ({ failRate: share("failRate", v) })],
  ["failStatus", "--fail-status", "N", "500, 502, 503 or 429 (default 503)",
    (v) => {
      const n = Number(v);
      if (![500, 502, 503, 429].includes(n)) throw new RangeError(`option failStatus is 500, 502, 503 or 429, got ${show(v)}`);
      return { failStatus: n };
    }],
  ["dropRate", "--drop-rate", "P", "drop this share of requests without an answer (a network error)", (v) => ({ dropRate: share("dropRate", v) })],
  ["slowBody", "--slow-body", "BYTES_PER_S", "send bodies at this rate", (v) => ({ slowBodyBps: whole("slowBody", v, 1, 1e9) })],
  ["churn", "--churn", "INSERTS:DELETES", "a live collection: records inserted and deleted a minute (seeded; X-Mock-Time: MS replays a moment)",
    (v) => {
      const m = typeof v === "string" ? /^(\d+):(\d+)$/.exec(v) : null;
      const [inserts, deletes] = m ? [m[1], m[2]] : [v?.inserts, v?.deletes];
      const i = whole("churn", inserts ?? 0, 0, 100000), d = whole("churn", deletes ?? 0, 0, 100000);
      if (i === 0 && d === 0) throw new RangeError("option churn needs INSERTS:DELETES a minute, not both 0 (e.g. 30:10)");
      return { churnInserts: i, churnDeletes: d };
    }],
  ["gzip", "--gzip", "", "gzip answers for clients that accept it, as Django's GZipMiddleware", (v) => ({ gzip: Boolean(v) })],
  ["admin", "--admin", "", "the admin routes under /__mock/: request journal, reset, faults", (v) => ({ admin: Boolean(v) })],
  ["journalSize", "--journal-size", "N", "requests the journal keeps (default 10000)", (v) => ({ journalSize: whole("journalSize", v, 1, 1e7) })],
  ["journalBytes", "--journal-bytes", "BYTES", "and at most this many bytes of them (default 33554432; an entry counts as its JSON)",
    (v) => ({ journalBytes: whole("journalBytes", v, 65536, 2 ** 30) })],
];

/// createMock()'s options as the core's JSON (a seed beyond 2^53 kept exact).
export function coreOptions(options = {}) {
  if (options === null || typeof options !== "object") throw new TypeError("createMock() takes an object of options");
  const out = {};
  const known = new Map(OPTIONS.map((o) => [o[0], o[4]]));
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined || name === "baseUrl" || name === "onLog" || name === "log") continue;
    const check = known.get(name);
    if (!check) throw new TypeError(`unknown option '${name}' (options: ${OPTIONS.map((o) => o[0]).join(", ")})`);
    Object.assign(out, check(value));
  }
  if (out.user && (out.churnInserts || out.churnDeletes)) throw new RangeError("options user and churn do not go together (as --user and --churn)");
  if (out.dataset !== undefined && options.records !== undefined) throw new RangeError("options dataset and records do not go together");
  if ((out.latencyMs ?? 0) + (out.jitterMs ?? 0) > (out.maxDelayMs ?? 60000))
    throw new RangeError(`option latency adds up to ${(out.latencyMs ?? 0) + (out.jitterMs ?? 0)} ms, longer than maxDelay (${out.maxDelayMs ?? 60000} ms)`);
  if (options.log !== undefined && !["none", "text", "json"].includes(options.log))
    throw new RangeError(`option log is 'none', 'text' or 'json', got ${show(options.log)}`);
  out.log = options.log ?? "none";
  const seed = out.seed ?? 1n;
  delete out.seed;
  const body = JSON.stringify(out);
  return body === "{}" ? `{"seed":${seed}}` : body.replace(/^\{/, `{"seed":${seed},`);
}
