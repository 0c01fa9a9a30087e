// The rules on next/previous and on the origin of the URLs a page carries.
#include <catch2/catch.hpp>

#include "check_test_support.hpp"

using namespace entimg::contract;
using namespace entimg::contract::test;
using entimg::common::QueryParams;

namespace {

Page with_links(const QueryParams& sent, std::uint64_t count, std::uint64_t limit, std::uint64_t offset,
                json next, json previous) {
  json body = page_body(count, offset, limit, sent);
  body["next"] = std::move(next);
  body["previous"] = std::move(previous);
  return make_page(body, sent, limit, offset);
}

std::string link(const std::string& query) {
  return std::string(kOrigin) + kPath + "?" + query;
}

}  // namespace

TEST_CASE("next_link_offset: DRF's next links pass", "[next_link_offset]") {
  for (const auto& page :
       {drf_page(300, std::nullopt, std::nullopt), drf_page(300, std::nullopt, 10),
        drf_page(300, std::nullopt, 288), drf_page(300, 5, 295), drf_page(300, std::nullopt, 299),
        drf_page(0, std::nullopt, std::nullopt), drf_page(300, std::nullopt, 1000)}) {
    INFO(page.exchange.url);
    Findings findings;
    judge("next_link_offset", context(), page, findings);
    CHECK(findings.failures().empty());
    CHECK(findings.checked("next_link_offset") == 1);
  }
}

TEST_CASE("next_link_offset: a wrong offset, a missing or an extra next fail alone", "[next_link_offset]") {
  Findings findings;
  check_page(context(), with_links({}, 300, 12, 0, link("limit=12&offset=13"), nullptr), findings);
  CHECK(failing_rules(findings) == only("next_link_offset"));
  CHECK(message_of(findings, "next_link_offset") ==
        "expected next to carry offset=12 (offset 0, limit 12, count 300), got offset=\"13\"");
  CHECK(findings.failures()[0].pointer == "/next");

  CHECK(failing_page_rules(with_links({}, 300, 12, 0, nullptr, nullptr)) == only("next_link_offset"));
  // The last page (offset + limit >= count) must have next null.
  const QueryParams sent{{"offset", "288"}};
  CHECK(failing_page_rules(with_links(sent, 300, 12, 288, link("limit=12&offset=300"),
                                      link("limit=12&offset=276"))) == only("next_link_offset"));
  CHECK(failing_page_rules(with_links({}, 300, 12, 0, link("limit=12"), nullptr)) ==
        only("next_link_offset"));
}

TEST_CASE("next_link_offset: offsets near 2^64 are compared without overflow", "[next_link_offset]") {
  const std::uint64_t offset = 18446744073709551610ULL;
  json body = page_body(3, 0, 12);
  body["results"] = json::array();
  body["next"] = link("limit=12&offset=18446744073709551622");
  Findings findings;
  judge("next_link_offset", context(), make_page(body, {{"offset", std::to_string(offset)}}, 12, offset),
        findings);
  CHECK(failing_rules(findings) == only("next_link_offset"));  // next must be null: offset + limit >= count
}

TEST_CASE("previous_link_offset: DRF drops offset, the spec's offset=0 passes too, and both are noted",
          "[previous_link_offset]") {
  const QueryParams sent{{"offset", "5"}};
  Findings drf;
  check_page(context(), with_links(sent, 300, 12, 5, link("limit=12&offset=17"), link("limit=12")), drf);
  CHECK(failing_rules(drf) == none());
  REQUIRE(drf.notes().size() == 1);
  CHECK(drf.notes()[0].second == "previous drops offset when offset-limit <= 0 (DRF)");

  Findings spec;
  check_page(context(), with_links(sent, 300, 12, 5, link("limit=12&offset=17"), link("offset=0&limit=12")),
             spec);
  CHECK(failing_rules(spec) == none());
  REQUIRE(spec.notes().size() == 1);
  CHECK(spec.notes()[0].second == "previous carries offset=0 (spec §2.2 rule 2)");

  Findings exact;
  check_page(context(), drf_page(300, std::nullopt, 12), exact);  // offset − limit = 0: DRF drops it
  CHECK(failing_rules(exact) == none());

  for (const auto& page :
       {drf_page(300, std::nullopt, 24), drf_page(300, std::nullopt, 400), drf_page(0, 12, 24)}) {
    Findings findings;
    judge("previous_link_offset", context(), page, findings);
    CHECK(findings.failures().empty());
  }
}

