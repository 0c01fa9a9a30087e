#include "coverage.hpp"

#include <catch2/catch.hpp>

using namespace entimg::contract;

namespace {

// A GET the suite sent with these parameters, answered 200 with this count and number of records.
Page answered(entimg::common::QueryParams sent, std::uint64_t count, std::size_t records,
              std::uint64_t effective_limit = 12) {
  Page page;
  page.sent = std::move(sent);
  page.effective_limit = effective_limit;
  page.exchange.method = "GET";
  page.exchange.url = "http://x/edw/api/entities-images/?" + (page.sent.empty() ? "" : page.sent[0].first);
  page.exchange.status = 200;
  std::string results;
  for (std::size_t i = 0; i < records; ++i)
    results += (i ? ",{}" : "{}");
  set_body(page, "{\"count\":" + std::to_string(count) + ",\"next\":null,\"previous\":null,\"results\":[" +
                     results + "]}");
  return page;
}

const CoverageRow& row(const detail::Coverage& coverage, std::string_view starts) {
  for (const CoverageRow& r : coverage.rows())
    if (r.behaviour.starts_with(starts)) return r;
  FAIL("no coverage row starts with " << starts);
  throw std::logic_error("unreachable");
}

// Each row (by the start of its behaviour) with the number of requests it counted.
void expect_requests(const detail::Coverage& coverage,
                     std::initializer_list<std::pair<std::string_view, std::uint64_t>> expected) {
  for (const auto& [starts, requests] : expected) {
    INFO(starts);
    CHECK(row(coverage, starts).requests == requests);
  }
}

}  // namespace

TEST_CASE("coverage: each behaviour counted from the requests made", "[coverage]") {
  detail::Coverage coverage;
  for (const CoverageRow& r : coverage.rows())
    CHECK(r.requests == 0);  // nothing is claimed before a request exercises it

  coverage.add(answered({}, 30, 12));
  coverage.add(answered({{"limit", "abc"}}, 30, 12));
  coverage.add(answered({{"limit", "-1"}}, 30, 12));
  coverage.add(answered({{"limit", " 40 "}, {"offset", "28"}}, 30, 2, 40));
  coverage.add(answered({{"offset", "37"}}, 30, 0));
  coverage.add(answered({{"format", "json"}, {"offset", "x"}}, 30, 12));
  HttpExchange head;
  head.method = "HEAD";
  head.url = "http://x/edw/api/entities-images/";
  head.status = 200;
  coverage.add(head);

  expect_requests(coverage, {{"GET without limit or offset", 1},
                             {"limit not a whole number", 1},
                             {"limit zero or negative", 1},
                             {"limit a positive whole number", 1},
                             {"limit at or above count", 1},
                             {"offset inside the collection", 1},
                             {"offset at or beyond count", 1},
                             {"offset not a whole number, or negative", 1},
                             {"a partial page", 1},
                             {"format=json", 1},
                             {"no format parameter", 5},
                             {"HEAD", 1},
                             {"OPTIONS", 0}});
  CHECK(row(coverage, "limit not a whole number").example == "GET /edw/api/entities-images/?limit");
  CHECK(row(coverage, "HEAD").statuses == std::vector<int>{200});
  for (const std::string_view side : {"?entity=N", "the nested route", "Accept: text/html", "Accept-Encoding",
                                      "X-Forwarded-Proto", "Host:"})
    CHECK(row(coverage, side).requests == 0);
}

TEST_CASE("coverage: the sides are told by their parameters, route and headers", "[coverage]") {
  detail::Coverage coverage;
  coverage.add(answered({{"entity", "5"}, {"limit", "2"}}, 4, 2, 2));
  Page nested = answered({{"limit", "2"}}, 4, 2, 2);
  nested.exchange.url = "http://x/edw/api/entities/5/images/?limit=2";
  coverage.add(nested);
  Page html = answered({{"limit", "3"}}, 30, 3, 3);
  html.exchange.request_headers = {{"Accept", "text/html,application/xhtml+xml"}};
  coverage.add(html);
  coverage.add(answered({{"format", "api"}}, 30, 12));
  Page gzip = answered({{"limit", "4"}}, 30, 4, 4);
  gzip.exchange.request_headers = {{"Accept-Encoding", "gzip"}};
  coverage.add(gzip);
  Page proxied = answered({{"limit", "6"}}, 30, 6, 6);
  proxied.exchange.request_headers = {{"Forwarded", "proto=https;host=h"}};
  coverage.add(proxied);
  Page host = answered({{"limit", "7"}}, 30, 7, 7);
  host.exchange.request_headers = {{"Host", "h:8000"}};
  coverage.add(host);

  expect_requests(coverage, {{"?entity=N", 1},
                             {"the nested route", 1},
                             {"Accept: text/html", 2},
                             {"Accept-Encoding", 1},
                             {"X-Forwarded-Proto", 1},
                             {"Host:", 1}});
  CHECK(row(coverage, "the nested route").example == "GET /edw/api/entities/5/images/?limit=2");
}
