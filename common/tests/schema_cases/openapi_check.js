#!/usr/bin/env node
// Validates schema/openapi.yaml against the OpenAPI 3.1 meta-schema (swagger-parser), resolves its $refs to
// the JSON Schema files, checks every route and method of the entity-images family, the parameters as DRF
// reads them and the error representations, and validates every inline example against
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
  // Every route of the entity-images family, each with every method DRF answers (docs/schema.md).
  const METHODS = ['delete', 'get', 'head', 'options', 'patch', 'post', 'put', 'trace'];
  const ROUTES = ['/edw/api/', '/edw/api/.{suffix}', '/edw/api/entities-images/', '/edw/api/entities-images.{suffix}',
    '/edw/api/entities-images/{pk}/', '/edw/api/entities-images/{pk}.{suffix}', '/edw/api/entities/{entity_pk}/images/',
    '/edw/api/entities/{entity_pk}/images/{pk}/', '/edw/api', '/edw/api/entities-images', '/edw/api/entities-images/{pk}',
    '/edw/api/entities/{entity_pk}/images'];
  let operations = 0;
  for (const route of ROUTES) {
    const methods = Object.keys(api.paths[route] || {}).filter((k) => METHODS.includes(k)).sort();
    operations += methods.length;
    if (methods.join(',') !== METHODS.join(',')) failures.push(`${route}: operations are ${methods.join(',') || 'none'}`);
  }
  const item = api.paths['/edw/api/entities-images/'];
  // limit and offset take any text; the fallbacks are data the suite can read (x-drf-int).
  const fallbacks = { limit: { minimum: 1, fallback: 12 }, offset: { minimum: 0, fallback: 0 } };
  for (const [name, want] of Object.entries(fallbacks)) {
    const param = item.get.parameters.find((p) => p.name === name);
    const x = param && param['x-drf-int'];
    if (!x || x.minimum !== want.minimum || x.fallback !== want.fallback || x.parse !== 'python-int')
      failures.push(`${name}: x-drf-int is ${JSON.stringify(x)}, expected ${JSON.stringify(want)} with parse python-int`);
    if (!param || JSON.stringify(param.schema).includes('integer'))
      failures.push(`${name}: its schema must take any text, as DRF reads it`);
  }
  for (const status of ['400', '403', '404'])
    if (!item.get.responses[status].content['text/html']) failures.push(`GET ${status}: no text/html (the browsable page)`);
  if (!item.options.responses['403']) failures.push('OPTIONS: no 403 (bad credentials)');
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
  console.log(`openapi: ${ROUTES.length} routes, ${operations} operations, ${count} examples checked, ${failures.length} failures`);
  return failures.length === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (err) => {
  console.error(`FAIL ${doc}: ${err.message}`);
  process.exit(1);
});
