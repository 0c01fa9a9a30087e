// A small app bundled by Vite and by webpack (bundlers.mjs): the mock's default entry, its core.wasm an asset
// file of the bundle, a page of the API and the first record's picture (a JPEG) answered in the page.
import { createMock } from "entities-images-mock";

const out = document.getElementById("out");
(async () => {
  try {
    const mock = createMock({ records: 50 });
    const api = "http://localhost:8000/edw/api/entities-images/";
    const page = await (await mock.fetch(`${api}?limit=3`)).json();
    const picture = await mock.fetch(page.results[0].image);
    const bytes = new Uint8Array(await picture.arrayBuffer());
    const wasm = performance.getEntriesByType("resource").map((e) => e.name).filter((n) => n.endsWith(".wasm"));
    out.textContent = "RESULT " + JSON.stringify({
      count: page.count, ids: page.results.map((r) => r.id), type: picture.headers.get("content-type"),
      mimeType: page.results[0].mime_type, jpeg: bytes[0] === 0xff && bytes[1] === 0xd8, wasm,
    });
  } catch (error) {
    out.textContent = "RESULT " + JSON.stringify({ error: String(error?.stack ?? error) });
  }
})();
