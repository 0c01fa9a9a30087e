#include <sstream>

#include <catch2/catch.hpp>

#include "entimg/contract/report.hpp"
#include "report_text.hpp"

using namespace entimg::contract;

namespace {

// Every rule passing once, then the failures given, as a run would report them.
RunReport report_with(std::vector<Failure> failures) {
  RunReport report;
  report.base_url = "http://api.example.org";
  report.seed = 42;
  for (const Rule& rule : all_rules()) {
    RuleOutcome outcome;
    outcome.rule = &rule;
    outcome.checked = 1;
    for (const Failure& f : failures)
      if (f.rule == rule.name) outcome.failures.push_back(f);
    report.rules.push_back(std::move(outcome));
  }
  report.coverage.push_back({"HEAD", "spec §4.2", 1, "HEAD /edw/api/entities-images/", {200}});
  report.coverage.push_back({"OPTIONS", "spec §4.2", 0, "", {}});
  return report;
}

std::string html_of(const RunReport& report, const RunContext& context = {}) {
  std::ostringstream out;
  write_html_report(out, report, context);
  return out.str();
}

}  // namespace

TEST_CASE("html report: the verdict comes first", "[report][html]") {
  const std::string pass = html_of(report_with({}));
  CHECK(pass.find("class=\"verdict pass\"") < pass.find("<h2>"));
  CHECK(pass.find("PASS: every rule that ran passed") != std::string::npos);
  CHECK(pass.find("<h2>Failures</h2>") == std::string::npos);

  const std::string fail = html_of(report_with({{"options_ok",
                                                 "expected OPTIONS to answer 200, got status 405",
                                                 "http://api.example.org/edw/api/entities-images/",
                                                 "",
                                                 {}}}));
  CHECK(fail.find("FAIL: 1 rule failed") != std::string::npos);
  CHECK(fail.find("<dt>expected</dt><dd>OPTIONS to answer 200</dd>") != std::string::npos);
  CHECK(fail.find("<dt>got</dt><dd>status 405</dd>") != std::string::npos);
  // The replay sends what the rule judged: OPTIONS here.
  CHECK(fail.find("curl -sS -i -X OPTIONS") != std::string::npos);

  RunReport fatal = report_with({});
  fatal.fatal_error = "cannot check http://api.example.org/: connection refused";
  CHECK(html_of(fatal).find("ERROR: the deployment could not be checked") != std::string::npos);

  // Every rule left out or skipped: nothing passed, so the verdict is no PASS.
  RunReport nothing = report_with({});
  for (RuleOutcome& outcome : nothing.rules)
    outcome.checked = 0;
  nothing.rules.front().selected = false;
  CHECK(nothing.checked_nothing());
  CHECK(detail::verdict_of(nothing) == "ERROR");
  CHECK(html_of(nothing).find("ERROR: " + std::string(kCheckedNothing)) != std::string::npos);
  nothing.rules.back().checked = 1;  // one rule ran and passed
  CHECK_FALSE(nothing.checked_nothing());
  CHECK(detail::verdict_of(nothing) == "PASS");
}

TEST_CASE("html report: what a hostile server sent is text, never markup", "[report][html]") {
  const std::string hostile = "<script>alert(\"x\")</script><img src=x onerror=alert(1)>";
  const std::string html = html_of(
      report_with({{"content_type_json", "expected Content-Type application/json, got \"" + hostile + "\"",
                    "http://api.example.org/edw/api/entities-images/?q='\"><script>", "/results/0/<b>", 7}}),
      {"2025-01-01T00:00:00Z", 0, "entities-images-contract --base-url '<x>'", {}});
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("<b>") == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;") != std::string::npos);
  CHECK(html.find("&lt;x&gt;") != std::string::npos);
  // Nothing to fetch and nothing to run, whatever the page holds.
  CHECK(html.find("Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"") !=
        std::string::npos);
}

TEST_CASE("html report: a secret is $VAR in the replay command, and the run's command line is shown",
          "[report][html]") {
  RunContext context{"2025-01-01T00:00:00Z",
                     0,
                     "entities-images-contract --base-url http://api.example.org --seed 42",
                     {{"Authorization", "", "ENTIMG_TOKEN"}, {"X-Team", "web", ""}}};
  const std::string html = html_of(report_with({{"next_link_offset",
                                                 "expected next null, got a link",
                                                 "http://api.example.org/edw/api/entities-images/?offset=24",
                                                 "/next",
                                                 {}}}),
                                   context);
  CHECK(html.find(detail::html_escaped(
            "curl -sS -i -H 'Authorization: '\"$ENTIMG_TOKEN\" -H 'X-Team: web' -H 'User-Agent: "
            "entimg-contract (cpp-httplib)' 'http://api.example.org/edw/api/entities-images/?offset=24'")) !=
        std::string::npos);
  CHECK(html.find("<pre>entities-images-contract --base-url http://api.example.org --seed 42</pre>") !=
        std::string::npos);
  CHECK(html.find("<dt>pointer</dt><dd><code>/next</code></dd>") != std::string::npos);
}

TEST_CASE("html report: the coverage table says what was exercised and what was not", "[report][html]") {
  const std::string html = html_of(report_with({}));
  CHECK(html.find("<tr><td>HEAD</td><td class=\"n\">1</td><td>200</td>"
                  "<td><code>HEAD /edw/api/entities-images/</code></td>") != std::string::npos);
  CHECK(html.find("<tr class=\"none\"><td>OPTIONS</td><td class=\"n\">not exercised</td>") !=
        std::string::npos);
}
