// webpack 5's defaults for a browser app; core.wasm goes out as an asset through new URL(..., import.meta.url).
const path = require("node:path");

module.exports = (dist) => ({
  mode: "production",
  context: __dirname,
  entry: "./main.js",
  output: { path: dist, filename: "main.js", clean: true },
  performance: { hints: false },  // the size limits are this test's own (bundlers.mjs)
  resolve: { modules: [path.join(__dirname, "node_modules"), "node_modules"] },
});
