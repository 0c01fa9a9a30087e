// The rules of the quick plan's sides, each through its table row: filters, negotiation, compression, a
// proxy's headers and another Host. Each is shown to fail on the answer a broken deployment gives and to
// pass on DRF's.
#include <catch2/catch.hpp>

#include "check_test_support.hpp"
#include "compressed.hpp"
#include "json_parse.hpp"

namespace {

using namespace entimg::contract;
using namespace entimg::contract::test;
using Catch::Matchers::Contains;

// The page DRF gives for ?entity=<entity>: records `ids`, all of that entity.
Page filtered_page(std::int64_t entity, const std::vector<std::int64_t>& ids, std::uint64_t count,
                   std::uint64_t limit = 2, std::uint64_t offset = 0) {
  json results = json::array();
  for (const std::int64_t id : ids) {
    json r = record(id);
    r["entity"] = entity;
    results.push_back(r);
  }
  const entimg::common::QueryParams sent = {{"entity", std::to_string(entity)},
                                            {"limit", std::to_string(limit)}};
  return make_page(json{{"count", count}, {"next", nullptr}, {"previous", nullptr}, {"results", results}},
                   sent, limit, offset);
}

SideAsk filter_ask(std::int64_t entity, bool nested = false) {
  SideAsk ask{PlanSide::filter, nested ? "/edw/api/entities/" + std::to_string(entity) + "/images/"
                                       : "?entity=" + std::to_string(entity)};
  ask.entity = std::to_string(entity);
  ask.nested = nested;
  return ask;
}

TEST_CASE("entity_filter: the entity's records alone, its first-page records first, the same on both routes",
          "[checks][sides]") {
  const CheckContext c = context();
  SideState sides(c);
  sides.collection_count = 300;
  sides.first_page_ids["5"] = {3, 11};
  Findings findings;
  judge("entity_filter", sides, filter_ask(5), filtered_page(5, {3, 11}, 4), nullptr, findings);
  judge("entity_filter", sides, filter_ask(5, true), filtered_page(5, {3, 11}, 4), nullptr, findings);
  CHECK(findings.failures().empty());
  CHECK(findings.checked("entity_filter") == 2);
  CHECK(has_note(findings, "entity_filter", "?entity=5 → count 4"));

  SECTION("a record of another entity") {
    Page page = filtered_page(5, {3, 11}, 4);
    json body = body_json(page);
    body["results"][1]["entity"] = 6;
    Findings f;
    judge("entity_filter", sides, filter_ask(5), make_page(body, page.sent, 2, 0), nullptr, f);
    CHECK_THAT(message_of(f, "entity_filter"),
               Contains("expected only records of entity 5 (?entity=5), got one of entity 6"));
  }
  SECTION("the whole collection's count, or more") {
    Findings f;
    judge("entity_filter", sides, filter_ask(5), filtered_page(5, {3, 11}, 301), nullptr, f);
    CHECK(message_of(f, "entity_filter") ==
          "expected count at most the collection's 300 (the unfiltered first page's) for entity 5, got 301");
  }
  SECTION("the first page's records of the entity missing") {
    Findings f;
    judge("entity_filter", sides, filter_ask(5), filtered_page(5, {11, 13}, 4), nullptr, f);
    CHECK_THAT(message_of(f, "entity_filter"), Contains("(ids 3, 11), got ids 11, 13"));
  }
  SECTION("the nested route listing something else") {
    Findings f;
    judge("entity_filter", sides, filter_ask(5, true), filtered_page(5, {3, 11}, 9), nullptr, f);
    CHECK_THAT(message_of(f, "entity_filter"),
               Contains("expected the nested route to list what ?entity=5 lists"));
    CHECK_THAT(message_of(f, "entity_filter"), Contains("got count 9"));
  }
  SECTION("pages past the first are not compared with the first page") {
    Findings f;
    judge("entity_filter", sides, filter_ask(5), filtered_page(5, {13, 17}, 4, 2, 2), nullptr, f);
    CHECK(f.failures().empty());
  }
}

// An answer to the negotiation side: the browsable HTML or JSON.
Page answer_as(bool html, const std::string& accept) {
  Page page = html ? make_page_text("<!DOCTYPE html>\n<html><body>Entity Image List</body></html>", {}, 3, 0)
                   : drf_page(300, 3, 7);
  if (html) page.exchange.headers = {{"Content-Type", "text/html; charset=utf-8"}, {"Vary", "Accept"}};
  page.exchange.request_headers = {{"Accept", accept}};
  return page;
}

TEST_CASE("accept_negotiated: each answer is the representation asked for, whatever came first",
          "[checks][sides]") {
  const CheckContext c = context();
  SideState sides(c);
  SideAsk html_ask{PlanSide::negotiation, "Accept: text/html", {{"Accept", "text/html"}}};
  html_ask.wants_html = true;
  const SideAsk json_ask{PlanSide::negotiation, "Accept: application/json", {{"Accept", "application/json"}}};
  const Page html = answer_as(true, "text/html"), json_page = answer_as(false, "application/json");
  Findings findings;
  judge("accept_negotiated", sides, html_ask, html, &json_page, findings);
  judge("accept_negotiated", sides, json_ask, json_page, &html, findings);
  CHECK(findings.failures().empty());
  CHECK(has_note(findings, "accept_negotiated", "Accept: text/html → the browsable HTML"));

  SECTION("JSON for the browser, after a JSON request of the same URL: a cache blind to Vary") {
    SideAsk after = html_ask;
    after.other_first = true;
    const Page replayed = answer_as(false, "text/html");
    Findings f;
    judge("accept_negotiated", sides, after, replayed, &json_page, f);
    CHECK_THAT(
        message_of(f, "accept_negotiated"),
        Contains(
            "with Accept: text/html: expected the browsable HTML (text/html), got JSON (application/json)"));
    CHECK_THAT(message_of(f, "accept_negotiated"), Contains("a shared cache that ignores Vary: Accept?"));
  }
  SECTION("the HTML for a JSON client") {
    Findings f;
    judge("accept_negotiated", sides, json_ask, answer_as(true, "application/json"), nullptr, f);
    CHECK(message_of(f, "accept_negotiated") ==
          "with Accept: application/json: expected JSON, got the browsable HTML (text/html)");
  }
  SECTION("no browsable API: 406") {
    Page refused = answer_as(false, "text/html");
    refused.exchange.status = 406;
    Findings f;
    judge("accept_negotiated", sides, html_ask, refused, nullptr, f);
    CHECK(message_of(f, "accept_negotiated") ==
          "with Accept: text/html: expected the browsable HTML (text/html), got status 406");
  }
}

// The DRF page of the compression side, as it came to a request with that Accept-Encoding.
Page encoded_page(const std::string& accept_encoding, const std::string& coding, const json& body,
                  bool vary = true) {
  Page page;
  page.sent = {{"limit", "4"}, {"offset", "9"}};
  page.effective_limit = 4;
  page.effective_offset = 9;
  page.exchange.method = "GET";
  page.exchange.url = std::string(kOrigin) + kPath + "?limit=4&offset=9";
  page.exchange.status = 200;
  page.exchange.body = coding == "gzip" ? gzip_compressed(body.dump())
                       : coding == "br" ? brotli(body.dump())
                                        : body.dump();
  page.exchange.headers = drf_headers(page.exchange.body.size());
  if (!coding.empty()) page.exchange.headers.emplace_back("Content-Encoding", coding);
  if (vary) page.exchange.headers.emplace_back("Vary", "Accept-Encoding");
  page.exchange.request_headers = {{"Accept-Encoding", accept_encoding}};
  parse_body(page);
  return page;
}

SideAsk encoding_ask(const std::string& coding, bool other_first = false) {
  SideAsk ask{PlanSide::compression, "Accept-Encoding: " + coding, {{"Accept-Encoding", coding}}};
  ask.other_first = other_first;
  return ask;
}

TEST_CASE("compressed_as_asked: an accepted coding, whole, decoding to the plain answer's JSON",
          "[checks][sides]") {
  const CheckContext c = context();
  SideState sides(c);
  const json body = page_body(300, 9, 4, {{"limit", "4"}, {"offset", "9"}});
  const Page plain = encoded_page("identity", "", body);
  Findings findings;
  const Page gzipped = encoded_page("gzip", "gzip", body);
  REQUIRE(gzipped.content_coding == "gzip");
  judge("compressed_as_asked", sides, encoding_ask("gzip"), gzipped, &plain, findings);
  judge("compressed_as_asked", sides, encoding_ask("br", true), encoded_page("br", "br", body), &plain,
        findings);
  judge("compressed_as_asked", sides, encoding_ask("br", true), encoded_page("br", "", body), &plain,
        findings);
  CHECK(findings.failures().empty());
  CHECK(has_note(findings, "compressed_as_asked",
                 "Accept-Encoding: gzip → gzip, decoding to the plain answer's JSON"));
  CHECK(has_note(findings, "compressed_as_asked", "Accept-Encoding: br → not compressed"));
  CHECK_FALSE(has_note(findings, "compressed_as_asked", "warning"));
  // The decoded page is a page like any other.
  CHECK(failing_page_rules(gzipped).empty());

  SECTION("no Vary: Accept-Encoding is a warning, not a failure") {
    Findings f;
    judge("compressed_as_asked", sides, encoding_ask("gzip"), encoded_page("gzip", "gzip", body, false),
          &plain, f);
    CHECK(f.failures().empty());
    CHECK(has_note(f, "compressed_as_asked", "warning: gzip answers carry no Vary: Accept-Encoding"));
  }
  SECTION("a compressed copy of another rendering") {
    json stale = body;
    stale["results"][0]["alt"] = "stale";
    Findings f;
    judge("compressed_as_asked", sides, encoding_ask("gzip"), encoded_page("gzip", "gzip", stale), &plain, f);
    CHECK_THAT(
        message_of(f, "compressed_as_asked"),
        Contains("with Accept-Encoding: gzip: expected the gzip body to decode to the plain answer's JSON"));
    CHECK_THAT(message_of(f, "compressed_as_asked"), Contains(R"(got "stale" vs "")"));
  }
  SECTION("gzip to a request that accepts br alone, after a gzip request of the same URL") {
    Findings f;
    judge("compressed_as_asked", sides, encoding_ask("br", true), encoded_page("br", "gzip", body), &gzipped,
          f);
    CHECK_THAT(
        message_of(f, "compressed_as_asked"),
        Contains(
            R"(with Accept-Encoding: br: expected a plain body or one in a coding the request accepts, got Content-Encoding: "gzip")"));
    CHECK_THAT(message_of(f, "compressed_as_asked"),
               Contains("a shared cache that ignores Vary: Accept-Encoding?"));
  }
  SECTION("a gzip stream cut short") {
    Page cut = encoded_page("gzip", "", body);
    cut.exchange.body = gzip_compressed(body.dump()).substr(0, 40);
    cut.exchange.headers.emplace_back("Content-Encoding", "gzip");
    parse_body(cut);
    Findings f;
    judge("compressed_as_asked", sides, encoding_ask("gzip"), cut, &plain, f);
    CHECK_THAT(message_of(f, "compressed_as_asked"),
               Contains("expected a gzip body that decodes, got a body that could not be decoded: a gzip "
                        "stream cut short"));
  }
  SECTION("a gzip body that decodes to no JSON: empty gzip members, or over the value bound") {
    const std::string empty_member = gzip_compressed("");
    std::string values_over = "[";
    for (std::size_t i = 0; i < entimg::contract::detail::kMaxJsonValues; ++i)
      values_over += "[],";
    values_over += "[]]";
    for (const std::string& compressed : {empty_member + empty_member, gzip_compressed(values_over)}) {
      Page odd = encoded_page("gzip", "", body);
      odd.exchange.body = compressed;
      odd.exchange.headers.emplace_back("Content-Encoding", "gzip");
      parse_body(odd);
      REQUIRE(odd.content_coding == "gzip");
      REQUIRE_FALSE(odd.json);
      Findings f;
      judge("compressed_as_asked", sides, encoding_ask("gzip"), odd, &plain, f);
      CHECK_THAT(message_of(f, "compressed_as_asked"),
                 Contains("expected the gzip body to decode to the plain answer's JSON (http"));
      CHECK_THAT(message_of(f, "compressed_as_asked"), Contains("), got " + odd.json_error));
      CHECK_FALSE(has_note(f, "compressed_as_asked", "decoding to the plain answer's JSON"));
    }
  }
  SECTION("with no plain JSON to compare with, the note says so") {
    Page not_json = encoded_page("identity", "", body);
    set_body(not_json, "<html>");
    for (const Page* other : std::initializer_list<const Page*>{nullptr, &not_json}) {
      Findings f;
      judge("compressed_as_asked", sides, encoding_ask("gzip"), gzipped, other, f);
      CHECK(f.failures().empty());
      CHECK(has_note(f, "compressed_as_asked",
                     "Accept-Encoding: gzip → gzip, decoding to JSON, not compared: "));
      CHECK_FALSE(has_note(f, "compressed_as_asked", "decoding to the plain answer's JSON"));
    }
  }
  SECTION("no answer: a Content-Length counting the uncompressed bytes") {
    Page lost = encoded_page("gzip", "", body);
    lost.exchange.status = 0;
    lost.exchange.error = "the connection closed before the body of http://x/ was complete";
    Findings f;
    judge("compressed_as_asked", sides, encoding_ask("gzip"), lost, &plain, f);
    CHECK_THAT(
        message_of(f, "compressed_as_asked"),
        Contains(
            "expected a whole answer (a compressed body framed by its compressed length), got no answer"));
  }
}

// A page of the proxy or Host side: next and previous on links_origin, images on images_origin.
Page origin_page(const std::string& links_origin, const std::string& images_origin) {
  const entimg::common::QueryParams sent = {{"limit", "6"}, {"offset", "20"}};
  json results = json::array();
  for (std::int64_t id = 41; id < 53; id += 2)
    results.push_back(record(id, images_origin));
  return make_page(json{{"count", 300},
                        {"next", drf_link(sent, 6, 26, links_origin)},
                        {"previous", drf_link(sent, 6, 14, links_origin)},
                        {"results", results}},
                   sent, 6, 20);
}

SideAsk proxy_ask(bool other_first = false) {
  SideAsk ask{PlanSide::proxy,
              "X-Forwarded-Proto: https and X-Forwarded-Host: h.example",
              {{"X-Forwarded-Proto", "https"}, {"X-Forwarded-Host", "h.example"}},
              "https://h.example"};
  ask.other_first = other_first;
  return ask;
}

TEST_CASE("forwarded_origin and host_origin: links and images follow the headers alike, or ignore them alike",
          "[checks][sides]") {
  const CheckContext c = context();
  const std::string rule = GENERATE("forwarded_origin", "host_origin");
  INFO(rule);
  const Page plain = origin_page(kOrigin, kOrigin);
  SideState sides(c);
  Findings findings;
  judge(rule, sides, proxy_ask(), origin_page("https://h.example", "https://h.example"), &plain, findings);
  judge(rule, sides, proxy_ask(true), origin_page("https://h.example:443", "HTTPS://H.example"), &plain,
        findings);
  CHECK(findings.failures().empty());
  CHECK(has_note(findings, rule, "followed: links and images on https://h.example"));

  SECTION("ignoring them is a pass too") {
    SideState fresh(c);
    Findings f;
    judge(rule, fresh, proxy_ask(), plain, &plain, f);
    CHECK(f.failures().empty());
    CHECK(has_note(f, rule, "ignored: links and images on http://test.example:8000"));
  }
  SECTION("links follow, images do not") {
    SideState fresh(c);
    Findings f;
    judge(rule, fresh, proxy_ask(), origin_page("https://h.example", kOrigin), &plain, f);
    CHECK(message_of(f, rule) ==
          "with X-Forwarded-Proto: https and X-Forwarded-Host: h.example: expected links and images to "
          "follow it "
          "alike, got next and previous on https://h.example but 6 images on http://test.example:8000");
  }
  SECTION("the host followed, the scheme not") {
    SideState fresh(c);
    Findings f;
    judge(rule, fresh, proxy_ask(), origin_page("http://h.example", "http://h.example"), &plain, f);
    CHECK_THAT(message_of(f, rule), Contains("expected next on https://h.example (following it) or on "
                                             "http://test.example:8000 (ignoring it), got http://h.example"));
  }
  SECTION("the plain request afterwards answered with the headers' origin: a cache not keyed on them") {
    SideState fresh(c);
    const Page replayed = origin_page("https://h.example", "https://h.example");
    Findings f;
    judge(rule, fresh, proxy_ask(), replayed, &replayed, f);
    CHECK_THAT(message_of(f, rule), Contains("on http://test.example:8000, got https://h.example"));
    CHECK_THAT(message_of(f, rule), Contains("a shared cache that does not key on"));
  }
  SECTION("followed on one URL, ignored on another asked plainly before") {
    Findings f;
    judge(rule, sides, proxy_ask(true), plain, &plain, f);
    CHECK_THAT(message_of(f, rule),
               Contains("expected the deployment to answer it the same way on every URL, got it "
                        "followed on"));
    CHECK_THAT(message_of(f, rule), Contains("but ignored here (asked after the same URL without it"));
  }
  SECTION("URLs already elsewhere without the headers are link_origin's") {
    SideState fresh(c);
    const Page internal = origin_page("http://internal:8000", kOrigin);
    Findings f;
    judge(rule, fresh, proxy_ask(), origin_page("http://internal:8000", "https://h.example"), &internal, f);
    CHECK(f.failures().empty());
  }
  SECTION("headers naming the base origin itself tell nothing") {
    SideState fresh(c);
    SideAsk same = proxy_ask();
    same.origin = "http://test.example:8000";
    Findings f;
    judge(rule, fresh, same, plain, &plain, f);
    CHECK(f.failures().empty());
    CHECK(has_note(f, rule, "names the base URL's own origin"));
  }
}

}  // namespace
