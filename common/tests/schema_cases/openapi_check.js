#!/usr/bin/env node
// Validates schema/openapi.yaml against the OpenAPI 3.1 meta-schema (swagger-parser), resolves its $refs to
// the JSON Schema files, checks the operations the spec lists, and validates every inline example against
// the schema of its media type (JSON Schema 2020-12, the OpenAPI 3.1 dialect).
// Usage: node openapi_check.js [repo_root]
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const repo = path.resolve(process.argv[2] || path.join(__dirname, '..', '..', '..'));
const doc = path.join(repo, 'schema', 'openapi.yaml');
const modules = path.join(repo, 'node_modules');
if (!fs.existsSync(path.join(modules, '@apidevtools', 'swagger-parser'))) {
  console.error(`swagger-parser is not installed under ${modules}: run ci/setup.sh (npm ci) first`);
  process.exit(1);
}
const SwaggerParser = require(path.join(modules, '@apidevtools', 'swagger-parser'));
const Ajv2020 = require(path.join(modules, 'ajv', 'dist', '2020')).default;

// Yields [where, schema, example] for every example under a media type object.
function* examples(node, where) {
  if (node === null || typeof node !== 'object') return;
  if (node.schema && (node.example !== undefined || node.examples)) {
    if (node.example !== undefined) yield [`${where}/example`, node.schema, node.example];
    for (const [name, ex] of Object.entries(node.examples || {})) {
      yield [`${where}/examples/${name}`, node.schema, ex.value];
    }
  }
  for (const [key, child] of Object.entries(node)) {
    if (key !== 'schema') yield* examples(child, `${where}/${key}`);
  }
}

async function main() {
  const failures = [];
  const api = await SwaggerParser.validate(doc);
  const item = api.paths['/edw/api/entities-images/'];
  const methods = Object.keys(item).filter((k) => ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(k));
  if (methods.sort().join(',') !== 'get,head,options,post') failures.push(`operations are ${methods.join(',')}`);
  const page = item.get.responses['200'].content['application/json'].schema;
  if (!page.properties || !page.properties.results.items.properties.file) {
    failures.push('GET 200 schema did not resolve to page.schema.json with its image records');
  }
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
  let count = 0;
  for (const [where, schema, example] of examples(api, '#')) {
    count++;
    const validate = ajv.compile(schema);
    if (!validate(example)) failures.push(`${where}: ${ajv.errorsText(validate.errors)}`);
  }
  for (const f of failures) console.error(`FAIL ${f}`);
  console.log(`openapi: ${methods.length} operations, ${count} examples checked, ${failures.length} failures`);
  return failures.length === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (err) => {
  console.error(`FAIL ${doc}: ${err.message}`);
  process.exit(1);
});