TEST_CASE("previous_link_offset: a wrong, missing or extra previous fails alone", "[previous_link_offset]") {
  CHECK(failing_page_rules(with_links({}, 300, 12, 0, link("limit=12&offset=12"), link("limit=12"))) ==
        only("previous_link_offset"));
  const QueryParams sent{{"offset", "24"}};
  Findings findings;
  check_page(context(), with_links(sent, 300, 12, 24, link("limit=12&offset=36"), link("limit=12&offset=11")),
             findings);
  CHECK(failing_rules(findings) == only("previous_link_offset"));
  CHECK(message_of(findings, "previous_link_offset") ==
        "expected previous to carry offset=12 (offset 24, limit 12), got offset=\"11\"");
  CHECK(failing_page_rules(with_links(sent, 300, 12, 24, link("limit=12&offset=36"), nullptr)) ==
        only("previous_link_offset"));
  CHECK(failing_page_rules(with_links(sent, 300, 12, 24, link("limit=12&offset=36"), link("limit=12"))) ==
        only("previous_link_offset"));
  const QueryParams small{{"offset", "5"}};
  CHECK(failing_page_rules(with_links(small, 300, 12, 5, link("limit=12&offset=17"),
                                      link("limit=12&offset=-7"))) == only("previous_link_offset"));
}

TEST_CASE("links_keep_parameters: other order and encoding of the same parameters pass",
          "[links_keep_parameters]") {
  const QueryParams sent{{"zeta", "1"},  {"alpha", " x"},   {"alpha", "y"},    {"offset", "4"},
                         {"limit", "2"}, {"k*", "a~b*c:d"}, {"\xD0\xAF", "1"}, {"entity", ""}};
  // DRF's form (sorted, quote_plus) as the builder makes it:
  CHECK(
      failing_page_rules(with_links(
          sent, 300, 2, 4, link("alpha=+x&alpha=y&entity=&k%2A=a~b%2Ac%3Ad&limit=2&offset=6&zeta=1&%D0%AF=1"),
          link("alpha=+x&alpha=y&entity=&k%2A=a~b%2Ac%3Ad&limit=2&offset=2&zeta=1&%D0%AF=1"))) == none());
  // Another order, %20 for space, lower-case hex, encoded unreserved characters, a bare key:
  CHECK(
      failing_page_rules(with_links(
          sent, 300, 2, 4, link("%d0%af=1&offset=6&zeta=%31&k*=a%7Eb*c:d&alpha=%20x&limit=2&alpha=y&entity"),
          link("limit=2&%D0%AF=1&zeta=1&entity=&alpha=%20x&alpha=y&k%2a=a~b*c%3ad&offset=2"))) == none());
}

TEST_CASE("links_keep_parameters: invalid UTF-8 sent comes back as U+FFFD", "[links_keep_parameters]") {
  const QueryParams sent{{"x", "a\xff"}};
  Findings findings;
  judge("links_keep_parameters", context(),
        with_links(sent, 300, 12, 0, link("limit=12&offset=12&x=a%EF%BF%BD"), nullptr), findings);
  CHECK(findings.failures().empty());
}

TEST_CASE("links_keep_parameters: a dropped, added or changed parameter fails alone",
          "[links_keep_parameters]") {
  const QueryParams sent{{"format", "json"}, {"offset", "24"}};
  Findings findings;
  check_page(
      context(),
      with_links(sent, 300, 12, 24, link("limit=12&offset=36"), link("format=json&limit=12&offset=12")),
      findings);
  CHECK(failing_rules(findings) == only("links_keep_parameters"));
  CHECK(message_of(findings, "links_keep_parameters").find("missing sent parameter(s) \"format=json\"") !=
        std::string::npos);
  CHECK(findings.failures()[0].pointer == "/next");

  CHECK(failing_page_rules(with_links(sent, 300, 12, 24, link("format=api&limit=12&offset=36"),
                                      link("format=json&limit=12&offset=12"))) ==
        only("links_keep_parameters"));
  CHECK(failing_page_rules(with_links(sent, 300, 12, 24, link("format=json&page=2&limit=12&offset=36"),
                                      link("format=json&limit=12&offset=12"))) ==
        only("links_keep_parameters"));
  // limit absent, or not the effective limit
  CHECK(failing_page_rules(with_links(sent, 300, 12, 24, link("format=json&offset=36"),
                                      link("format=json&limit=12&offset=12"))) ==
        only("links_keep_parameters"));
  CHECK(failing_page_rules(with_links(sent, 300, 12, 24, link("format=json&limit=20&offset=36"),
                                      link("format=json&limit=12&offset=12"))) ==
        only("links_keep_parameters"));
  // another path
  CHECK(failing_page_rules(with_links(
            sent, 300, 12, 24, std::string(kOrigin) + "/edw/api/entities/?format=json&limit=12&offset=36",
            link("format=json&limit=12&offset=12"))) == only("links_keep_parameters"));
  // a relative link is also not on the base origin, nor a link the page schema accepts
  CHECK(
      failing_page_rules(with_links(sent, 300, 12, 24, std::string(kPath) + "?format=json&limit=12&offset=36",
                                    link("format=json&limit=12&offset=12"))) ==
      std::set<std::string>{"links_keep_parameters", "link_origin", "page_schema"});
}

