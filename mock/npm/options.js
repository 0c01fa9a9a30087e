// The mock's options: createMock()'s names and the CLI flags of `npx entities-images-mock` are rows of the
// native mock's flag table (mock/django/flags.hpp), read from the WebAssembly core when the package is
// built (core/flags.js, written by mock/wasm/flag_table.mjs): each row's name, flag, help, kind, range and
// default. Checked here by the row's kind, so the core gets clean values; a bad value is a TypeError or
// RangeError naming the option, what it takes and what came.
import FLAGS from "./core/flags.js";

const row = (name) => FLAGS.find((r) => r.name === name);

function show(value) {
  return typeof value === "string" ? `'${value}'` : String(value);
}

// A whole number from the row's low to high (its range as the native flag's; a seed up to 2^64-1 stays
// exact as a BigInt). `low`: where 0 is not a value even if the row's low is.
function whole(r, value, low = r.low) {
  const text = typeof value === "bigint" ? value.toString()
    : typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value;
  const fits = typeof text === "string" && /^\d{1,20}$/.test(text) && BigInt(text) >= BigInt(low) && BigInt(text) <= BigInt(r.high);
  if (!fits) throw new RangeError(`option ${r.name} needs ${r.what} from ${low} to ${r.high}, got ${show(value)}`);
  return BigInt(text) > BigInt(Number.MAX_SAFE_INTEGER) ? BigInt(text) : Number(text);
}

function share(r, value) {
  const p = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof p !== "number" || !Number.isFinite(p) || p < 0 || p > 1)
    throw new RangeError(`option ${r.name} needs a share from 0 to 1, got ${show(value)}`);
  return p;
}

function status(r, value) {
  const n = Number(value);
  if (!r.choices.includes(n)) throw new RangeError(`option ${r.name} is ${r.help}, got ${show(value)}`);
  return n;
}

