// Shared by the browser tests: start and always stop servers, launch Debian's Chromium through
// playwright-core (npm, pinned in package.json), and count checks.
import { spawn } from "node:child_process";
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { chromium } = require(path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../../node_modules/playwright-core"));

const servers = [];

/** Runs a server that prints "listening on http://127.0.0.1:PORT"; resolves to that URL. */
export function startServer(command, args, timeoutMs = 30000) {
  return new Promise((resolve, reject) => {
    const proc = spawn(command, args, { detached: true, stdio: ["ignore", "pipe", "pipe"] });
    servers.push(proc);
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`server did not start: ${command} ${args.join(" ")}\n${seen}`)), timeoutMs);
    const onData = (chunk) => {
      if (seen.length < 20000) seen += chunk.toString();  // later lines are drained and dropped
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (match) { clearTimeout(timer); resolve(match[1]); }
    };
    proc.stdout.on("data", onData);
    proc.stderr.on("data", onData);
    proc.on("exit", (code) => { clearTimeout(timer); reject(new Error(`server exited (${code}): ${seen}`)); });
  });
}

/** Stops every server started here (SIGTERM to its process group, SIGKILL after 10 s). */
export async function stopServers() {
  await Promise.all(servers.splice(0).map((proc) => new Promise((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    const kill = setTimeout(() => { try { process.kill(-proc.pid, "SIGKILL"); } catch {} }, 10000);
    proc.on("exit", () => { clearTimeout(kill); resolve(); });
    try { process.kill(-proc.pid, "SIGTERM"); } catch { resolve(); }
  })));
}

const servedTypes = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8" };

/** Serves the .html and .js files of `dirs` (the first holding a name wins) on 127.0.0.1, an app on its own
 *  origin; resolves to { url, close }. */
export function serveDirectory(...dirs) {
  const server = http.createServer((req, res) => {
    const name = path.basename(new URL(req.url, "http://x").pathname);
    const file = dirs.map((dir) => path.join(dir, name)).find((candidate) => fs.existsSync(candidate));
    const type = servedTypes[path.extname(name)];
    if (!type || !file) { res.writeHead(404); return res.end(); }
    res.writeHead(200, { "Content-Type": type });
    res.end(fs.readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () =>
    resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() })));
}

/** Debian's Chromium, headless, with the flags this machine's closed network needs. */
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    timeout: 60000,
  });
}

let failures = 0, passes = 0;
/** One check: prints PASS/FAIL with what was seen. */
export function check(name, ok, detail = "") {
  if (ok) passes++; else failures++;
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${detail ? ": " + detail : ""}`);
}

/** Runs `body`, always stops servers and the browser, prints the tally and exits 0/1. */
export async function run(body) {
  let browser;
  try {
    browser = await launchChromium();
    await body(browser);
  } catch (error) {
    failures++;
    console.log(`FAIL ${error.stack || error}`);
  } finally {
    if (browser) await browser.close().catch(() => {});
    await stopServers();
  }
  console.log(`${passes} passed, ${failures} failed`);
  process.exit(failures ? 1 : 0);
}
