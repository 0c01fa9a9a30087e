#!/usr/bin/env node
// Records/s of ajv (draft-07, strict, ajv-formats, as docs/schema.md runs it) on one thread, over a JSON
// array of image records, record by record and as pages of 1000: the reference for
// entimg-validate-bench, which measures our validator the same way on the same file (bench/validate.sh).
// Usage: node bench/validate_ajv.js FILE [--seconds S]
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');

const PAGE_SIZE = 1000;
const RECORDS_PER_CLOCK_READ = 64; // as in validate_bench.cpp
const COLLECTION = 'http://127.0.0.1/edw/api/entities-images/';

function usage(problem) {
  console.error(`validate_ajv.js: ${problem}\nusage: node bench/validate_ajv.js FILE [--seconds S]`);
  process.exit(2);
}

function parse_args(argv) {
  const args = { file: null, seconds: 3 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--seconds' && i + 1 < argv.length) {
      args.seconds = Number(argv[++i]);
      if (!(args.seconds > 0 && args.seconds <= 600)) usage(`--seconds wants a number in (0, 600], got '${argv[i]}'`);
    } else if (args.file === null && !argv[i].startsWith('-')) {
      args.file = argv[i];
    } else {
      usage(`unexpected argument '${argv[i]}'`);
    }
  }
  if (args.file === null) usage('FILE is missing');
  return args;
}

// The two validators, compiled once. require('ajv') is ajv 8's draft-07 class; the options are those of
// `ajv validate --spec=draft7 --strict=true --allow-union-types -c ajv-formats`.
function compile_schemas() {
  let Ajv, addFormats;
  try {
    Ajv = require('ajv').default;
    addFormats = require('ajv-formats').default;
  } catch (e) {
    console.error(`validate_ajv.js: ajv is not installed (run npm ci at the repository root): ${e.message}`);
    process.exit(2);
  }
  const dir = process.env.ENTIMG_SCHEMA_DIR || path.join(__dirname, '..', 'schema');
  const load = (name) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
  const ajv = new Ajv({ strict: true, allowUnionTypes: true });
  addFormats(ajv);
  const record = load('image-record.schema.json');
  ajv.addSchema(record); // under its $id, which page.schema.json's relative $ref resolves to
  return { record: ajv.getSchema(record.$id), page: ajv.compile(load('page.schema.json')) };
}

// DRF's LimitOffsetPagination links: the offset parameter is dropped when it would be 0.
function page_link(offset) {
  return `${COLLECTION}?limit=${PAGE_SIZE}${offset > 0 ? `&offset=${offset}` : ''}`;
}

// Same pages as build_pages() in validate_bench.cpp.
function build_pages(records) {
  const pages = [];
  for (let offset = 0; offset < records.length; offset += PAGE_SIZE) {
    const end = Math.min(offset + PAGE_SIZE, records.length);
    pages.push({
      count: records.length,
      next: end < records.length ? page_link(end) : null,
      previous: offset > 0 ? page_link(offset - PAGE_SIZE) : null,
      results: records.slice(offset, end),
    });
  }
  return pages;
}

// Validates docs round robin for about `seconds`, after one untimed pass that warms the JIT and gives
// the verdict; recordsIn[i] is how many records docs[i] holds.
function measure(validate, docs, recordsIn, seconds) {
  let allValid = true;
  for (const doc of docs) allValid = validate(doc) && allValid;

  const budgetMs = seconds * 1000;
  const start = performance.now();
  let now = start;
  let records = 0;
  let sinceClock = 0;
  let i = 0;
  do {
    allValid = validate(docs[i]) && allValid;
    records += recordsIn[i];
    sinceClock += recordsIn[i];
    i = i + 1 === docs.length ? 0 : i + 1;
    if (sinceClock >= RECORDS_PER_CLOCK_READ) {
      sinceClock = 0;
      now = performance.now();
    }
  } while (now - start < budgetMs);
  return { recordsPerS: (records * 1000) / (now - start), allValid };
}

function main() {
  const args = parse_args(process.argv.slice(2));
  const validators = compile_schemas();
  let records;
  try {
    records = JSON.parse(fs.readFileSync(args.file, 'utf8'));
  } catch (e) {
    usage(`${args.file}: ${e.message}`);
  }
  if (!Array.isArray(records) || records.length === 0) usage(`${args.file}: expected a non-empty JSON array of records`);
  const yesNo = (b) => (b ? 'yes' : 'no');

  const perRecord = measure(validators.record, records, records.map(() => 1), args.seconds);
  console.log(`ajv: ${Math.round(perRecord.recordsPerS)} records/s (${records.length} records, ` +
              `all valid: ${yesNo(perRecord.allValid)})`);

  const pages = build_pages(records);
  const perPage = measure(validators.page, pages, pages.map((p) => p.results.length), args.seconds);
  console.log(`ajv via pages: ${Math.round(perPage.recordsPerS)} records/s (${pages.length} pages of up to ` +
              `${PAGE_SIZE} records, all valid: ${yesNo(perPage.allValid)})`);
}

main();
