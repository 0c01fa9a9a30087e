#include "pagination.hpp"

#include <catch2/catch.hpp>

using namespace entimg::mock::detail;
using entimg::common::parse_query;

namespace {
Window window_of(std::string_view query) {
  return read_window(parse_query(query));
}
RequestUrl url_of(std::string_view query) {
  return RequestUrl{"http://testserver/edw/api/entities-images/", parse_query(query)};
}
}  // namespace

TEST_CASE("read_window applies DRF's limit and offset rules", "[pagination]") {
  CHECK(window_of("").limit.str() == "12");
  CHECK(window_of("").offset.str() == "0");
  for (const char* q : {"limit=0", "limit=-1", "limit=abc", "limit=1.5", "limit=1e1", "limit=0x10"})
    CHECK(window_of(q).limit.str() == "12");
  CHECK(window_of("limit=1000").limit.str() == "1000");  // no maximum
  CHECK(window_of("limit=+3").limit.str() == "3");       // '+' decodes to a space
  CHECK(window_of("limit=%2B3").limit.str() == "3");
  CHECK(window_of("limit=2&limit=3").limit.str() == "3");  // the last value wins
  for (const char* q : {"offset=-3", "offset=abc", "offset=1.5"})
    CHECK(window_of(q).offset.str() == "0");
  CHECK(window_of("offset=99999999999999999999").offset.str() == "99999999999999999999");
}

TEST_CASE("next is null exactly when offset + limit reaches count", "[pagination]") {
  const auto url = url_of("format=json&offset=24");
  CHECK(next_link(url, window_of("offset=24"), 300) ==
        "http://testserver/edw/api/entities-images/?format=json&limit=12&offset=36");
  CHECK_FALSE(next_link(url, window_of("offset=24"), 36));
  CHECK(next_link(url, window_of("offset=24"), 37).has_value());
  CHECK_FALSE(next_link(url, window_of("offset=500"), 27));
}

TEST_CASE("previous drops offset when offset - limit <= 0", "[pagination]") {
  CHECK_FALSE(previous_link(url_of(""), window_of("")));
  CHECK(previous_link(url_of("offset=5"), window_of("offset=5")) ==
        "http://testserver/edw/api/entities-images/?limit=12");
  CHECK(previous_link(url_of("offset=12"), window_of("offset=12")) ==
        "http://testserver/edw/api/entities-images/?limit=12");
  CHECK(previous_link(url_of("offset=100"), window_of("offset=100")) ==
        "http://testserver/edw/api/entities-images/?limit=12&offset=88");
  CHECK(previous_link(url_of("offset=99999999999999999999"), window_of("offset=99999999999999999999")) ==
        "http://testserver/edw/api/entities-images/?limit=12&offset=99999999999999999987");
}

TEST_CASE("links keep every parameter, sorted by key and re-encoded as quote_plus", "[pagination]") {
  // Reference §2.4, the SIM example.
  const std::string query = "zeta=1&alpha=%20x&alpha=y&offset=4&limit=2&k*=a~b*c:d&%D0%AF=1";
  CHECK(next_link(url_of(query), window_of(query), 100) ==
        "http://testserver/edw/api/entities-images/"
        "?alpha=+x&alpha=y&k%2A=a~b%2Ac%3Ad&limit=2&offset=6&zeta=1&%D0%AF=1");
  CHECK(next_link(url_of("flag&x=a;y=b&v=%ff"), window_of(""), 100) ==
        "http://testserver/edw/api/entities-images/?flag=&limit=12&offset=12&v=%EF%BF%BD&x=a%3By%3Db");
}
