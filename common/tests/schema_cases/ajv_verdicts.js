#!/usr/bin/env node
// Runs ajv-cli (draft-07, strict mode, ajv-formats) on every case under this folder and requires the
// verdict of the folder the case sits in (valid/ or invalid/). For invalid cases it also requires that
// every error ajv reports (with --all-errors) sits at the JSON pointer listed in expected-pointers.json,
// so each case breaks exactly the rule it is named after. schema_test.cpp checks valijson on the same files:
// two independent validators agreeing with the labels shows the schemas are plain, portable draft-07.
// Usage: node ajv_verdicts.js [repo_root]
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const repo = path.resolve(process.argv[2] || path.join(__dirname, '..', '..', '..'));
const casesDir = __dirname;
const ajvCli = path.join(repo, 'node_modules', 'ajv-cli', 'dist', 'index.js');
const suites = [
  { name: 'record', schema: 'schema/image-record.schema.json', refs: [] },
  { name: 'page', schema: 'schema/page.schema.json', refs: ['schema/image-record.schema.json'] },
];

if (!fs.existsSync(ajvCli)) {
  console.error(`ajv-cli is not installed under ${repo}/node_modules: run ci/setup.sh (npm ci) first`);
  process.exit(1);
}

// Runs ajv-cli on one folder; returns Map(file name -> {valid, errors}) and ajv's own complaints.
function run_ajv(suite, verdict) {
  const dir = path.join(casesDir, suite.name, verdict);
  const args = [ajvCli, 'validate', '--spec=draft7', '--strict=true', '--allow-union-types', '--all-errors',
                '-c', 'ajv-formats', '--errors=line', '-s', suite.schema];
  for (const ref of suite.refs) args.push('-r', ref);
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    args.push('-d', path.join(dir, file));
  }
  const run = spawnSync(process.execPath, args, { cwd: repo, encoding: 'utf8' });
  const verdicts = new Map();
  const complaints = [];
  for (const line of run.stdout.split('\n')) {
    const m = line.match(/^(.*\.json) valid$/);
    if (m) verdicts.set(path.basename(m[1]), { valid: true, errors: [] });
    else if (line.trim()) complaints.push(line);
  }
  const errLines = run.stderr.split('\n');
  for (let i = 0; i < errLines.length; i++) {
    const m = errLines[i].match(/^(.*\.json) invalid$/);
    if (m) {
      let errors = [];
      try {
        errors = JSON.parse(errLines[i + 1]);
        i++;
      } catch {
        complaints.push(`unparsable error list after ${m[1]}`);
      }
      verdicts.set(path.basename(m[1]), { valid: false, errors });
    } else if (errLines[i].trim()) {
      complaints.push(errLines[i]);
    }
  }
  if (run.status !== 0 && run.status !== 1) complaints.push(`ajv-cli exited with status ${run.status}`);
  return { dir, verdicts, complaints };
}

const failures = [];
let checked = 0;
for (const suite of suites) {
  const pointers = JSON.parse(fs.readFileSync(path.join(casesDir, suite.name, 'expected-pointers.json'), 'utf8'));
  for (const verdict of ['valid', 'invalid']) {
    const { dir, verdicts, complaints } = run_ajv(suite, verdict);
    for (const c of complaints) failures.push(`${suite.name}/${verdict}: ajv said: ${c}`);
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
      const where = `${suite.name}/${verdict}/${file}`;
      const got = verdicts.get(file);
      checked++;
      if (!got) {
        failures.push(`${where}: no verdict from ajv`);
      } else if (got.valid !== (verdict === 'valid')) {
        const why = got.errors.map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; ');
        failures.push(`${where}: ajv says ${got.valid ? 'valid' : 'invalid'}${why ? ` (${why})` : ''}`);
      } else if (verdict === 'invalid') {
        const expected = pointers[file];
        if (expected === undefined) {
          failures.push(`${where}: no entry in ${suite.name}/expected-pointers.json`);
          continue;
        }
        const stray = got.errors.filter((e) => e.instancePath !== expected);
        if (stray.length > 0) {
          const list = stray.map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; ');
          failures.push(`${where}: errors away from the expected pointer "${expected}": ${list}`);
        }
      }
    }
  }
}

for (const f of failures) console.error(`FAIL ${f}`);
console.log(`ajv-cli: ${checked} cases checked, ${failures.length} failures`);
process.exit(failures.length === 0 ? 0 : 1);
