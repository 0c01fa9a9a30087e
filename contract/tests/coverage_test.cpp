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

  CHECK(row(coverage, "GET without limit or offset").requests == 1);
  CHECK(row(coverage, "limit not a whole number").requests == 1);
  CHECK(row(coverage, "limit not a whole number").example == "GET /edw/api/entities-images/?limit");
  CHECK(row(coverage, "limit zero or negative").requests == 1);
  CHECK(row(coverage, "limit a positive whole number").requests == 1);
  CHECK(row(coverage, "limit at or above count").requests == 1);
  CHECK(row(coverage, "offset inside the collection").requests == 1);
  CHECK(row(coverage, "offset at or beyond count").requests == 1);
  CHECK(row(coverage, "offset not a whole number, or negative").requests == 1);
  CHECK(row(coverage, "a partial page").requests == 1);
  CHECK(row(coverage, "format=json").requests == 1);
  CHECK(row(coverage, "no format parameter").requests == 5);
  CHECK(row(coverage, "HEAD").requests == 1);
  CHECK(row(coverage, "HEAD").statuses == std::vector<int>{200});
  CHECK(row(coverage, "OPTIONS").requests == 0);
}
