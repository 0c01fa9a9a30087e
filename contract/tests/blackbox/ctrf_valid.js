#!/usr/bin/env node
// Validates the CTRF reports the approval test kept (contract.reports_approved --keep DIR) against the
// schema the npm package ctrf ships, with ajv-cli (draft-07, strict, ajv-formats), and checks that each
// summary counts its tests. Exit 77 (ctest: skipped) when ctrf or ajv-cli is not installed: run
// ci/setup.sh (npm ci) to install them.
// Usage: node ctrf_valid.js REPORT_DIR
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const repo = path.resolve(__dirname, '..', '..', '..');
const schema = path.join(repo, 'node_modules', 'ctrf', 'src', 'ctrf-schema-0.0.json');
const ajvCli = path.join(repo, 'node_modules', 'ajv-cli', 'dist', 'index.js');
for (const needed of [schema, ajvCli]) {
  if (!fs.existsSync(needed)) {
    console.log(`SKIP ${path.relative(repo, needed)} is not installed: run ci/setup.sh (npm ci) first`);
    process.exit(77);
  }
}

const dir = process.argv[2];
const reports = ['pass', 'fail'].map((name) => path.join(dir, `ctrf-${name}.json`));
let passed = 0, failed = 0;
const check = (name, ok, detail) => {
  ok ? passed++ : failed++;
  console.log(`${ok ? 'PASS' : 'FAIL'} ${name}${ok ? '' : ': ' + detail}`);
};

const ajv = spawnSync(process.execPath, [ajvCli, 'validate', '--spec=draft7', '--strict=true', '-c', 'ajv-formats',
                                         '--all-errors', '--errors=line', '-s', schema,
                                         ...reports.flatMap((r) => ['-d', r])],
                      { cwd: repo, encoding: 'utf8' });
for (const report of reports) {
  const verdict = `${report} valid`;
  check(`${path.basename(report)} conforms to ctrf's schema`, ajv.stdout.split('\n').includes(verdict),
        ajv.stdout + ajv.stderr);
  const doc = JSON.parse(fs.readFileSync(report, 'utf8'));
  const { summary, tests } = doc.results;
  const count = (status) => tests.filter((t) => t.status === status).length;
  check(`${path.basename(report)} summary counts its tests`,
        summary.tests === tests.length && summary.passed === count('passed') && summary.failed === count('failed') &&
        summary.skipped === count('skipped') && summary.stop >= summary.start,
        JSON.stringify(summary));
}
check('the failing run has a failed test', JSON.parse(fs.readFileSync(reports[1], 'utf8')).results.summary.failed > 0,
      'no failed test');
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
