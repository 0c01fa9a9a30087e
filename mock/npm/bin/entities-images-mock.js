#!/usr/bin/env node
// npx entities-images-mock: the mock's WebAssembly core behind Node's http server, with the native
// mock's flags where they apply (docs/npm.md says which do not).
import { closeSync, fstatSync, openSync, constants as fsConstants, readFileSync, readSync } from "node:fs";
import { answerHeaders, createMock, OPTIONS } from "../index.js";
import { bulkLane } from "./bulk-lane.js";
import { createFront } from "./node_front.js";
// Flags of the native mock this server has no use for, with the reason shown when one is given, and the
// whole-number flags of this front (--port, --max-body, --head-timeout, ...) with their help, ranges and
// defaults: rows of the native mock's flag table (mock/django/flags.hpp, npm_absent and kNpxFront).
import { FRONT as FRONT_ROWS, NATIVE_ONLY } from "../core/flags.js";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const camel = (flag) => flag.slice(2).replace(/-([a-z])/g, (_, c) => c.toUpperCase());
const WHOLE = new Map(FRONT_ROWS.map((r) => [camel(r.flag), r]));
const shown = (r) => r.help.replace(/\s+/g, " ") + (r.default === undefined ? "" : ` (default ${r.default})`);
// The flags Node's server here reads itself (kNpxFront in mock/django/flags.hpp).
const FRONT = [
  ["host", "--host", "ADDR", "address to listen on (default 127.0.0.1)"],
  ...FRONT_ROWS.map((r) => [camel(r.flag), r.flag, r.type, shown(r)]),
  ["quiet", "--quiet", "", "no request log (default: one line a request on stderr)"],
  ["logJson", "--log-json", "", "the request log as JSON lines"],
  ["config", "--config", "FILE", "the flags as a JSON object ({\"port\": 8000, \"cors\": [\"http://localhost:3000\"]}); flags override it (a regular file of at most 1 MiB)"],
];
const ALL = [...FRONT, ...OPTIONS];

function usage() {
  const lines = ALL.map(([, flag, kind, help]) => `  ${(flag + (kind ? " " + kind : "")).padEnd(28)} ${help}`);
  return `Usage: entities-images-mock [flags]\n\nThe Entity Images Listing Service mock (django-edw on DRF), its C++ core as WebAssembly behind Node's http.\n\nFor an app's development and tests on this machine: one thread answers every request in turn (pages of more than\n1,000 records on a worker thread of their own), so under many busy clients a fresh request waits its turn (under\nwrk -c1000, 2 of 11 fresh GETs were answered within 1 s). For load tests, or to serve other machines, run the\nnative entities-images-mock (docs/npm.md, "What npx is for").\n\n${lines.join("\n")}\n  --help                       this text\n  --version                    the version\n\nNot here (the native mock's only): ${Object.keys(NATIVE_ONLY).join(", ")}.\n`;
}

const MAX_CONFIG_BYTES = 1 << 20;  // kMaxConfigBytes (mock/django/flags.hpp)

class FileRefused extends Error {}

function kindOf(stat) {
  return stat.isDirectory() ? "a directory" : stat.isFIFO() ? "a FIFO" : stat.isCharacterDevice() ? "a character device"
    : stat.isBlockDevice() ? "a block device" : stat.isSocket() ? "a socket" : "not a file";
}

