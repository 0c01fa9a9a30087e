#!/usr/bin/env node
// ajv's verdicts for entimg-schema-agreement: reads FILE, one document a line ("R <json>" for an image
// record, "P <json>" for a page), and prints 1 (valid) or 0 (invalid) a line, in order. ajv is set up as
// docs/schema.md runs it: draft-07, strict, union types allowed, ajv-formats.
// Usage: node ajv_agreement.js FILE
'use strict';
const fs = require('node:fs');
const path = require('node:path');

let Ajv, addFormats;
try {
  Ajv = require('ajv').default;
  addFormats = require('ajv-formats').default;
} catch (e) {
  console.error(`ajv_agreement.js: ajv is not installed (npm ci at the repository root): ${e.message}`);
  process.exit(2);
}
const schemaDir = process.env.ENTIMG_SCHEMA_DIR || path.join(__dirname, '..', '..', '..', 'schema');
const schemaOf = (name) => JSON.parse(fs.readFileSync(path.join(schemaDir, name), 'utf8'));
const ajv = new Ajv({ strict: true, allowUnionTypes: true });
addFormats(ajv);
const recordSchema = schemaOf('image-record.schema.json');
ajv.addSchema(recordSchema);
const validators = { R: ajv.getSchema(recordSchema.$id), P: ajv.compile(schemaOf('page.schema.json')) };

if (process.argv.length !== 3) {
  console.error('usage: node ajv_agreement.js FILE');
  process.exit(2);
}
const out = [];
for (const line of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
  if (line === '') continue;
  const validate = validators[line[0]];
  if (!validate || line[1] !== ' ') {
    console.error(`ajv_agreement.js: a line that is not "R <json>" or "P <json>": ${line.slice(0, 80)}`);
    process.exit(2);
  }
  out.push(validate(JSON.parse(line.slice(2))) ? '1' : '0');
}
process.stdout.write(out.join('\n') + '\n');
