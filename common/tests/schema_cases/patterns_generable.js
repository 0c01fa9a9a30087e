#!/usr/bin/env node
// Every `pattern` of schema/*.schema.json and schema/openapi.yaml is one regex-driven generators (Specmatic's,
// on dk.brics.automaton; Schemathesis' hypothesis; Prism's mock) can produce values from: no back-reference,
// no look-around, no lazy quantifier, `^` and `$` only at the ends, and no unbounded repetition (*, +, {n,}) of a
// group that itself holds one (Specmatic 2.55 ran for minutes and gigabytes on each of these). docs/schema.md.
// Usage: node patterns_generable.js [repo_root]    node patterns_generable.js --self-test
'use strict';
const fs = require('node:fs');
const path = require('node:path');

// What is wrong with a pattern for a generator, as a list of messages (empty: nothing).
function problems(pattern) {
  const found = [];
  const groups = [{ unbounded: false }];  // the stack of open groups, the whole pattern at the bottom
  let lastGroup = null;                    // a group that just closed, for the quantifier that may follow
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    let atomGroup = null;
    if (c === '\\') {
      const next = pattern[i + 1] || '';
      if (/[1-9]/.test(next) || next === 'k') found.push(`back-reference \\${next} at ${i}`);
      i++;
    } else if (c === '[') {
      for (i++; i < pattern.length && pattern[i] !== ']'; i++) if (pattern[i] === '\\') i++;
    } else if (c === '(') {
      const head = pattern.slice(i, i + 4);
      if (/^\(\?<?[=!]/.test(head)) found.push(`look-around ${head} at ${i}`);
      groups.push({ unbounded: false });
    } else if (c === ')') {
      atomGroup = groups.pop();
      if (groups.length === 0) return [...found, `unbalanced ) at ${i}`];
    } else if (c === '^' && i !== 0) {
      found.push(`^ at ${i}, not at the start`);
    } else if (c === '$' && i !== pattern.length - 1) {
      found.push(`$ at ${i}, not at the end`);
    } else if ('*+?{'.includes(c)) {
      let end = i;
      let unbounded = c === '*' || c === '+';
      if (c === '{') {
        end = pattern.indexOf('}', i);
        if (end < 0) return [...found, `unclosed { at ${i}`];
        unbounded = /^\{\d+,\}$/.test(pattern.slice(i, end + 1));
      }
      if (pattern[end + 1] === '?') found.push(`lazy quantifier at ${i}`);
      if (unbounded && lastGroup && lastGroup.unbounded)
        found.push(`unbounded repetition at ${i} of a group holding one (bound it: {0,N})`);
      if (unbounded) groups[groups.length - 1].unbounded = true;
      if (lastGroup && lastGroup.unbounded) groups[groups.length - 1].unbounded = true;
      lastGroup = null;
      i = end;
      continue;
    }
    if (lastGroup && lastGroup.unbounded) groups[groups.length - 1].unbounded = true;
    lastGroup = atomGroup;
  }
  if (groups.length !== 1) found.push('unclosed (');
  return found;
}

// Yields [where, pattern] for every `pattern` keyword under node.
function* patterns(node, where) {
  if (node === null || typeof node !== 'object') return;
  if (typeof node.pattern === 'string') yield [`${where}/pattern`, node.pattern];
  for (const [key, child] of Object.entries(node)) yield* patterns(child, `${where}/${key}`);
}

function selfTest() {
  const refused = [
    String.raw`^filer_public/([0-9a-f]{2})/([0-9a-f]{2})/\1\2[0-9a-f]{4}-[0-9a-f]{4}/[^/]+$`,
    String.raw`^https?://h(?:/(?:[a-z]|%[0-9A-F]{2})*)*?/media/x$`,
    String.raw`^https?://h(?:/[a-z]*)*/media/x$`,
    String.raw`^https?://h(?:/[a-z]+)+/media/x$`,
    String.raw`^(?:[A-Za-z-]+, ){1,}Accept$`,
    String.raw`(^|[ ,])Accept($|[ ,])`,
    String.raw`^a(?=b)`, String.raw`^a(?<!b)c$`, String.raw`^a+?$`, String.raw`^a{2,3}?$`, String.raw`^(?<n>a)\k<n>$`,
  ];
  const accepted = [
    String.raw`^https?://h(?:/(?:[a-z]|%[0-9A-F]{2})*){0,8}/media/(?:[a-z]|%[0-9A-F]{2})+$`,
    String.raw`^filer_public/[0-9a-f]{2}/[0-9a-f]{8}/[^/]+$`, String.raw`^(?:image/[a-z0-9.+-]+)?$`,
    String.raw`^[\^$*]+\(x\)$`, String.raw`^(?:[A-Za-z0-9-]+, ){0,4}Accept(?:, [A-Za-z0-9-]+){0,4}$`,
  ];
  const wrong = [...refused.filter((p) => problems(p).length === 0).map((p) => `accepted ${p}`),
                 ...accepted.filter((p) => problems(p).length !== 0).map((p) => `refused ${p}: ${problems(p)}`)];
  for (const w of wrong) console.error(`FAIL self-test ${w}`);
  console.log(`patterns_generable self-test: ${refused.length} refused, ${accepted.length} accepted, ${wrong.length} wrong`);
  return wrong.length ? 1 : 0;
}

async function main() {
  if (process.argv[2] === '--self-test') return selfTest();
  const repo = path.resolve(process.argv[2] || path.join(__dirname, '..', '..', '..'));
  const schemaDir = path.join(repo, 'schema');
  const SwaggerParser = require(path.join(repo, 'node_modules', '@apidevtools', 'swagger-parser'));
  const documents = [['openapi.yaml', await SwaggerParser.parse(path.join(schemaDir, 'openapi.yaml'))]];
  for (const file of fs.readdirSync(schemaDir).filter((f) => f.endsWith('.schema.json')).sort())
    documents.push([file, JSON.parse(fs.readFileSync(path.join(schemaDir, file), 'utf8'))]);
  let count = 0, failures = 0;
  for (const [file, doc] of documents) {
    for (const [where, pattern] of patterns(doc, '#')) {
      count++;
      for (const p of problems(pattern)) {
        failures++;
        console.error(`FAIL ${file}${where}: ${p} in ${JSON.stringify(pattern)}`);
      }
    }
  }
  console.log(`patterns_generable: ${count} patterns in ${documents.length} files, ${failures} problems`);
  return failures ? 1 : 0;
}

main().then((code) => process.exit(code), (err) => {
  console.error(`FAIL ${err.message}`);
  process.exit(1);
});
