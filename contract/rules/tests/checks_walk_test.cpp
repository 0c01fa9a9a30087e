// Ordering within and across pages, refetching, and the walk along next.
#include <catch2/catch.hpp>

#include <unordered_set>

#include "check_test_support.hpp"
#include "entimg/common/prng.hpp"

using namespace entimg::contract;
using namespace entimg::contract::test;

namespace {

Page with_ids(const std::vector<json>& ids, std::uint64_t offset = 0) {
  json body = page_body(300, offset, 12);
  for (std::size_t i = 0; i < ids.size() && i < body["results"].size(); ++i)
    body["results"][i]["id"] = ids[i];
  return make_page(body,
                   offset == 0 ? entimg::common::QueryParams{}
                               : entimg::common::QueryParams{{"offset", std::to_string(offset)}},
                   12, offset);
}

// Every page of a walk over count records, limit 12, as DRF would send them.
std::vector<Page> walk_pages(std::uint64_t count) {
  std::vector<Page> pages;
  for (std::uint64_t offset = 0; offset == 0 || offset < count; offset += 12)
    pages.push_back(drf_page(count, std::nullopt, offset == 0 ? std::nullopt : std::optional(offset)));
  return pages;
}

}  // namespace

TEST_CASE("results_ascending: ascending ids with gaps pass", "[results_ascending]") {
  Findings findings;
  judge("results_ascending", context(), drf_page(300, std::nullopt, std::nullopt), findings);
  CHECK(findings.failures().empty());
  CHECK(findings.checked("results_ascending") == 11);
}

TEST_CASE("results_ascending: a repeated or decreasing id fails alone", "[results_ascending]") {
  Findings findings;
  check_page(context(), with_ids({1, 3, 3, 7}), findings);
  CHECK(failing_rules(findings) == only("results_ascending"));
  REQUIRE(findings.failures().size() == 1);
  CHECK(findings.failures()[0].message == "expected id above the previous record's 3 (/results/1/id), got 3");
  CHECK(findings.failures()[0].pointer == "/results/2/id");
  CHECK(findings.failures()[0].record_id == 3);

  CHECK(failing_page_rules(with_ids({1, 5, 3})) == only("results_ascending"));
}

TEST_CASE("results_ascending: a missing key fails, and --order-key orders by another field",
          "[results_ascending]") {
  json body = page_body(300, 0, 12);
  body["results"][4].erase("id");
  Findings findings;
  judge("results_ascending", context(), make_page(body, {}, 12, 0), findings);
  CHECK(failing_rules(findings) == only("results_ascending"));
  CHECK(findings.failures()[0].pointer == "/results/4/id");

  CheckContext by_file = context();
  by_file.order_key = "file_size";
  Findings sizes;
  judge("results_ascending", by_file, drf_page(300, std::nullopt, std::nullopt), sizes);
  CHECK(sizes.failures().empty());

  CheckContext by_name = context();
  // Strings compare bytewise: "photo_9.jpg" > "photo_11.jpg", so these names are not ascending.
  by_name.order_key = "original_filename";
  Findings names;
  judge("results_ascending", by_name, drf_page(300, std::nullopt, std::nullopt), names);
  CHECK(failing_rules(names) == only("results_ascending"));

  Findings mixed;
  judge("results_ascending", context(), with_ids({1, "2"}), mixed);
  CHECK(message_of(mixed, "results_ascending").find("cannot be ordered") != std::string::npos);
  json extremes = page_body(4, 0, 12);
  const std::vector<json> ids = {-5, 0, 9223372036854775807LL, 18446744073709551615ULL};
  for (std::size_t i = 0; i < ids.size(); ++i)
    extremes["results"][i]["id"] = ids[i];
  Findings big;
  judge("results_ascending", context(), make_page(extremes, {}, 12, 0), big);
  CHECK(big.failures().empty());
}

