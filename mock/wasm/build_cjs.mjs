// Writes the package's CommonJS entries, index.cjs and msw.cjs, from its ES modules (esbuild, a devDependency
// of the repository, not of the package): what Jest's default CommonJS mode and require() load. No
// import.meta is left in them (it is this file's URL, from __filename), core.wasm is read with require("node:fs"),
// and msw.cjs uses index.cjs, so one process has one copy of the loader.
// Usage: node build_cjs.mjs STAGE_DIR REPOSITORY_ROOT
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const [stage, root] = process.argv.slice(2);
const esbuild = createRequire(`${root}/package.json`)("esbuild");
const here = fileURLToPath(new URL(".", import.meta.url));

const commonJs = {
  name: "entities-images-mock-cjs",
  setup(build) {
    build.onResolve({ filter: /^\.\/read-file\.js$/ }, () => ({ path: `${here}read_file_cjs.js` }));
    build.onResolve({ filter: /^\.\/index\.js$/ }, (args) =>
      args.importer.endsWith("msw.js") ? { path: "./index.cjs", external: true } : undefined);
  },
};

for (const entry of ["index", "msw"]) {
  await esbuild.build({
    entryPoints: [`${stage}/${entry}.js`],
    outfile: `${stage}/${entry}.cjs`,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node18",
    external: ["pako", "msw"],
    define: { "import.meta.url": "__entimg_module_url" },
    banner: { js: `// Generated from ${entry}.js by mock/wasm/build_cjs.mjs: the package's CommonJS entry.\n` +
                  `const __entimg_module_url = require("node:url").pathToFileURL(__filename).href;` },
    logLevel: "warning",
    plugins: [commonJs],
  });
}
