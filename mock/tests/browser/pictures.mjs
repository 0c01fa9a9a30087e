// Every type of picture the mock makes, decoded by headless Chromium as an app's image grid shows them (<img>),
// in both sizes: the small placeholders and the pictures of their records' file_size (--sized-pictures), whose
// bytes are counted too. The records: fixtures/datasets/pictures.jsonl (PNG, JPEG, GIF, BMP, ICO, TIFF, WebP,
// SVG; TIFF is left to Pillow, placeholders_decode.py: Chromium shows no TIFF).
// Usage: node pictures.mjs --mock BINARY --dataset FILE
import path from "node:path";
import { check, run, serveDirectory, startServer } from "./lib.mjs";

const arg = (name) => process.argv[process.argv.indexOf(name) + 1];
const mock = arg("--mock");
const dataset = arg("--dataset");
const here = path.dirname(new URL(import.meta.url).pathname);

await run(async (browser) => {
  const app = await serveDirectory(here);
  try {
    const small = {};
    for (const sized of [false, true]) {
      const flags = ["--port", "0", "--dataset", dataset, "--cors", "*", "--quiet"];
      const api = await startServer(mock, sized ? [...flags, "--sized-pictures"] : flags);
      const page = await browser.newPage();
      await page.goto(`${app.url}/pictures.html?api=${encodeURIComponent(api)}`);
      await page.waitForFunction(() => document.getElementById("out").textContent.startsWith("RESULT "),
                                 null, { timeout: 60000 });
      const got = JSON.parse((await page.textContent("#out")).slice(7));
      await page.close();
      check(`${sized ? "sized" : "small"}: the listing's pictures`, !got.error && got.pictures.length === 27, got.error);
      for (const p of got.pictures ?? []) {
        if (p.mime_type === "image/tiff") continue;
        const mode = sized ? "sized" : "small";
        if (!sized) small[p.id] = p.bytes;
        let bytes = sized && p.file_size > small[p.id] ? p.file_size : small[p.id];
        if (p.mime_type === "image/webp" && bytes > small[p.id]) bytes -= bytes % 2;  // RIFF chunks are even
        const ok = p.width === 192 && p.height === 128 && p.bytes === bytes;
        check(`${mode} ${p.mime_type} ${p.id} (file_size ${p.file_size})`, ok, JSON.stringify(p));
      }
    }
  } finally {
    app.close();
  }
});
