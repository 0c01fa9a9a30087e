// Writes the package's CommonJS entries, index.cjs and msw.cjs, from its ES modules (esbuild, a devDependency
// of the repository, not of the package): what Jest's default CommonJS mode and require() load; and their types,
// index.d.cts, msw.d.cts and entities-images.d.cts, which TypeScript under `module: node16` reads for a
// require() (one index.d.ts for both made it see an ES module from CommonJS code: TS1479, issue 44). No
// import.meta is left in them (it is this file's URL, from __filename), core.wasm is read with require("node:fs"),
// and msw.cjs uses index.cjs, so one process has one copy of the loader.
// Usage: node build_cjs.mjs STAGE_DIR REPOSITORY_ROOT
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const [stage, root] = process.argv.slice(2);
const esbuild = createRequire(`${root}/package.json`)("esbuild");
const here = fileURLToPath(new URL(".", import.meta.url));

const commonJs = {
  name: "entities-images-mock-cjs",
  setup(build) {
    build.onResolve({ filter: /^\.\/read-file\.js$/ }, () => ({ path: `${here}read_file_cjs.js` }));
    build.onResolve({ filter: /^\.\/node-global\.js$/ }, () => ({ path: `${here}node_global_cjs.js` }));
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

// The CommonJS declarations: the same text, each relative import naming the CommonJS file beside it.
for (const types of ["index", "msw", "entities-images"]) {
  const text = readFileSync(`${stage}/${types}.d.ts`, "utf8");
  const cjs = text.replace(/from "\.\/(index|entities-images)\.js"/g, 'from "./$1.cjs"');
  writeFileSync(`${stage}/${types}.d.cts`, `// Generated from ${types}.d.ts by mock/wasm/build_cjs.mjs: the types of a require().\n${cjs}`);
}
