#include <sstream>

#include <catch2/catch.hpp>

#include "entimg/contract/report.hpp"

using namespace entimg::contract;

namespace {

RunReport failing(const std::string& message, const std::string& url, std::size_t times = 1) {
  RunReport report;
  report.base_url = "http://api.example.org";
  for (const Rule& rule : all_rules()) {
    RuleOutcome outcome;
    outcome.rule = &rule;
    outcome.checked = 1;
    if (rule.name == "content_type_json")
      for (std::size_t i = 0; i < times; ++i)
        outcome.failures.push_back({"content_type_json", message, url, "", {}});
    report.rules.push_back(std::move(outcome));
  }
  return report;
}

std::string markdown_of(const RunReport& report, const RunContext& context = {}) {
  std::ostringstream out;
  write_markdown_report(out, report, context);
  return out.str();
}

}  // namespace

TEST_CASE("markdown report: the verdict heads it, server text can make no markup", "[report][markdown]") {
  const std::string md = markdown_of(
      failing("expected Content-Type application/json, got \"<script>x</script> | *bold* [a](b) `c`\"",
              "http://api.example.org/edw/api/entities-images/?q=```"),
      {"", 0, "entities-images-contract --base-url http://api.example.org --seed 1", {}});
  CHECK(md.starts_with("## ❌ FAIL: 1 rule failed\n"));
  CHECK(md.find("<script>") == std::string::npos);
  CHECK(md.find("&lt;script&gt;x&lt;/script&gt; \\| \\*bold\\* \\[a\\](b) \\`c\\`") != std::string::npos);
  // The replay command's fence is longer than any run of backticks in it.
  CHECK(md.find("  ````sh\n  curl -sS -i ") != std::string::npos);
  CHECK(md.find("```sh\nentities-images-contract --base-url http://api.example.org --seed 1\n```\n") !=
        std::string::npos);
  CHECK(md.find("<details><summary>DRF behaviours this run exercised: 0 of 0</summary>") !=
        std::string::npos);
}

TEST_CASE("markdown report: ten failures a rule, the rest counted", "[report][markdown]") {
  const std::string md = markdown_of(failing("expected a, got b", "http://x/", 13));
  CHECK(md.find("- … and 3 more (all are in the JSON and HTML reports)") != std::string::npos);
}

TEST_CASE("annotations: an error a failed rule, escaped as workflow commands ask", "[report][annotations]") {
  std::ostringstream out;
  write_github_annotations(out, failing("expected 100%, got 5%\r\nX", "http://x/?a=1,b", 2));
  CHECK(out.str() ==
        "::error title=entities-images-contract%3A content_type_json::expected 100%25, got 5%25\\x0d\\x0aX"
        "%0Ahttp://x/?a=1,b%0A(2 failures of this rule in all; see the reports)\n");
  CHECK(workflow_command_data("a%b\r\nc") == "a%25b%0D%0Ac");
  CHECK(workflow_command_property("t: a,b%") == "t%3A a%2Cb%25");
}

TEST_CASE("annotations: a warning a rule with nothing to check, an error for a run that could not check",
          "[report][annotations]") {
  RunReport report = failing("", "", 0);
  report.rules.front().checked = 0;
  std::ostringstream out;
  write_github_annotations(out, report);
  CHECK(out.str().starts_with("::warning title=entities-images-contract%3A status_ok::nothing to check"));
  report.fatal_error = "cannot check http://x/: connection refused";
  out.str("");
  write_github_annotations(out, report);
  CHECK(out.str() == "::error title=entities-images-contract::cannot check http://x/: connection refused\n");
}

// Issue 43: a hostile record's right-to-left override (U+202E) and isolates reached the console and Markdown
// raw, so a failure line could display reordered; C1 controls (U+009B, a terminal's CSI) likewise.
TEST_CASE("console and markdown reports: control and bidi characters from a server are escaped",
          "[report][markdown]") {
  const std::string hostile =
      "got \"gnp.\xe2\x80\xae"
      "exe\xe2\x81\xa6x\xe2\x81\xa9 \xc2\x9b"
      "2J \x1b]0;t\x07\"";
  const RunReport report =
      failing("expected a picture, " + hostile, "http://api.example.org/\xe2\x80\x8f?\xd8\x9c=\xe2\x80\xab");
  std::ostringstream console;
  write_console_report(console, report);
  const std::string md = markdown_of(report);
  for (const std::string& text : {console.str(), md}) {
    INFO(text);
    for (const char* raw : {"\xe2\x80\xae", "\xe2\x81\xa6", "\xe2\x81\xa9", "\xc2\x9b", "\x1b", "\x07",
                            "\xe2\x80\x8f", "\xd8\x9c", "\xe2\x80\xab"})
      CHECK(text.find(raw) == std::string::npos);
  }
  CHECK(console.str().find("gnp.\\u202eexe\\u2066x\\u2069 \\u009b2J \\x1b]0;t\\x07") != std::string::npos);
  CHECK(console.str().find("/\\u200f?\\u061c=\\u202b") != std::string::npos);
  // Markdown shows the same escapes, its own backslash escaped: \\u202e renders as \u202e.
  CHECK(md.find("gnp.\\\\u202eexe\\\\u2066x\\\\u2069 \\\\u009b2J \\\\x1b\\]0;t\\\\x07") != std::string::npos);
}