// A regular file of at most maxBytes, as the native mock reads its files (common::read_bounded_file): opened
// without blocking (a FIFO with no writer), refused unless regular (/dev/zero never ends), refused above the
// limit before a byte is read, and read on only to the limit should it grow meanwhile.
function readBounded(file, maxBytes) {
  const fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw Object.assign(new FileRefused(`${file}: not a regular file (${kindOf(stat)})`), { kind: kindOf(stat) });
    const over = (size) => Object.assign(new FileRefused(`${file}: ${size} bytes, over the limit of ${maxBytes}`), { size });
    if (stat.size > maxBytes) throw over(stat.size);
    let bytes = Buffer.alloc(stat.size);
    let have = 0;
    for (;;) {
      if (have === bytes.length) bytes = Buffer.concat([bytes, Buffer.alloc(65536)]);
      const got = readSync(fd, bytes, have, bytes.length - have, null);
      if (got === 0) break;
      have += got;
      if (have > maxBytes) throw over(have);
    }
    return bytes.subarray(0, have).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

// Text from a file or a client, safe for a terminal as the native mock's common::printable makes it: C0
// controls, DEL, C1 controls and bidi controls as escapes (a dataset's field name could retitle the terminal).
function printable(text) {
  return String(text)
    .replace(/[\u0000-\u001f\u007f]/g, (c) => "\\x" + c.charCodeAt(0).toString(16).padStart(2, "0"))
    .replace(/[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
             (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

function fail(message) {
  process.stderr.write(`entities-images-mock: ${printable(message)}\nRun with --help for more information.\n`);
  process.exit(2);
}

function parse(argv) {
  const byFlag = new Map(ALL.map((o) => [o[1], o]));
  const given = {};
  for (let i = 0; i < argv.length; ++i) {
    let [flag, value] = argv[i].includes("=") ? [argv[i].slice(0, argv[i].indexOf("=")), argv[i].slice(argv[i].indexOf("=") + 1)] : [argv[i], undefined];
    if (flag === "--help" || flag === "-h") return { help: true };
    if (flag === "--version") return { version: true };
    if (NATIVE_ONLY[flag]) fail(`option ${flag} is the native mock's only: ${NATIVE_ONLY[flag]} (docs/npm.md)`);
    const option = byFlag.get(flag);
    if (!option) fail(`unknown option ${argv[i]}`);
    const [name, , kind] = option;
    if (!kind) {
      given[name] = true;
      continue;
    }
    if (value === undefined) {
      if (i + 1 >= argv.length) fail(`option ${flag} needs a value (${kind})`);
      value = argv[++i];
    }
    if (name === "cors") (given.cors ??= []).push(value);
    else given[name] = value;
  }
  if (given.config) {
    let config;
    try {
      config = JSON.parse(readBounded(given.config, MAX_CONFIG_BYTES));
    } catch (e) {
      if (e instanceof FileRefused && e.kind) fail(`option --config needs a regular file, got '${given.config}' (${e.kind})`);
      if (e instanceof FileRefused && e.size !== undefined)
        fail(`option --config needs a file of at most ${MAX_CONFIG_BYTES} bytes, got '${given.config}' (${e.size} bytes)`);
      fail(`--config ${given.config}: ${e.message}`);
    }
    for (const [key, value] of Object.entries(config)) {
      const option = byFlag.get("--" + key);
      if (!option) fail(`--config ${given.config}: unknown key "${key}"`);
      if (!(option[0] in given)) given[option[0]] = value;
    }
  }
  return given;
}

const given = parse(process.argv.slice(2));
if (given.help) {
  process.stdout.write(usage());
  process.exit(0);
}
if (given.version) {
  process.stdout.write(`entities-images-mock ${pkg.version} (WebAssembly)\n`);
  process.exit(0);
}
// A stop signal ends it at once, also while it loads (the core's parse of a dataset ends first).
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));

// A whole number of a front flag's row, checked as the native flag is: "option --max-body needs a size in
// bytes from 1 to 1099511627776, got 'x'".
function whole(name, value) {
  const r = WHOLE.get(name);
  const text = String(value ?? r.default);
  if (!/^\d{1,20}$/.test(text) || BigInt(text) < BigInt(r.low) || BigInt(text) > BigInt(r.high))
    fail(`option ${r.flag} needs ${r.what} from ${r.low} to ${r.high}, got '${value}'`);
  return Number(text);
}
const { host = "127.0.0.1", quiet, logJson, config, ...rest } = given;
const limits = {};
for (const name of WHOLE.keys()) limits[name] = whole(name, rest[name]);
const options = Object.fromEntries(Object.entries(rest).filter(([name]) => !WHOLE.has(name)));
void config;
// As the native mock: --admin or --user on an address other machines reach gets one line of warning.
if ((options.admin || options.user !== undefined) && !/^(127\.|localhost$|::1$|\[::1\]$)/.test(host)) {
  process.stderr.write(`entities-images-mock: warning: --host ${host} with ${options.admin ? "--admin: any machine that reaches it can read the request journal, reset the mock and change its faults" : "--user: the password crosses the network in clear (HTTP Basic without TLS)"}; --host 127.0.0.1 keeps it to this machine\n`);
}
if (options.dataset !== undefined) {
  try {
    options.dataset = readBounded(options.dataset, limits.maxFileBytes);
  } catch (e) {
    const why = e instanceof FileRefused ? e.message + (e.size !== undefined ? " (--max-file-bytes)" : "")
      : `${given.dataset}: cannot be opened (${e.code ?? e.message})`;
    process.stderr.write(`entities-images-mock: error: ${printable(why)}\n`);
    process.exit(1);
  }
}
options.log = quiet ? "none" : logJson ? "json" : "text";
options.onLog = (line) => process.stderr.write(line + "\n");

let mock;
try {
  mock = createMock(options);
  await mock.ready;
} catch (e) {
  if (e instanceof RangeError || e instanceof TypeError) fail(e.message.replace(/^option (\w+)/, (_, n) => `option --${n.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase())}`));
  process.stderr.write(`entities-images-mock: error: ${printable(e.message)}\n`);
  process.exit(1);
}

const bulk = bulkLane(options, options.onLog);

const server = createFront(limits, (req, res, body) => answer(req, res, body).catch((e) => {
  process.stderr.write(`entities-images-mock: error answering ${printable(`${req.method} ${req.url}: ${e.message}`)}\n`);
  res.destroy();
}), () => mock.failure(413).then((refused) => ({ ...refused, headers: [...refused.headers] })));
function send(res, method, answer, slowBps) {
  // Node writes its own Date, and header text as latin-1, as the core's bytes are.
  const headers = answerHeaders(answer).filter(([name]) => name !== "Date").flat();
  res.writeHead(answer.status, answer.reason, headers);
  if (method === "HEAD" || answer.body.length === 0) return res.end();
  const body = Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.length);
  if (!slowBps) return res.end(body);
  const step = Math.max(1, Math.floor(slowBps / 10));
  let at = 0;
  const tick = () => {
    res.write(body.subarray(at, at + step));
    at += step;
    if (at < body.length) setTimeout(tick, 100);
    else res.end();
  };
  tick();
}

async function answer(req, res, body) {
  const address = server.address();
  const authority = `${address.family === "IPv6" ? `[${address.address}]` : address.address}:${address.port}`;
  const headers = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i], req.rawHeaders[i + 1]]);
  if (bulk?.wants(req.method, req.url, headers))
    return send(res, req.method, await bulk.answer({ method: req.method, target: req.url, authority, headers, body }), 0);
  const planned = await mock.planRaw({ method: req.method, target: req.url, authority, headers, body });
  if (planned.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, planned.delayMs));
  if (planned.drop) {
    planned.dropped();
    return res.destroy();
  }
  send(res, req.method, planned.answer(), planned.slowBodyBps);
}


server.on("error", (e) => {
  process.stderr.write(`entities-images-mock: error: cannot listen on ${host}:${limits.port}: ${e.message}\n`);
  process.exit(1);
});
server.listen(limits.port, host, async () => {
  const a = server.address();
  const url = `http://${a.family === "IPv6" ? `[${a.address}]` : a.address}:${a.port}`;
  process.stdout.write(`listening on ${url}\nserving ${await mock.describe()} at ${url}/edw/api/entities-images/\n`);
});
