// headless Chromium (Debian's, through playwright-core) runs a page that registers MSW's service worker
// with entities-images-mock/msw's handlers() for http://localhost:8000, walks the pages by `next` and shows
// pictures from `image` URLs; a screenshot is kept beside the test's output (--screenshot FILE).
// Usage: node browser_msw.mjs --app APP_DIR (install_package.sh's) --mock NATIVE_BINARY --screenshot FILE
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { check, run, startServer } from "../browser/lib.mjs";

const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const app = path.resolve(arg("--app"));
const here = path.dirname(new URL(import.meta.url).pathname);
const modules = path.join(app, "node_modules");
const files = {
  "/": [path.join(here, "browser_msw.html"), "text/html; charset=utf-8"],
  "/msw-iife.js": [path.join(modules, "msw/lib/iife/index.js"), "text/javascript"],
  "/mockServiceWorker.js": [path.join(modules, "msw/lib/mockServiceWorker.js"), "text/javascript"],
  "/pako.esm.mjs": [path.join(modules, "pako/dist/pako.esm.mjs"), "text/javascript"],
};
const shim = "const m = globalThis.MockServiceWorker;\nexport const { http, HttpResponse, delay } = m;\n";

function serveApp() {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    let file = files[url.pathname];
    if (url.pathname.startsWith("/pkg/")) file = [path.join(modules, "entities-images-mock", url.pathname.slice(5)), "text/javascript"];
    if (url.pathname === "/msw-shim.js") return res.writeHead(200, { "Content-Type": "text/javascript" }).end(shim);
    if (!file || !fs.existsSync(file[0]) || file[0].includes("..")) return res.writeHead(404).end();
    res.writeHead(200, { "Content-Type": file[1] }).end(fs.readFileSync(file[0]));
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () =>
    resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() })));
}

await run(async (browser) => {
  const page_ = await serveApp();
  try {
    // The same 40 records from the native mock: the order the walk in the browser must find.
    const native = await startServer(arg("--mock"), ["--port", "0", "--records", "40", "--seed", "3", "--quiet"]);
    const expected = (await (await fetch(`${native}/edw/api/entities-images/?limit=40`)).json()).results.map((r) => r.id);
    const page = await browser.newPage();
    const problems = [];
    page.on("pageerror", (error) => problems.push(String(error)));
    page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
    await page.goto(`${page_.url}/?api=${encodeURIComponent("http://localhost:8000")}`);
    await page.waitForFunction(() => document.getElementById("out").textContent.startsWith("RESULT "), null, { timeout: 60000 });
    const got = JSON.parse((await page.textContent("#out")).slice(7));
    const shot = path.resolve(arg("--screenshot"));
    fs.mkdirSync(path.dirname(shot), { recursive: true });
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot: ${shot}`);
    await page.close();
    check("the page ran", !got.error, got.error ?? "");
    check("MSW's service worker controls the page", got.controlled === true);
    check("the walk followed next through 4 pages", got.pages === 4, String(got.pages));
    check("every record in the native mock's order", JSON.stringify(got.ids) === JSON.stringify(expected),
          `${JSON.stringify(got.ids)} vs ${JSON.stringify(expected)}`);
    check("pictures shown from image URLs (192x128)", got.loaded?.length === 4 && got.loaded.every((p) => p.width === 192 && p.height === 128),
          JSON.stringify(got.loaded));
    check("no page error", problems.length === 0, problems.join(" | "));
  } finally {
    page_.close();
  }
});
