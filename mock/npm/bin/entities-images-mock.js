#!/usr/bin/env node
// npx entities-images-mock: the mock's WebAssembly core behind Node's http server, with the native
// mock's flags where they apply (docs/npm.md says which do not).
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { answerHeaders, createMock, OPTIONS } from "../index.js";
import { bulkLane } from "./bulk-lane.js";
// Flags of the native mock this server has no use for, with the reason shown when one is given: rows of the
// native mock's flag table (mock/django/flags.hpp, npm_absent).
import { NATIVE_ONLY } from "../core/flags.js";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
// The flags Node's server here reads itself (kNpxFront in mock/django/flags.hpp).
const FRONT = [
  ["host", "--host", "ADDR", "address to listen on (default 127.0.0.1)"],
  ["port", "--port", "N", "port (default 8000; 0 picks a free one)"],
  ["maxBody", "--max-body", "BYTES", "a larger request body gets nginx's 413 (default 10 MiB)"],
  ["quiet", "--quiet", "", "no request log (default: one line a request on stderr)"],
  ["logJson", "--log-json", "", "the request log as JSON lines"],
  ["config", "--config", "FILE", "the flags as a JSON object ({\"port\": 8000, \"cors\": [\"http://localhost:3000\"]}); flags override it"],
];
const ALL = [...FRONT, ...OPTIONS];

function usage() {
  const lines = ALL.map(([, flag, kind, help]) => `  ${(flag + (kind ? " " + kind : "")).padEnd(28)} ${help}`);
  return `Usage: entities-images-mock [flags]\n\nThe Entity Images Listing Service mock (django-edw on DRF), its C++ core as WebAssembly behind Node's http.\n\n${lines.join("\n")}\n  --help                       this text\n  --version                    the version\n\nNot here (the native mock's only): ${Object.keys(NATIVE_ONLY).join(", ")}.\n`;
}

function fail(message) {
  process.stderr.write(`entities-images-mock: ${message}\nRun with --help for more information.\n`);
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
      config = JSON.parse(readFileSync(given.config, "utf8"));
    } catch (e) {
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
const { host = "127.0.0.1", port = "8000", maxBody = String(10 * 1024 * 1024), quiet, logJson, config, ...options } = given;
if (!/^\d+$/.test(String(port)) || Number(port) > 65535) fail(`option --port needs a port number from 0 to 65535, got '${port}'`);
if (!/^\d+$/.test(String(maxBody))) fail(`option --max-body needs a whole number of bytes, got '${maxBody}'`);
void config;
if (options.dataset !== undefined) {
  try {
    options.dataset = readFileSync(options.dataset, "utf8");
  } catch (e) {
    process.stderr.write(`entities-images-mock: error: ${given.dataset}: cannot open the dataset file (${e.code ?? e.message})\n`);
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
  process.stderr.write(`entities-images-mock: error: ${e.message}\n`);
  process.exit(1);
}

const bulk = bulkLane(options, options.onLog);

const server = createServer({ keepAliveTimeout: 75_000 }, (req, res) => {
  const chunks = [];
  let size = 0, over = false;
  req.on("data", (chunk) => {
    size += chunk.length;
    if (size > Number(maxBody)) over = true;
    else chunks.push(chunk);
  });
  req.on("end", () => answer(req, res, over ? null : Buffer.concat(chunks)).catch((e) => {
    process.stderr.write(`entities-images-mock: error answering ${req.method} ${req.url}: ${e.message}\n`);
    res.destroy();
  }));
});

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
  if (body === null) {
    const refused = await mock.failure(413);
    refused.headers.push(["Connection", "close"]);
    return send(res, req.method, refused, 0);
  }
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
  process.stderr.write(`entities-images-mock: error: cannot listen on ${host}:${port}: ${e.message}\n`);
  process.exit(1);
});
server.listen(Number(port), host, async () => {
  const a = server.address();
  const url = `http://${a.family === "IPv6" ? `[${a.address}]` : a.address}:${a.port}`;
  process.stdout.write(`listening on ${url}\nserving ${await mock.describe()} at ${url}/edw/api/entities-images/\n`);
});
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => {
    server.close();
    server.closeAllConnections?.();
    process.exit(0);
  });
