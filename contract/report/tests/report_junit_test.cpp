#include <catch2/catch.hpp>
#include <string>

#include "junit_report.hpp"

using namespace entimg::contract;

namespace {

JunitSuite hostile_suite() {
  JunitSuite suite;
  suite.timestamp = "2025-01-31T12:00:00";
  suite.seconds = 1.5;
  suite.properties = {{"base_url", "http://x/?a=1&b=<2>"}};
  JunitCase passed;
  passed.name = "status_ok";
  passed.classname = "entities-images-contract.headers";
  passed.seconds = 0.25;
  JunitCase failed;
  failed.name = "vary_accept";
  failed.classname = "entities-images-contract.headers";
  // what a broken server sends: quotes, markup, a control byte, invalid UTF-8, a non-character
  failed.failures = {"expected \"Accept\", got <b>&\x01\xff\xef\xbf\xbe\n  http://x/ at /a", "second"};
  JunitCase skipped;
  skipped.name = "walk_reaches_end";
  skipped.classname = "entities-images-contract.walk";
  skipped.skipped = "walk rules run in --mode full";
  JunitCase errored;
  errored.name = "deployment_checked";
  errored.classname = "entities-images-contract";
  errored.error = "connection refused";
  errored.error_type = "connect_refused";
  suite.cases = {passed, failed, skipped, errored};
  return suite;
}

}  // namespace

TEST_CASE("junit report: counts, times, a failure's message and type, a skip's reason, an error",
          "[report][junit]") {
  const std::string xml = junit_xml(hostile_suite());
  CHECK_THAT(xml, Catch::Contains(R"(tests="4" failures="1" errors="1" skipped="1" time="1.500")"));
  CHECK_THAT(xml, Catch::Contains(R"(<testsuites name="entities-images-contract" time="1.500">)"));
  CHECK_THAT(xml, Catch::Contains(R"(timestamp="2025-01-31T12:00:00" hostname=")"));
  CHECK_THAT(
      xml, Catch::Contains(
               R"(<testcase name="status_ok" classname="entities-images-contract.headers" time="0.250"/>)"));
  CHECK_THAT(xml, Catch::Contains("<skipped>walk rules run in --mode full</skipped>"));
  CHECK_THAT(xml, Catch::Contains(R"(<error message="connection refused" type="connect_refused">)"));
  CHECK_THAT(xml, Catch::Contains(R"(<property name="base_url" value="http://x/?a=1&amp;b=&lt;2&gt;"/>)"));
}

TEST_CASE("junit report: server text is made printable and escaped, the document stays XML",
          "[report][junit]") {
  const std::string xml = junit_xml(hostile_suite());
  // the failure's message is its first failure's first line; its text every failure
  CHECK_THAT(xml, Catch::Contains(
                      "<failure message=\"expected &quot;Accept&quot;, got &lt;b&gt;&amp;\\x01\xef\xbf\xbd"
                      "\xef\xbf\xbd\" type=\"ContractViolation\">"));
  CHECK_THAT(xml, Catch::Contains("  http://x/ at /a\nsecond\n</failure>"));
  for (const char ch : xml) {
    const auto c = static_cast<unsigned char>(ch);
    CHECK((c >= 0x20 || c == '\n'));  // no control byte XML 1.0 cannot carry
  }
  CHECK(xml.find("\xef\xbf\xbe") == std::string::npos);  // nor U+FFFE
  CHECK(xml.find("\xff") == std::string::npos);          // nor invalid UTF-8
}
