// The HTML report as a person sees it, in Debian's headless Chromium (driven by playwright-core from npm,
// installed by ci/setup.sh): a passing run against the mock, and a failing run against a hostile server
// whose answers carry <script> elements. Each page must render with no console error, run no script,
// show the server's markup as text, and is saved as a screenshot (a CI artifact).
// Usage: node html_report.mjs --contract BINARY --mock BINARY --out DIR
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const [contract, mock, out] = [arg("--contract"), arg("--mock"), arg("--out")];
const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../..");
const playwright = path.join(repo, "node_modules", "playwright-core");
if (!fs.existsSync(playwright)) {
  console.log(`FAIL playwright-core is not installed under ${repo}/node_modules: run ci/setup.sh (npm ci) first`);
  process.exit(1);
}
const { chromium } = createRequire(import.meta.url)(playwright);
fs.mkdirSync(out, { recursive: true });

let passes = 0, failures = 0;
function check(name, ok, detail = "") {
  if (ok) passes++; else failures++;
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${ok || !detail ? "" : ": " + detail}`);
}

// The mock on a free port; resolves to { url, stop }.
function startMock() {
  return new Promise((resolve, reject) => {
    const proc = spawn(mock, ["--port", "0", "--records", "60", "--seed", "7", "--quiet"], { stdio: ["ignore", "pipe", "inherit"] });
    let seen = "";
    proc.stdout.on("data", (chunk) => {
      seen += chunk;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(seen);
      if (match) resolve({ url: match[1], stop: () => proc.kill("SIGTERM") });
    });
    proc.on("exit", (code) => reject(new Error(`the mock exited (${code}) before it listened: ${seen}`)));
    proc.on("error", (error) => reject(new Error(`the mock did not start: ${error.message}`)));
  });
}

// A server whose every answer carries markup where the suite quotes it: a header and a JSON value.
function startHostile() {
  const script = "<script>window.pwned = 1</script>";
  const server = http.createServer((req, res) => {
    res.writeHead(200, { "Content-Type": `text/html; x=${script}`, Allow: "GET, POST, HEAD, OPTIONS", Vary: "Accept" });
    res.end(req.method === "HEAD" ? undefined :
      JSON.stringify({ count: script, next: null, previous: null, results: [{ id: `<img src=x onerror="window.pwned=2">` }] }));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () =>
    resolve({ url: `http://127.0.0.1:${server.address().port}`, stop: () => server.close() })));
}

// Runs the suite against url, writing the HTML report; the tool must exit as expected.
async function report(url, name, expectedExit) {
  const file = path.join(out, `${name}.html`);
  const run = await new Promise((resolve) => {
    const proc = spawn(contract, ["--base-url", url, "--seed", "42", "--retries", "0", "--timeout", "60", "--html", file],
                       { stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    proc.stdout.on("data", (c) => { text += c; });
    proc.stderr.on("data", (c) => { text += c; });
    proc.on("exit", (code) => resolve({ code, text }));
    // A suite that cannot start (no binary) is a failed check, not an unhandled 'error' event that ends this
    // script before its finally stops the mock (which was left running).
    proc.on("error", (error) => resolve({ code: null, text: `the suite did not start: ${error.message}` }));
  });
  check(`${name}: the suite exits ${expectedExit}`, run.code === expectedExit, `exit ${run.code}\n${run.text}`);
  return file;
}

// Opens a report as a file, as a person opening a CI artifact would; returns the page and what went wrong.
async function open(browser, file, name) {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const problems = [];
  page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") problems.push(m.text()); });
  page.on("pageerror", (e) => problems.push(String(e)));
  page.on("request", (r) => { if (!r.url().startsWith("file:")) problems.push(`a request to ${r.url()}`); });
  await page.goto(pathToFileURL(file).href);
  await page.screenshot({ path: path.join(out, `${name}.png`) });  // the first screenful: what a reader sees first
  check(`${name}: no console error, no page error, no request`, problems.length === 0, problems.join("; "));
  check(`${name}: no script element`, await page.evaluate(() => document.scripts.length) === 0);
  return page;
}

let browser;
const stops = [];
try {
  const [served, hostile] = await Promise.all([startMock(), startHostile()]);
  stops.push(served.stop, hostile.stop);
  const [passFile, failFile] = await Promise.all([report(served.url, "report-pass", 0), report(hostile.url, "report-fail", 1)]);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync"],
    timeout: 60000,
  });

  const pass = await open(browser, passFile, "report-pass");
  check("pass: the verdict is the first heading", (await pass.locator("h1").innerText()).startsWith("PASS"));
  const exercised = await pass.locator("table").last().locator("tr:not(.none)").count();
  check("pass: the coverage table lists exercised behaviours", exercised > 10, String(exercised));

  const fail = await open(browser, failFile, "report-fail");
  check("fail: the verdict is the first heading", (await fail.locator("h1").innerText()).startsWith("FAIL"));
  check("fail: the server's script did not run", await fail.evaluate(() => window.pwned) === undefined);
  const text = await fail.locator("main").innerText();
  check("fail: the server's markup is shown as text", text.includes("<script>window.pwned = 1</script>"));
  const replay = await fail.locator("article pre").first().innerText();
  check("fail: a failure has a curl command replaying it", replay.startsWith("curl -sS -i "), replay);
} catch (error) {
  check("the test ran", false, error.stack || String(error));
} finally {
  if (browser) await browser.close().catch(() => {});
  for (const stop of stops) stop();
}
console.log(`${passes} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
