// The fetch-ahead engine of the walk, `record` and a live `diff`: order, window, bytes, end, errors.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "fetch_ahead.hpp"

using namespace entimg::contract;
using namespace entimg::contract::detail;

namespace {

// An item whose body names its index, made after a delay that scrambles the workers' finishing order.
Fetched item(std::uint64_t index, std::size_t body_bytes = 0) {
  std::this_thread::sleep_for(std::chrono::microseconds((index * 7919) % 5 * 300));
  Fetched out;
  out.page.exchange.url = std::to_string(index);
  out.page.exchange.body.assign(body_bytes, 'x');
  return out;
}

}  // namespace

TEST_CASE("FetchAhead hands out items in order, whatever order the workers finish in", "[fetch_ahead]") {
  std::atomic<std::uint64_t> started{0}, most_ahead{0};
  std::atomic<std::uint64_t> consumed{0};
  FetchAhead ahead(
      [&](std::uint64_t index) {
        ++started;
        const std::uint64_t ahead_by = index - consumed.load();
        std::uint64_t seen = most_ahead.load();
        while (ahead_by > seen && !most_ahead.compare_exchange_weak(seen, ahead_by)) {
        }
        return item(index);
      },
      4, 6);
  for (std::uint64_t i = 0; i < 200; ++i) {
    CHECK(ahead.next().page.exchange.url == std::to_string(i));
    consumed = i + 1;
  }
  // Never more than the window ahead of the consumer (this count lags the engine's by the item in hand).
  CHECK(most_ahead.load() <= 6 + 1);
}

TEST_CASE("FetchAhead starts nothing past end and fetches an item past it on the caller's thread",
          "[fetch_ahead]") {
  std::atomic<std::uint64_t> started{0};
  std::thread::id fetched_on;
  FetchAhead ahead(
      [&](std::uint64_t index) {
        ++started;
        if (index == 3) fetched_on = std::this_thread::get_id();
        return item(index);
      },
      2, 8, 3);
  for (std::uint64_t i = 0; i < 3; ++i)
    CHECK(ahead.next().page.exchange.url == std::to_string(i));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(started.load() == 3);
  CHECK(ahead.next().page.exchange.url == "3");
  CHECK(fetched_on == std::this_thread::get_id());
  ahead.stop_at(10);  // raised again: the workers go on from there
  for (std::uint64_t i = 4; i < 10; ++i)
    CHECK(ahead.next().page.exchange.url == std::to_string(i));
}

TEST_CASE("FetchAhead holds no more than kReadyBytes of waiting bodies but for the one awaited",
          "[fetch_ahead]") {
  std::atomic<std::uint64_t> started{0};
  FetchAhead ahead(
      [&](std::uint64_t index) {
        ++started;
        return item(index, kReadyBytes);
      },
      1, 8);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(started.load() == 1);  // the window allows 8; one ready body fills the allowance
  CHECK(ahead.next().page.exchange.url == "0");
  CHECK(ahead.next().page.exchange.url == "1");  // the awaited one is always fetched
}

TEST_CASE("FetchAhead rethrows what a fetch threw, in its place in the order", "[fetch_ahead]") {
  FetchAhead ahead(
      [](std::uint64_t index) {
        if (index == 1) throw std::runtime_error("fetch 1 failed");
        return item(index);
      },
      3, 3);
  CHECK(ahead.next().page.exchange.url == "0");
  CHECK_THROWS_WITH(ahead.next(), "fetch 1 failed");
  CHECK(ahead.next().page.exchange.url == "2");
}

TEST_CASE("FetchAhead with a judge hands out each item judged, in order, fetching ahead while it judges",
          "[fetch_ahead]") {
  std::atomic<int> judging{0}, fetching_while_judging{0};
  FetchAhead ahead(
      [&](std::uint64_t index) {
        if (judging.load() > 0) ++fetching_while_judging;
        if (index == 5) throw std::runtime_error("fetch 5 failed");
        return item(index);
      },
      1, 6, 40,
      [&](Fetched& fetched) {
        ++judging;
        std::this_thread::sleep_for(std::chrono::microseconds(500));
        --judging;
        if (fetched.page.exchange.url == "7") throw std::runtime_error("judge 7 failed");
        fetched.page.exchange.url += " judged";
      },
      1);
  for (std::uint64_t i = 0; i < 41; ++i) {
    if (i == 5) {
      CHECK_THROWS_WITH(ahead.next(), "fetch 5 failed");  // not judged: there is nothing to judge
    } else if (i == 7) {
      CHECK_THROWS_WITH(ahead.next(), "judge 7 failed");
    } else {
      CHECK(ahead.next().page.exchange.url == std::to_string(i) + " judged");  // 40: on this thread
    }
  }
  // The one fetching thread did not wait for the one judging: requests went out while pages were judged.
  CHECK(fetching_while_judging.load() > 0);
}
