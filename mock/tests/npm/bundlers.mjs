// A small app (bundle/) that imports the package's default entry, built by Vite and by webpack 5 as a frontend
// team builds it, each build served on 127.0.0.1 and opened in headless Chromium: the builds print no warning,
// core.wasm is a file of its own in the output (the JavaScript stays small), and the page answers from it. And
// the same app under Vite's dev server (the README's Vite snippet runs there).
// Usage: node bundlers.mjs --app APP_DIR (install_package.sh's, with the package installed)
import fs from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { check, run } from "../browser/lib.mjs";

const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const app = path.resolve(arg("--app"));
const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(here, "../../..");
const tools = createRequire(path.join(root, "package.json"));
const work = path.join(app, "bundle");  // inside the app, so that its node_modules hold the package
const MAX_JS = 200 * 1024;               // the inlined core made a chunk of 1.28 MB

fs.rmSync(work, { recursive: true, force: true });
fs.cpSync(path.join(here, "bundle"), work, { recursive: true });

const vite = () => import(tools.resolve("vite"));

// Vite's logger, its warnings kept in `warnings`.
async function viteLogger(warnings) {
  const logger = (await vite()).createLogger("warn");
  logger.warn = (message) => warnings.push(message);
  logger.warnOnce = (message) => warnings.push(message);
  return logger;
}

async function viteBuild(dist) {
  const warnings = [];
  const customLogger = await viteLogger(warnings);
  await (await vite()).build({ root: work, logLevel: "warn", customLogger, build: { outDir: dist, emptyOutDir: true } });
  return warnings;
}

function webpackBuild(dist) {
  const webpack = tools("webpack");
  const config = tools(path.join(work, "webpack.config.cjs"))(dist);
  return new Promise((resolve, reject) => webpack(config, (error, stats) => {
    if (error || stats.hasErrors()) return reject(error ?? new Error(stats.toString("errors-only")));
    fs.copyFileSync(path.join(work, "index.html"), path.join(dist, "index.html"));
    resolve(stats.toJson({ all: false, warnings: true }).warnings.map((w) => w.message));
  }));
}

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".wasm": "application/wasm" };
function serve(dist) {
  const server = http.createServer((req, res) => {
    const name = new URL(req.url, "http://x").pathname;
    const file = path.join(dist, name === "/" ? "index.html" : name);
    if (!file.startsWith(dist) || !fs.existsSync(file) || !fs.statSync(file).isFile()) return res.writeHead(404).end();
    res.writeHead(200, { "Content-Type": TYPES[path.extname(file)] ?? "application/octet-stream" }).end(fs.readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () =>
    resolve({ url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() })));
}

const files = (dir) => fs.readdirSync(dir, { recursive: true }).map((f) => path.join(dir, f)).filter((f) => fs.statSync(f).isFile());

async function openInChromium(browser, name, url) {
  const page = await browser.newPage();
  const problems = [];
  page.on("pageerror", (error) => problems.push(String(error)));
  await page.goto(url);
  await page.waitForFunction(() => document.getElementById("out").textContent.startsWith("RESULT "), null, { timeout: 60000 });
  const got = JSON.parse((await page.textContent("#out")).slice(7));
  await page.close();
  check(`${name}: the page answered a page of 50 records and the first one's JPEG`,
        !got.error && got.count === 50 && got.ids?.length === 3 && got.type === "image/jpeg" && got.mimeType === got.type && got.jpeg,
        JSON.stringify(got));
  check(`${name}: the page fetched core.wasm as a file`, got.wasm?.length === 1, JSON.stringify(got.wasm));
  check(`${name}: no page error`, problems.length === 0, problems.join(" | "));
}

async function viteDevServer(browser) {
  const warnings = [];
  const customLogger = await viteLogger(warnings);
  const server = await (await vite()).createServer({ root: work, customLogger, server: { host: "127.0.0.1", port: 0 } });
  await server.listen();
  try {
    await openInChromium(browser, "vite dev server", server.resolvedUrls.local[0]);
    check("vite dev server: no warning", warnings.length === 0, warnings.join(" | "));
  } finally {
    await server.close();
  }
}

await run(async (browser) => {
  for (const [name, bundle] of [["vite", viteBuild], ["webpack", webpackBuild]]) {
    const dist = path.join(app, `bundle-${name}`);  // outside the app's root, which Vite's dev server scans
    const started = performance.now();
    const warnings = await bundle(dist);
    const built = files(dist);
    const js = built.filter((f) => f.endsWith(".js")).map((f) => fs.statSync(f).size);
    const wasm = built.filter((f) => f.endsWith(".wasm")).map((f) => fs.statSync(f).size);
    console.log(`${name}: built in ${Math.round(performance.now() - started)} ms: JavaScript ${js.join(" + ")} bytes, WebAssembly ${wasm.join(" + ")} bytes`);
    check(`${name}: no build warning`, warnings.length === 0, warnings.join(" | "));
    check(`${name}: core.wasm is one file of its own`, wasm.length === 1, String(wasm));
    check(`${name}: the JavaScript is at most ${MAX_JS} bytes`, Math.max(...js) <= MAX_JS, String(js));
    const site = await serve(dist);
    try {
      await openInChromium(browser, name, site.url);
    } finally {
      site.close();
    }
  }
  await viteDevServer(browser);
});
