// adopt_capped_limit: DRF's max_limit told by a page's links, and what it leaves alone.
#include "links.hpp"

#include <string>

#include <catch2/catch.hpp>

namespace {

using entimg::contract::Page;
using entimg::contract::set_body;
using entimg::contract::detail::adopt_capped_limit;

// A page asked with limit=1500&offset=offset whose links carry `link_limit`, holding `records` records.
Page asked_1500(std::uint64_t count, std::uint64_t offset, int records, const std::string& link_limit) {
  Page page;
  page.sent = {{"limit", "1500"}, {"offset", std::to_string(offset)}};
  page.effective_limit = 1500;
  page.effective_offset = offset;
  page.exchange.status = 200;
  std::string results;
  for (int i = 0; i < records; ++i)
    results += (i ? "," : "") + std::string("{\"id\":") + std::to_string(i + 1) + "}";
  const std::string next = "\"http://h/edw/api/entities-images/?limit=" + link_limit +
                           "&offset=" + std::to_string(offset + 100) + "\"";
  set_body(page, "{\"count\":" + std::to_string(count) + ",\"next\":" + next +
                     ",\"previous\":null,\"results\":[" + results + "]}");
  return page;
}

}  // namespace

TEST_CASE("adopt_capped_limit judges a page capped at max_limit by the limit its links carry", "[links]") {
  Page capped = asked_1500(250, 0, 100, "100");
  CHECK(adopt_capped_limit(capped));
  CHECK(capped.effective_limit == 100);
  CHECK(capped.capped_from == 1500);
  // The same page whose links step by the limit asked: a cap nobody is told of, left to page_length.
  Page silent = asked_1500(250, 0, 100, "1500");
  CHECK_FALSE(adopt_capped_limit(silent));
  CHECK(silent.effective_limit == 1500);
  // Links that say 100 over a page that does not hold 100 records: not a cap, a broken page.
  Page short_page = asked_1500(250, 0, 99, "100");
  CHECK_FALSE(adopt_capped_limit(short_page));
  // A limit the suite did not send (DRF's fallback for limit=abc) is never taken from the links.
  Page fallback = asked_1500(250, 0, 100, "100");
  fallback.sent = {{"limit", "abc"}};
  fallback.effective_limit = 12;
  CHECK_FALSE(adopt_capped_limit(fallback));
  // Two limits in a link, or not a number: left alone.
  Page odd = asked_1500(250, 0, 100, "100&limit=7");
  CHECK_FALSE(adopt_capped_limit(odd));
  Page words = asked_1500(250, 0, 100, "ten");
  CHECK_FALSE(adopt_capped_limit(words));
}
