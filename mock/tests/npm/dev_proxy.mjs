// The mock behind a dev server's proxy (mock.npm.dev_proxy; docs/npm.md#behind-a-dev-servers-proxy): links and
// `image` URLs follow the Host the mock is asked with, as DRF's do. Vite's shorthand ("/edw": target) rewrites
// Host to the mock's (changeOrigin), so `next` and `image` lead to the mock's own port, another origin than the
// app's; the settings docs/npm.md gives keep them on the dev server's origin: changeOrigin false, or
// X-Forwarded-Host set to the Host the browser sent. Each setting is a Vite dev server proxying to a native mock;
// a page and a picture are fetched through it, as the app in the browser fetches them.
// Usage: node dev_proxy.mjs --mock PATH --root REPOSITORY
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { startServer } from "../../../common/tests/js/start_server.mjs";

const { values: args } = parseArgs({ options: { mock: { type: "string" }, root: { type: "string" } } });
const { createServer } = await import(createRequire(path.join(args.root, "package.json")).resolve("vite"));

const SETTINGS = {
  // Vite's shorthand: { target, changeOrigin: true }: the mock sees its own Host.
  "shorthand": (target) => ({ "/edw": target, "/media": target }),
  "changeOrigin false": (target) => ({ "/edw": { target, changeOrigin: false }, "/media": { target, changeOrigin: false } }),
  "X-Forwarded-Host": (target) => {
    const forwarded = {
      target, changeOrigin: true,
      configure: (proxy) => proxy.on("proxyReq", (req, incoming) => req.setHeader("X-Forwarded-Host", incoming.headers.host)),
    };
    return { "/edw": forwarded, "/media": forwarded };
  },
};

const work = mkdtempSync(path.join(tmpdir(), "dev-proxy-"));
const mock = await startServer(args.mock, ["--records", "30", "--quiet"]);
let checked = 0;
try {
  for (const [name, proxy] of Object.entries(SETTINGS)) {
    const server = await createServer({ root: work, logLevel: "silent", server: { host: "127.0.0.1", port: 0, proxy: proxy(mock.url) } });
    await server.listen();
    try {
      const app = server.resolvedUrls.local[0].replace(/\/$/, "");
      const response = await fetch(`${app}/edw/api/entities-images/?limit=2`);
      assert.equal(response.status, 200, `${name}: the page through the proxy`);
      const page = await response.json();
      const origins = [new URL(page.next).origin, new URL(page.results[0].image).origin];
      if (name === "shorthand") {
        assert.deepEqual(origins, [mock.url, mock.url], "the shorthand: links lead to the mock's own port");
      } else {
        assert.deepEqual(origins, [app, app], `${name}: links and images stay on the dev server's origin`);
        const picture = await fetch(page.results[0].image);
        assert.equal(picture.status, 200, `${name}: the picture through the proxy`);
        assert.match(picture.headers.get("content-type"), /^image\//);
        const second = await (await fetch(page.next)).json();
        assert.equal(second.results.length, 2, `${name}: the next page through the proxy`);
      }
      console.log(`PASS  ${name}: next ${page.next}`);
      checked += 1;
    } finally {
      await server.close();
    }
  }
} finally {
  mock.stop();
  rmSync(work, { recursive: true, force: true });
}
console.log(`${checked} passed, 0 failed`);