TEST_CASE("ascending_across_pages: the next page starts above the last id", "[ascending_across_pages]") {
  Findings ok;
  judge("ascending_across_pages", context(), drf_page(300, std::nullopt, std::nullopt),
        drf_page(300, std::nullopt, 12), ok);
  CHECK(ok.failures().empty());
  CHECK(ok.checked("ascending_across_pages") == 1);

  Findings findings;
  judge("ascending_across_pages", context(), drf_page(300, std::nullopt, 12),
        drf_page(300, std::nullopt, std::nullopt), findings);
  CHECK(failing_rules(findings) == only("ascending_across_pages"));
  CHECK(findings.failures()[0].pointer == "/results/0/id");
  CHECK(findings.failures()[0].record_id == 1);

  Findings overlap;  // the second page repeats the first page's last record
  judge("ascending_across_pages", context(), drf_page(300, std::nullopt, std::nullopt),
        drf_page(300, std::nullopt, 11), overlap);
  CHECK(failing_rules(overlap) == only("ascending_across_pages"));

  Findings empty;  // nothing to compare on an empty page
  judge("ascending_across_pages", context(), drf_page(300, std::nullopt, 288),
        drf_page(300, std::nullopt, 300), empty);
  CHECK(empty.checked("ascending_across_pages") == 0);
}

TEST_CASE("refetch_same_ids: the same ids pass, others fail", "[refetch_same_ids]") {
  Findings ok;
  judge("refetch_same_ids", context(), drf_page(300, 12, 150), drf_page(300, 12, 150), ok);
  CHECK(ok.failures().empty());

  Findings findings;
  judge("refetch_same_ids", context(), drf_page(300, 12, 150), drf_page(300, 12, 151), findings);
  CHECK(failing_rules(findings) == only("refetch_same_ids"));
  CHECK(findings.failures()[0].message == "expected id 301 as in the first fetch, got 303");
  CHECK(findings.failures()[0].pointer == "/results/0/id");

  Findings shorter;
  judge("refetch_same_ids", context(), drf_page(300, 12, 150), drf_page(300, 11, 150), shorter);
  CHECK(message_of(shorter, "refetch_same_ids") == "expected the same 12 records as the first fetch, got 11");
}

TEST_CASE("WalkChecker: a complete DRF walk passes every walk rule",
          "[walk_reaches_end][walk_no_duplicates][walk_count_matches][count_stable]") {
  for (const std::uint64_t count : {0ULL, 1ULL, 12ULL, 13ULL, 300ULL}) {
    INFO(count);
    Findings findings;
    const CheckContext c = context();
    WalkChecker walker(c);
    const auto pages = walk_pages(count);
    for (std::size_t i = 0; i < pages.size(); ++i) {
      walker.add(pages[i], findings);
      if (i > 0) judge("ascending_across_pages", context(), pages[i - 1], pages[i], findings);
    }
    walker.finish(pages.size() + 2, findings);
    CHECK(findings.failures().empty());
    CHECK(walker.records_seen() == count);
    CHECK(findings.checked("walk_count_matches") == 1);
    CHECK(findings.checked("walk_reaches_end") == 1);
    CHECK(findings.checked("walk_no_duplicates") == count);
  }
}

TEST_CASE("WalkChecker: a repeated id fails walk_no_duplicates", "[walk_no_duplicates]") {
  Findings findings;
  const CheckContext c = context();
  WalkChecker walker(c);
  const auto pages = walk_pages(36);
  walker.add(pages[0], findings);
  walker.add(pages[1], findings);
  // A server whose offsets slip: the same page twice, the second time as the last one.
  json last = page_body(36, 12, 12);
  last["next"] = nullptr;
  walker.add(make_page(last, {{"offset", "12"}}, 12, 12), findings);
  walker.finish(10, findings);
  // 36 records seen for a count of 36: the count matches, the repeat is walk_no_duplicates' alone.
  CHECK(failing_rules(findings) == only("walk_no_duplicates"));
  CHECK(message_of(findings, "walk_no_duplicates") == "expected each id once in the walk, got id 25 again");
}

