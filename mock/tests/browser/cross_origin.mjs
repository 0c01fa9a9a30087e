// A browser app on another origin than the mock (headless Chromium): with --cors naming the app's
// origin (or '*') it reads a page of the listing, the Allow header the mock exposes, and decodes the
// first record's picture; with --cors naming another origin the browser blocks the same fetch.
// Usage: node cross_origin.mjs --mock BINARY
import path from "node:path";
import { check, run, serveDirectory, startServer } from "./lib.mjs";

const mock = process.argv[process.argv.indexOf("--mock") + 1];
const here = path.dirname(new URL(import.meta.url).pathname);

await run(async (browser) => {
  const app = await serveDirectory(here);
  try {
    for (const [cors, allowed] of [[app.url, true], ["*", true], ["http://elsewhere.example", false]]) {
      const api = await startServer(mock, ["--port", "0", "--records", "500", "--cors", cors, "--quiet"]);
      const page = await browser.newPage();
      await page.goto(`${app.url}/cross_origin.html?api=${encodeURIComponent(api)}`);
      await page.waitForFunction(() => document.getElementById("out").textContent.startsWith("RESULT "),
                                 null, { timeout: 30000 });
      const got = JSON.parse((await page.textContent("#out")).slice(7));
      await page.close();
      const ok = allowed
        ? got.page?.status === 200 && got.page.results === 3 && got.page.count === 500 &&
          got.page.allow === "GET, POST, HEAD, OPTIONS" && got.image?.status === 200 &&
          ["image/png", "image/jpeg"].includes(got.image.type) && got.image.width === 192 && got.image.height === 128
        : !("page" in got) && String(got.error).includes("Failed to fetch");
      check(`--cors ${cors === app.url ? "APP_ORIGIN" : cors}`, ok, JSON.stringify(got));
    }
  } finally {
    app.close();
  }
});