TEST_CASE("links_keep_parameters: the format-suffix path and the public path are kept",
          "[links_keep_parameters]") {
  const QueryParams sent{{"offset", "24"}};
  Page page =
      with_links(sent, 300, 12, 24, std::string(kOrigin) + "/edw/api/entities-images.json?limit=12&offset=36",
                 std::string(kOrigin) + "/edw/api/entities-images.json?limit=12&offset=12");
  page.exchange.url = std::string(kOrigin) + "/edw/api/entities-images.json?offset=24";
  Findings findings;
  judge("links_keep_parameters", context(), page, findings);
  CHECK(findings.failures().empty());
  // Dropping the suffix changes the representation: it fails.
  json body = body_json(page);
  body["next"] = link("limit=12&offset=36");
  Page dropped = make_page(body, sent, 12, 24);
  dropped.exchange.url = page.exchange.url;
  Findings f2;
  judge("links_keep_parameters", context(), dropped, f2);
  CHECK(failing_rules(f2) == only("links_keep_parameters"));
}

TEST_CASE("link_origin: links and images on the base origin pass, in any letter case or default port",
          "[link_origin]") {
  CheckContext c = context();
  c.origin = "https://api.example.org";
  json body = page_body(300, 24, 12);
  body["next"] = "HTTPS://API.Example.org:443/edw/api/entities-images/?limit=12&offset=36";
  body["previous"] = "https://api.example.org/edw/api/entities-images/?limit=12&offset=12";
  for (auto& r : body["results"])
    r["image"] = "https://api.example.org/media/" + r["file"].get<std::string>();
  Findings findings;
  judge("link_origin", c, make_page(body, {{"offset", "24"}}, 12, 24), findings);
  CHECK(findings.failures().empty());
  CHECK(findings.checked("link_origin") == 14);
}

TEST_CASE("link_origin: a proxy rewriting to http or an internal host fails alone, once per page",
          "[link_origin]") {
  json body = page_body(300, 24, 12);
  body["next"] = "http://backend:8000/edw/api/entities-images/?limit=12&offset=36";
  Findings findings;
  check_page(context(), make_page(body, {{"offset", "24"}}, 12, 24), findings);
  CHECK(failing_rules(findings) == only("link_origin"));
  CHECK(message_of(findings, "link_origin").find("got http://backend:8000") != std::string::npos);

  json images = page_body(300, 0, 12);
  for (auto& r : images["results"])
    r["image"] = "https://test.example:8000/media/" + r["file"].get<std::string>();
  Findings f2;
  check_page(context(), make_page(images, {}, 12, 0), f2);
  CHECK(failing_rules(f2) == only("link_origin"));
  REQUIRE(f2.failures().size() == 1);
  CHECK(f2.failures()[0].message.find("in 12 of 12 records") != std::string::npos);
  CHECK(f2.failures()[0].pointer == "/results/0/image");
  CHECK(f2.failures()[0].record_id == 1);
}

TEST_CASE("format_json_same: the same page with and without format=json passes", "[format_json_same]") {
  const Page with_format = drf_page(300, std::nullopt, 24, {{"format", "json"}});
  const Page without = drf_page(300, std::nullopt, 24);
  Findings findings;
  judge("format_json_same", context(), with_format, without, findings);
  CHECK(findings.failures().empty());
  CHECK(findings.checked("format_json_same") == 4);
  // pretty-printed on one side only
  Findings pretty;
  judge("format_json_same", context(),
        make_page_text(body_json(with_format).dump(2), with_format.sent, 12, 24), without, pretty);
  CHECK(pretty.failures().empty());
}

TEST_CASE("format_json_same: a differing record or link fails alone with a pointer", "[format_json_same]") {
  const Page without = drf_page(300, std::nullopt, 24);
  json body = page_body(300, 24, 12, {{"format", "json"}, {"offset", "24"}});
  body["results"][3]["alt"] = "different";
  Findings findings;
  judge("format_json_same", context(), make_page(body, {{"format", "json"}, {"offset", "24"}}, 12, 24),
        without, findings);
  CHECK(failing_rules(findings) == only("format_json_same"));
  REQUIRE(findings.failures().size() == 1);
  CHECK(findings.failures()[0].pointer == "/results/3/alt");
  CHECK(findings.failures()[0].message.find("\"different\" vs \"\"") != std::string::npos);

  json other_link = page_body(300, 24, 12, {{"format", "json"}, {"offset", "24"}});
  other_link["next"] = link("format=json&limit=12&offset=37");
  Findings f2;
  judge("format_json_same", context(), make_page(other_link, {{"format", "json"}, {"offset", "24"}}, 12, 24),
        without, f2);
  CHECK(failing_rules(f2) == only("format_json_same"));
  CHECK(f2.failures()[0].pointer == "/next");

  json extra = body_json(without);
  extra["detail"] = "x";
  Findings f3;
  judge("format_json_same", context(), make_page(extra, {}, 12, 24), without, f3);
  CHECK(failing_rules(f3) == only("format_json_same"));
}
