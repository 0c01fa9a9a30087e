#include "negotiation.hpp"

#include <catch2/catch.hpp>

using namespace entimg::mock::detail;
using Outcome = Negotiated::Outcome;

namespace {
std::string pick(std::optional<std::string_view> format, std::optional<std::string_view> accept) {
  const auto n = negotiate(format, accept);
  if (n.outcome == Outcome::NotFound) return "404";
  if (n.outcome == Outcome::NotAcceptable) return "406";
  return n.renderer == Renderer::Json ? "json" : "html";
}
}  // namespace

TEST_CASE("negotiation picks by specificity, then renderer order, ignoring q (reference §3.2)",
          "[negotiation]") {
  CHECK(pick({}, {}) == "json");
  CHECK(pick({}, "text/html, application/json") == "json");
  CHECK(pick({}, "application/json;q=0.1, text/html;q=0.9") == "json");
  CHECK(pick({}, "text/html;q=0.9, */*") == "html");
  CHECK(pick({}, "text/*") == "html");
  CHECK(pick({}, "application/*") == "json");
  CHECK(pick({}, "*/*") == "json");
  CHECK(pick({}, "application/xhtml+xml") == "406");
  CHECK(pick({}, "application/xml") == "406");
  CHECK(pick({}, "") == "406");
  CHECK(pick({}, "APPLICATION/JSON") == "json");
}

TEST_CASE("format filters the renderers first", "[negotiation]") {
  CHECK(pick("json", {}) == "json");
  CHECK(pick("api", {}) == "html");
  CHECK(pick("xml", {}) == "404");
  CHECK(pick("JSON", {}) == "404");
  CHECK(pick("json", "text/html") == "406");
  CHECK(pick("api", "application/json") == "406");
}

TEST_CASE("indent comes from the accepted JSON media type, clamped to 0..8", "[negotiation]") {
  CHECK(negotiate({}, "application/json; indent=4").indent == 4);
  CHECK(negotiate({}, "application/json; indent=40").indent == 8);
  CHECK(negotiate({}, "application/json; indent=-2").indent == 0);
  CHECK(negotiate({}, "application/json; indent=x").indent == 0);
  CHECK(negotiate({}, "application/json").indent == 0);
  // The browsable page renders its JSON with the same accepted media type: 4 unless it names an indent.
  CHECK(negotiate({}, "text/html").indent == 4);
  CHECK(negotiate("api", "*/*; indent=2").indent == 2);
  CHECK(negotiate({}, "text/html; indent=0").indent == 0);
  CHECK(negotiate({}, "text/html; indent=x").indent == 4);
}
