#include "churn.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>

#include "entimg/mock/cli.hpp"
#include "entimg/mock/service.hpp"

using namespace entimg::mock;

namespace {

std::vector<Record> listing(const Dataset& d, const Selection& s, std::uint64_t step) {
  std::vector<Record> all;
  for (std::uint64_t offset = 0; offset < d.count(s); offset += step)
    d.page(s, offset, step, all);
  return all;
}

struct At {  // this thread's requests see the collection at `ms`
  explicit At(std::uint64_t ms) { detail::set_request_time(ms); }
  ~At() { detail::set_request_time(std::nullopt); }
};

}  // namespace

TEST_CASE("a live collection at one moment: inserts first, deletes gone, every page agrees", "[churn]") {
  std::shared_ptr<const Dataset> base = make_generated_dataset(1000, 3);
  const auto live = make_churn_dataset(base, 60, 30, 9);
  const At at(90'000);  // a minute and a half: 90 inserts, 45 deletes
  REQUIRE(live->count({}) == 1000 + 90 - 45);
  const std::vector<Record> whole = listing(*live, {}, 1000000);
  for (const std::uint64_t step : {1U, 7U, 12U, 100U}) {
    const std::vector<Record> paged = listing(*live, {}, step);
    REQUIRE(paged.size() == whole.size());
    for (std::size_t i = 0; i < paged.size(); ++i)
      CHECK(paged[i].id == whole[i].id);
  }
  std::set<std::int64_t> ids;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    CHECK(ids.insert(whole[i].id).second);
    if (i < 90) CHECK(whole[i].id == base->max_id() + static_cast<std::int64_t>(i) + 1);
    if (i >= 91) CHECK(whole[i].id > whole[i - 1].id);  // the base keeps its order
    CHECK(live->find_by_id(whole[i].id).has_value());
    CHECK(live->find_by_file(whole[i].file)->id == whole[i].id);
  }
  // What was deleted is found no more; the same seed gives the same collection.
  std::size_t gone = 0;
  for (const Record& r : listing(*base, {}, 1000))
    gone += !ids.contains(r.id) && !live->find_by_id(r.id);
  CHECK(gone == 45);
  const auto again = make_churn_dataset(base, 60, 30, 9);
  const std::vector<Record> replay = listing(*again, {}, 50);
  REQUIRE(replay.size() == whole.size());
  CHECK(std::equal(replay.begin(), replay.end(), whole.begin(),
                   [](const Record& a, const Record& b) { return a.id == b.id && a.file == b.file; }));
  // An entity's records are the whole listing's, filtered.
  const std::int64_t entity = whole.front().entity;
  std::vector<std::int64_t> expected;
  for (const Record& r : whole)
    if (r.entity == entity) expected.push_back(r.id);
  std::vector<std::int64_t> got;
  for (const Record& r : listing(*live, Selection{entity, false}, 2))
    got.push_back(r.id);
  CHECK(got == expected);
}

TEST_CASE("an app paging while records come and go sees duplicates and misses, as DRF's offsets give them",
          "[churn]") {
  const auto live = make_churn_dataset(make_generated_dataset(1000, 3), 5, 0, 9);
  std::vector<Record> first, second;
  {
    const At at(0);
    live->page({}, 0, 12, first);
  }
  {
    const At at(60'000);  // five records inserted before the app asks its second page
    live->page({}, 12, 12, second);
  }
  std::size_t seen_twice = 0;
  for (const Record& r : second)
    seen_twice += std::any_of(first.begin(), first.end(), [&r](const Record& f) { return f.id == r.id; });
  CHECK(seen_twice == 5);
  const auto deleting = make_churn_dataset(make_generated_dataset(1000, 3), 0, 500, 9);
  std::vector<Record> before, after;
  {
    const At at(0);
    deleting->page({}, 0, 12, before);
  }
  {
    const At at(60'000);
    deleting->page({}, 12, 12, after);
  }
  CHECK(after.front().id > before.back().id);
  CHECK(deleting->count({}) > 0);
}

TEST_CASE("X-Mock-Time picks the moment a request sees, and a malformed one is a 400", "[churn]") {
  const Service service(make_churn_dataset(make_generated_dataset(100, 1), 60, 0, 2));
  const auto count_at = [&service](const std::string& ms) {
    HttpRequest r;
    r.method = "GET";
    r.target = "/edw/api/entities-images/";
    r.headers = {{"Host", "x"}, {"X-Mock-Time", ms}};
    return service.handle(r);
  };
  CHECK(nlohmann::json::parse(count_at("0").body)["count"] == 100);
  CHECK(nlohmann::json::parse(count_at("120000").body)["count"] == 220);
  const HttpResponse bad = count_at("soon");
  CHECK(bad.status == 400);
  CHECK(bad.body.find("X-Mock-Time") != std::string::npos);
}

TEST_CASE("the option --churn takes INSERTS:DELETES a minute, and not with --user", "[churn][cli]") {
  const ParsedOptions ok = parse_command_line({"--churn", "30:10"});
  CHECK(ok.error.empty());
  CHECK(ok.options.churn_inserts == 30);
  CHECK(ok.options.churn_deletes == 10);
  for (const char* bad : {"0:0", "30", "a:b", "30:-1", "200000:1", ":"})
    CHECK(parse_command_line({"--churn", bad}).error.find("INSERTS:DELETES") != std::string::npos);
  CHECK(parse_command_line({"--churn", "1:1", "--user", "a:b"}).error.find("cannot be used with") !=
        std::string::npos);
}