// MS[:JITTER], a number of ms, or { ms, jitter }: [ms, jitter] for the core's two fault keys.
function latency(r, value) {
  const each = { ...r, what: `${r.what} (MS or MS:JITTER)` };
  if (typeof value === "number") return [whole(each, value), 0];
  const m = typeof value === "string" ? /^(\d+)(?::(\d+))?$/.exec(value) : null;
  if (m) return [whole(each, m[1]), whole(each, m[2] ?? "0")];
  if (value && typeof value === "object") return [whole(each, value.ms ?? 0), whole(each, value.jitter ?? 0)];
  throw new RangeError(`option ${r.name} needs MS or MS:JITTER (${r.what} up to ${r.high}), got ${show(value)}`);
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

function origins(r, value) {
  const list = Array.isArray(value) ? value : [value];
  for (const o of list)
    if (typeof o !== "string" || !isOrigin(o)) throw new RangeError(`option ${r.name} needs ${r.what}, got ${show(o)}`);
  return list;
}

function user(r, v) {
  const [name, password] = typeof v === "string" ? [v.slice(0, v.indexOf(":")), v.slice(v.indexOf(":") + 1)] : [v?.name, v?.password];
  if (typeof v === "string" && v.indexOf(":") <= 0) throw new RangeError(`option ${r.name} needs NAME:PASSWORD, got ${show(v)}`);
  if (typeof name !== "string" || typeof password !== "string" || name === "")
    throw new TypeError(`option ${r.name} needs 'NAME:PASSWORD' or { name, password }`);
  return [name, password];
}

// INSERTS:DELETES a minute, or { inserts, deletes }: [inserts, deletes], not both 0.
function churn(r, v) {
  const m = typeof v === "string" ? /^(\d+):(\d+)$/.exec(v) : null;
  const [inserts, deletes] = m ? [m[1], m[2]] : [v?.inserts, v?.deletes];
  const each = { ...r, what: "records a minute" };
  const i = whole(each, inserts ?? 0), d = whole(each, deletes ?? 0);
  if (i === 0 && d === 0) throw new RangeError(`option ${r.name} needs INSERTS:DELETES a minute, not both 0 (e.g. 30:10)`);
  return [i, d];
}

// The dataset is the npm mock's own: records or their text, not a path (the CLI reads the file). Text that cannot
// be JSON Lines or a JSON array (its first character is neither '{' nor '[') is refused here, saying what it looks
// like, instead of reaching the core's JSON parser (issue 44: a path got the parser's "syntax error at line 1").
function dataset(r, v) {
  if (Array.isArray(v)) return JSON.stringify(v);
  if (typeof v !== "string")
    throw new TypeError(`option ${r.name} needs an array of records or their JSON Lines (or JSON array) text`);
  const text = v.trimStart();
  if (text === "" || text[0] === "{" || text[0] === "[") return v;
  const head = text.length > 60 ? `${text.slice(0, 60)}…` : text;
  const path = !/[\r\n]/.test(text.trimEnd()) && (/\.(json|jsonl|ndjson|txt)$/i.test(text.trimEnd()) || /[\\/]/.test(text));
  if (path)
    throw new TypeError(`option ${r.name} takes the records' text, not a file path: '${head}' looks like a path. Read ` +
                        `the file first: createMock({ dataset: fs.readFileSync(${JSON.stringify(text.trimEnd())}, "utf8") }) ` +
                        `(npx entities-images-mock --dataset PATH reads it itself)`);
  throw new TypeError(`option ${r.name} needs an array of records, or JSON Lines (one record a line) or JSON array text, ` +
                      `which starts with '{' or '[': got text starting '${head}'`);
}

// Each row's value as the core takes it, by the row's kind.
const KINDS = {
  whole, share, status, latency, origins, user, churn,
  flag: (r, v) => {
    if (typeof v !== "boolean") throw new TypeError(`option ${r.name} needs true or false, got ${show(v)}`);
    return v;
  },
  // A text row: the collection's (dataset), or a name such as adminHost's.
  text: (r, v) => {
    if (r.name === "dataset") return dataset(r, v);
    if (typeof v !== "string" || v === "") throw new TypeError(`option ${r.name} needs ${r.what}, got ${show(v)}`);
    return v;
  },
};

// The npm mock takes a collection's text, not a file or snapshot folder as the native --dataset does.
const OWN_HELP = { dataset: "serve these records instead: an array of records, or JSON Lines / JSON array text (the CLI reads a file)" };

function helpOf(r) {
  const help = OWN_HELP[r.name] ?? (r.kind === "status" ? r.help : r.help.replace(/\s+/g, " "));
  return r.default === undefined ? help : `${help} (default ${r.default})`;
}

//  name, flag, value's form, help, check: each a row of the native mock's flag table.
export const OPTIONS = FLAGS.map((r) => [r.name, r.flag, r.type, helpOf(r), (v) => ({ [r.name]: KINDS[r.kind](r, v) })]);

// The endpoint's own path and the pictures': a baseUrl holding one names the endpoint, not the deployment.
const ROUTES = /(^|\/)(edw|media)(\/|$)/;

/// baseUrl as handlers() and createMock() take it: { origin, prefix } of an absolute http(s) URL, its path
/// (without a trailing slash) the prefix a deployment under a path answers with (FORCE_SCRIPT_NAME). A path
/// that holds the endpoint's (…/edw/api/entities-images/) is refused, naming the baseUrl meant: taken as a
/// prefix, no request would have been answered (issue 44).
export function baseUrlParts(value) {
  let url;
  try {
    url = typeof value === "string" || value instanceof URL ? new URL(String(value)) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || !/^https?:\/\//i.test(String(value)) || url.search || url.hash)
    throw new TypeError(`option baseUrl needs an absolute http(s) URL such as 'http://localhost:8000' or ` +
                        `'https://api.example.org/backend' (no query), got ${show(value)}`);
  const prefix = url.pathname.replace(/\/+$/, "");
  const route = ROUTES.exec(prefix);
  if (route) {
    const meant = url.origin + prefix.slice(0, route.index);
    throw new TypeError(`option baseUrl is where the deployment answers, not the endpoint: ${show(String(value))} holds ` +
                        `the path /${route[2]}/, which the mock answers under it; give ${show(meant)}`);
  }
  return { origin: url.origin, prefix };
}

const isWasm = (v) => ["[object WebAssembly.Module]", "[object ArrayBuffer]", "[object Promise]"].includes(
  Object.prototype.toString.call(v)) || ArrayBuffer.isView(v) || v instanceof URL || typeof v === "string";

// The options of the JavaScript fronts, beside the flag table's rows: name, check (throws). handlers() takes
// baseUrl out itself (msw.js); createMock() takes it for relative URLs and a prefix (index.js).
const FRONT_OPTIONS = [
  ["baseUrl", baseUrlParts],  // createMock(): what relative URLs resolve against, and its path prefix
  ["log", (v) => {
    if (!["none", "text", "json"].includes(v)) throw new RangeError(`option log is 'none', 'text' or 'json', got ${show(v)}`);
  }],
  ["onLog", (v) => {
    if (typeof v !== "function") throw new TypeError(`option onLog needs a function (line: string) => void, got ${show(v)}`);
  }],
  ["wasm", (v) => {
    if (!isWasm(v)) throw new TypeError("option wasm needs the core's WebAssembly: a WebAssembly.Module, its bytes " +
                                        "(import wasm from 'entities-images-mock/inline-wasm'), a URL of core.wasm, or a Promise of one");
  }],
];

/// Every option's name, for the unknown-option message.
export const OPTION_NAMES = [...OPTIONS.map((o) => o[0]), ...FRONT_OPTIONS.map((o) => o[0])];

/// uploadBytes as createMock() got it (checked by coreOptions), else its default: the front refuses a larger
/// upload before reading its body.
export function uploadLimit(options) {
  return options.uploadBytes === undefined ? Number(row("uploadBytes").default) : Number(options.uploadBytes);
}

/// createMock()'s options as the core's JSON, keyed by the rows' names (a seed beyond 2^53 kept exact).
export function coreOptions(options = {}) {
  if (options === null || typeof options !== "object" || Array.isArray(options))
    throw new TypeError("createMock() takes an object of options");
  const out = {};
  const known = new Map(OPTIONS.map((o) => [o[0], o[4]]));
  const front = new Map(FRONT_OPTIONS);
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (front.has(name)) {
      front.get(name)(value);
      continue;
    }
    const check = known.get(name);
    if (!check) throw new TypeError(`unknown option '${name}' (options: ${OPTION_NAMES.join(", ")})`);
    Object.assign(out, check(value));
  }
  if (out.user && out.churn) throw new RangeError("options user and churn do not go together (as --user and --churn)");
  if (out.dataset !== undefined && options.records !== undefined) throw new RangeError("options dataset and records do not go together");
  const [ms, jitter] = out.latency ?? [0, 0];
  const maxDelay = out.maxDelay ?? row("maxDelay").default;
  if (ms + jitter > maxDelay)
    throw new RangeError(`option latency adds up to ${ms + jitter} ms, longer than maxDelay (${maxDelay} ms)`);
  out.log = options.log ?? "none";
  return JSON.stringify(out, (key, value) => (typeof value === "bigint" ? `bigint:${value}` : value))
    .replace(/"bigint:(\d+)"/g, "$1");
}
