// The hand-written edge pages of fixtures/pages/ (an empty collection, a partial last page, a page past
// the end, DRF's previous link without offset): every page rule passes on each as written, and the one
// rule about its edge fails once the edge is got wrong.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>

#include "check_test_support.hpp"

using namespace entimg::contract;
using namespace entimg::contract::test;

namespace {

const std::filesystem::path kPages = std::filesystem::path(ENTIMG_FIXTURES_DIR) / "pages";

struct FixturePage {
  json body;
  entimg::common::QueryParams sent;
  std::uint64_t limit = 12, offset = 0;
};

FixturePage load(const std::string& name) {
  std::ifstream in(kPages / name, std::ios::binary);
  REQUIRE(in);
  const json doc = json::parse(in);
  FixturePage page{doc.at("body"),
                   {},
                   doc.at("effective_limit").get<std::uint64_t>(),
                   doc.at("effective_offset").get<std::uint64_t>()};
  for (const auto& pair : doc.at("sent"))
    page.sent.emplace_back(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
  return page;
}

std::set<std::string> failing(const FixturePage& f) {
  return failing_page_rules(make_page(f.body, f.sent, f.limit, f.offset));
}

}  // namespace

TEST_CASE("each hand-written edge page passes every page rule", "[fixtures][page_length]") {
  for (const char* name : {"empty-collection.json", "partial-last-page.json", "overflow.json",
                           "second-page-previous-without-offset.json"}) {
    INFO(name);
    const FixturePage page = load(name);
    CHECK(failing(page) == none());
    Findings findings;
    check_page(context(), make_page(page.body, page.sent, page.limit, page.offset), findings);
    CHECK(findings.checked("page_length") == 1);
    CHECK(findings.checked("next_link_offset") == 1);
    CHECK(findings.checked("previous_link_offset") == 1);
  }
}

TEST_CASE("each edge got wrong fails the rule about it", "[fixtures][page_length][next_link_offset]") {
  const auto broken = [](const char* name, const std::function<void(json&)>& edit) {
    FixturePage page = load(name);
    edit(page.body);
    return failing(page);
  };
  CHECK(broken("empty-collection.json", [](json& b) {
          b["next"] = std::string(kOrigin) + kPath + "?limit=12&offset=12";
        }) == only("next_link_offset"));
  CHECK(broken("partial-last-page.json", [](json& b) { b["results"].push_back(b["results"][0]); }) ==
        std::set<std::string>{"page_length", "results_ascending"});
  CHECK(broken("partial-last-page.json", [](json& b) { b["results"] = json::array(); }) ==
        only("page_length"));
  CHECK(broken("overflow.json", [](json& b) { b["previous"] = nullptr; }) == only("previous_link_offset"));
  CHECK(broken("overflow.json", [](json& b) {
          b["previous"] = std::string(kOrigin) + kPath + "?limit=12&offset=13";  // "the last page": not DRF
        }) == only("previous_link_offset"));
  CHECK(broken("second-page-previous-without-offset.json", [](json& b) {
          b["previous"] = std::string(kOrigin) + kPath + "?limit=12&offset=0";  // spec rule 2's form: allowed
        }) == none());
}
