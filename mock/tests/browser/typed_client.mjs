// The example TypeScript client (examples/typescript/client.ts, compiled by tsc into the build folder) in
// headless Chromium, on another origin than the mock (--cors): it walks a 40-record collection 12 a page by
// following `next`, collects every record in the mock's order, and refuses to pass its page bound.
// Usage: node typed_client.mjs --mock BINARY --client-dir DIR_HOLDING_client.js
import fs from "node:fs";
import path from "node:path";
import { check, run, serveDirectory, startServer } from "./lib.mjs";

const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const mock = arg("--mock");
const clientDir = path.resolve(arg("--client-dir"));
const here = path.dirname(new URL(import.meta.url).pathname);
const LIST = "/edw/api/entities-images/";

await run(async (browser) => {
  if (!fs.existsSync(path.join(clientDir, "client.js")))
    throw new Error(`no client.js in ${clientDir}: the test mock.typed_client_build compiles it`);
  const app = await serveDirectory(here, clientDir);
  try {
    const api = await startServer(mock, ["--port", "0", "--records", "40", "--seed", "3", "--cors", app.url, "--quiet"]);
    const all = await (await fetch(`${api}${LIST}?limit=40`)).json();
    const expected = all.results.map((record) => record.id);

    const page = await browser.newPage();
    const problems = [];
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`${message.text()} (${message.location().url})`);
    });
    page.on("pageerror", (error) => problems.push(String(error)));
    const first = `${api}${LIST}?limit=12`;
    await page.goto(`${app.url}/typed_client.html?first=${encodeURIComponent(first)}&max-pages=10`);
    await page.waitForFunction(() => document.getElementById("out").textContent.startsWith("RESULT "),
                               null, { timeout: 30000 });
    const got = JSON.parse((await page.textContent("#out")).slice(7));
    await page.close();

    const walked = got.walk ?? {};
    check("the walk ends at next: null after 4 pages", walked.pages === 4 && walked.count === 40,
          JSON.stringify(got.walkError ?? { pages: walked.pages, count: walked.count }));
    check("it collected every record in the mock's order",
          expected.length === 40 && JSON.stringify(walked.ids) === JSON.stringify(expected),
          `${JSON.stringify(walked.ids)} vs ${JSON.stringify(expected)}`);
    check("a walk stops at its page bound", String(got.bounded).includes("stopped after 2 pages"), got.bounded);
    check("no console error", problems.length === 0, problems.join(" | "));
  } finally {
    app.close();
  }
});