TEST_CASE("WalkChecker: a changing count fails count_stable", "[count_stable]") {
  Findings findings;
  const CheckContext c = context();
  WalkChecker walker(c);
  walker.add(drf_page(24, std::nullopt, std::nullopt), findings);
  json body = page_body(24, 12, 12);
  body["count"] = 25;
  body["next"] = nullptr;
  walker.add(make_page(body, {{"offset", "12"}}, 12, 12), findings);
  CHECK(failing_rules(findings) == only("count_stable"));
  CHECK(findings.failures()[0].pointer == "/count");
}

TEST_CASE("WalkChecker: fewer records than count fail walk_count_matches", "[walk_count_matches]") {
  Findings findings;
  const CheckContext c = context();
  WalkChecker walker(c);
  const auto pages = walk_pages(36);
  walker.add(pages[0], findings);
  walker.add(pages[2], findings);  // a page skipped
  walker.finish(10, findings);
  CHECK(failing_rules(findings) == only("walk_count_matches"));
  CHECK(message_of(findings, "walk_count_matches").find("count = 36 records") != std::string::npos);
}

TEST_CASE("WalkChecker: a walk that never reaches next == null fails walk_reaches_end alone",
          "[walk_reaches_end]") {
  Findings findings;
  const CheckContext c = context();
  WalkChecker walker(c);
  const auto pages = walk_pages(36);
  walker.add(pages[0], findings);
  walker.finish(1, findings);
  CHECK(failing_rules(findings) == only("walk_reaches_end"));
  CHECK(findings.checked("walk_count_matches") == 0);
}

TEST_CASE("WalkChecker: 300,000 ids in a scrambled order stay fast", "[walk_no_duplicates]") {
  Findings findings;
  const CheckContext c = context();
  WalkChecker walker(c);
  json body = page_body(300000, 0, 1000);
  for (int page = 299; page >= 0; --page) {  // pages walked backwards: ids descend across pages
    for (std::size_t i = 0; i < 1000; ++i)
      body["results"][i]["id"] = page * 1000 + static_cast<int>(i) + 1;
    Page p;
    p.exchange.status = 200;
    if (page == 0) body["next"] = nullptr;  // the walk ends here
    set_body(p, body.dump());
    walker.add(p, findings);
  }
  walker.finish(300, findings);
  CHECK(findings.failures().empty());
  CHECK(findings.checked("walk_no_duplicates") == 300000);
}

TEST_CASE("Findings stay bounded whatever a server sends", "[findings][hostile]") {
  Findings findings;
  const std::string huge(1'000'000, 'x');
  for (int i = 0; i < 1000; ++i)
    findings.fail({"next_link_offset", "expected …, got " + huge, "http://h/?q=" + huge, "/" + huge, i});
  findings.note("previous_link_style", huge);
  CHECK(findings.failures().size() == Findings::kKeptFailures);
  CHECK(findings.left_out("next_link_offset") == 1000 - Findings::kKeptFailures);
  CHECK(findings.checked("next_link_offset") == 1000);
  for (const Failure& f : findings.failures()) {
    CHECK(f.message.size() < 5000);
    CHECK(f.url.size() < 2100);
    CHECK(f.pointer.size() < 600);
  }
  CHECK_THAT(findings.failures().front().message, Catch::Matchers::EndsWith("… (1000018 bytes)"));
  CHECK(findings.notes().front().second.size() < 5000);
  Findings merged;
  merged.merge(findings);
  CHECK(merged.checked("next_link_offset") == 1000);
}

TEST_CASE("IdSet says what a hash set says on seeded random walks of rising, falling and repeated ids",
          "[walk]") {
  const std::uint64_t seed = GENERATE(as<std::uint64_t>(), 1, 2, 3, 4);
  INFO("seed " << seed << " (contract_rules_tests \"IdSet says what a hash set says*\")");
  entimg::common::Pcg32 rng(seed, 31);
  IdSet ids;
  std::unordered_set<std::int64_t> reference;
  std::int64_t next = rng.between(-5, 5);
  for (int i = 0; i < 20000; ++i) {
    std::int64_t id = 0;
    switch (rng.below(6)) {
      case 0:  // a repeat or a dip below the highest, near it or anywhere seen so far
        id = next - rng.between(0, 40);
        break;
      case 1:  // a jump down, far
        id = rng.between(-1000, next);
        break;
      default:  // the usual: rising, sometimes by more than one
        next += rng.between(1, 3);
        id = next;
    }
    const bool added = ids.insert(id);
    if (added != reference.insert(id).second)
      FAIL("step " << i << ": id " << id << (added ? " added" : " refused"));
  }
  CHECK(ids.size() == reference.size());
  // Whatever came in, every id is known now.
  for (const std::int64_t id : reference)
    REQUIRE_FALSE(ids.insert(id));
}

// A walk of a collection written to as it goes: the first page says 24, the second (its last) 26 with 14
// records, as two uploads appended meanwhile make it. What settles it is the count asked again at its end.
TEST_CASE("settle_writes_during_walk: a count that grew for good is writes, a warning with the evidence",
          "[count_stable][walk_count_matches]") {
  const CheckContext c = context();
  WalkChecker appended(c);
  Findings grew;
  json first = page_body(26, 0, 12);
  first["count"] = 24;
  appended.add(make_page(first, {}, 12, 0), grew);
  appended.add(make_page(page_body(26, 12, 14), {{"offset", "12"}}, 14, 12), grew);
  appended.finish(10, grew);
  REQUIRE(failing_rules(grew) == std::set<std::string>{"count_stable", "walk_count_matches"});

  Findings settled;
  CHECK(settle_writes_during_walk(appended.state(), 26, grew, settled));
  CHECK(settled.failures().empty());
  CHECK(settled.checked("count_stable") > 0);
  const auto& notes = settled.notes();
  CHECK(std::any_of(notes.begin(), notes.end(), [](const auto& n) {
    return n.first == "count_stable" && n.second.find("the count grew from 24 to 26") != std::string::npos &&
           n.second.find("asked again at its end says 26") != std::string::npos;
  }));
  // The first page asked again says 24: the count one page gave was not kept, a miscount.
  Findings miscount;
  CHECK_FALSE(settle_writes_during_walk(appended.state(), 24, grew, miscount));
  CHECK(failing_rules(miscount) == std::set<std::string>{"count_stable", "walk_count_matches"});
  // No count asked again: as found.
  Findings unknown;
  CHECK_FALSE(settle_writes_during_walk(appended.state(), std::nullopt, grew, unknown));
  CHECK(unknown.failures().size() == grew.failures().size());
}

TEST_CASE("settle_writes_during_walk: records seen twice beyond the growth are no writes",
          "[walk_no_duplicates]") {
  const CheckContext c = context();
  WalkChecker walker(c);
  Findings found;
  json first = page_body(26, 0, 12);
  first["count"] = 25;
  walker.add(make_page(first, {}, 12, 0), found);
  json second = page_body(26, 12, 14);
  for (std::size_t i = 0; i < 3; ++i)  // three records of the first page again, for a growth of one
    second["results"][i] = first["results"][i];
  walker.add(make_page(second, {{"offset", "12"}}, 14, 12), found);
  walker.finish(10, found);
  REQUIRE(failing_rules(found).contains("walk_no_duplicates"));
  Findings settled;
  CHECK_FALSE(settle_writes_during_walk(walker.state(), 26, found, settled));
  CHECK(failing_rules(settled).contains("walk_no_duplicates"));
  // A walk with three pages in flight: one record put first may push three across pages fetched ahead.
  Findings in_flight;
  CHECK(settle_writes_during_walk(walker.state(), 26, found, in_flight, 3));
  CHECK(in_flight.failures().empty());
  Findings too_few_in_flight;
  CHECK_FALSE(settle_writes_during_walk(walker.state(), 26, found, too_few_in_flight, 2));
}
