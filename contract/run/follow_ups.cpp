#include "follow_ups.hpp"

#include "entimg/contract/rules.hpp"
#include "json_access.hpp"
#include "query.hpp"
#include "redirects.hpp"
#include "sides.hpp"

namespace entimg::contract::detail {
namespace {

// The slashless path's window: neither DRF's default limit nor offset, so a redirect that drops the query
// shows; a limit no other request of the plan sends (docs/contract.md), so no cache answers it from another.
constexpr std::uint64_t kSlashlessLimit = 9;

}  // namespace

FollowUps::FollowUps(Client& client, const CheckContext& context, Findings& findings)
    : client_(client), context_(context), findings_(findings) {}

Page FollowUps::ask(const std::string& path, const PageQuery& query, const Headers& headers) {
  return fetch_page(client_, path, query, headers);
}

void FollowUps::open_records(const Page& page, std::span<const std::size_t> indices) {
  const auto results = results_array(page);
  if (!results) return;
  for (const std::size_t index : indices) {
    if (index >= results->size()) continue;
    const auto id = record_id((*results).at(index).value_unsafe());
    if (!id) continue;  // record_schema's
    PageQuery none;
    none.label = "record " + std::to_string(*id) + " opened";
    const Page answer = ask(context_.collection_path + std::to_string(*id) + "/", none, {});
    FollowAsk follow{FollowStep::record_opened, none.label, &page, index, nullptr, &answer};
    check_follow_up(context_, follow, findings_);
    check_error_answer(context_, answer.exchange, findings_);
  }
}

void FollowUps::unknown_url(std::uint64_t seed) {
  const std::string& collection = context_.collection_path;
  const std::string api =
      collection.substr(0, collection.size() - std::string_view("entities-images/").size());
  // Its first 256 KiB: a debug page says what it is near its start.
  const HttpExchange answer =
      client_.request("GET", api + "no-such-route-" + std::to_string(seed % 100000) + "/", {}, 256u << 10);
  check_error_answer(context_, answer, findings_);
  if (answer.status == 0 || answer.status >= 400) return;
  findings_.note("debug_page_hidden", "an unknown URL under the API root (" + answer.url + ") answers " +
                                          std::to_string(answer.status) + ", not 404: a catch-all route?");
}

void FollowUps::slashless(std::uint64_t offset) {
  const PageQuery query = window_query(kSlashlessLimit, offset);
  const Page slashed = ask(context_.collection_path, query, {});
  std::string path = context_.collection_path;
  path.pop_back();
  const Followed got = get_following_redirects(client_, path_with_query(path, query.params));
  Page answer;
  answer.exchange = got.answer();
  answer.sent = query.params;
  answer.effective_limit = query.effective_limit;
  answer.effective_offset = query.effective_offset;
  parse_body(answer);
  // Where the redirect led to the slashed URL, its page is judged like any other (led elsewhere, the page is
  // not the window asked: slashless_redirect says so, the page rules would only repeat it).
  if (got.hops.size() > 1 && got.error.empty() && answer.exchange.url == slashed.exchange.url)
    check_page(context_, answer, findings_);
  const FollowAsk follow{
      FollowStep::slashless_path, path_with_query(path, query.params), &slashed, 0, &got, &answer};
  check_follow_up(context_, follow, findings_);
}

void FollowUps::revalidate(const Page& page, const PageQuery& other) {
  const auto etag = page.exchange.header("ETag");
  const auto modified = page.exchange.header("Last-Modified");
  if (!etag && !modified) {
    findings_.note(
        "revalidation",
        "no validators (ETag, Last-Modified) on the first page: a client asks each page again in full");
    findings_.pass("revalidation");
    return;
  }
  Headers own;
  if (etag) own.emplace_back("If-None-Match", *etag);
  if (modified) own.emplace_back("If-Modified-Since", *modified);
  PageQuery same;
  same.params = page.sent;
  same.effective_limit = page.effective_limit;
  same.effective_offset = page.effective_offset;
  {
    const Page again = ask(context_.collection_path, same, own);
    check_follow_up(context_, {FollowStep::revalidated, "the same page", &page, 0, nullptr, &again},
                    findings_);
  }
  if (!etag) return;  // a date alone may rightly say another URL is unchanged since then
  const Headers tag{{"If-None-Match", *etag}};
  {
    const Page elsewhere = ask(context_.collection_path, other, tag);
    check_follow_up(context_, {FollowStep::revalidated, "another page", &page, 0, nullptr, &elsewhere, true},
                    findings_);
  }
  Headers html = tag;
  html.emplace_back("Accept", std::string(kBrowserAccept));
  const Page browsable = ask(context_.collection_path, same, html);
  check_follow_up(
      context_,
      {FollowStep::revalidated, "the same URL as the browsable HTML", &page, 0, nullptr, &browsable, true},
      findings_);
}

namespace {

// Records queued before RecordSample::open waits.
constexpr std::size_t kRecordsQueued = 1024;

}  // namespace

RecordSample::RecordSample(Client& client, const CheckContext& context, std::size_t threads)
    : client_(client), context_(context), threads_wanted_(std::max<std::size_t>(threads, 1)) {}

RecordSample::~RecordSample() {
  stop();
  for (std::thread& t : threads_)
    t.join();
}

void RecordSample::open(const Page& page, std::span<const std::size_t> indices) {
  const auto results = results_array(page);
  if (!results) return;
  std::unique_lock lock(mutex_);
  if (threads_.empty()) {
    found_.resize(threads_wanted_);
    for (std::size_t slot = 0; slot < threads_wanted_; ++slot)
      threads_.emplace_back([this, slot] { work(slot); });
  }
  for (const std::size_t index : indices) {
    if (index >= results->size()) continue;
    const Json record = (*results).at(index).value_unsafe();
    const auto id = record_id(record);
    if (!id) continue;  // record_schema's
    room_.wait(lock, [&] { return queue_.size() < kRecordsQueued || closing_; });
    if (closing_) return;
    queue_.push_back({page.exchange.url, simdjson::minify(record), *id});
    ready_.notify_one();
  }
}

void RecordSample::work(std::size_t slot) {
  for (;;) {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty() || closing_; });
    if (queue_.empty()) return;
    Ask ask = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    room_.notify_one();
    if (!client_.budget_left()) {
      const std::lock_guard relock(mutex_);
      ++dropped_;
      continue;
    }
    Page listed;  // the record as the list gave it, one record of a page
    listed.exchange.url = ask.listed_url;
    listed.exchange.status = 200;
    listed.exchange.body = "{\"results\":[" + ask.record + "]}";
    parse_body(listed);
    PageQuery none;
    none.label = "record " + std::to_string(ask.id) + " opened";
    const Page answer = fetch_page(client_, context_.collection_path + std::to_string(ask.id) + "/", none);
    if (answer.exchange.attempts == 0) {  // not sent: the run stopped
      const std::lock_guard relock(mutex_);
      ++dropped_;
      continue;
    }
    check_follow_up(context_, {FollowStep::record_opened, none.label, &listed, 0, nullptr, &answer},
                    found_[slot]);
    check_error_answer(context_, answer.exchange, found_[slot]);
  }
}

std::uint64_t RecordSample::stop() {
  {
    const std::lock_guard lock(mutex_);
    const std::uint64_t left = queue_.size() + dropped_;
    queue_.clear();
    closing_ = true;
    ready_.notify_all();
    room_.notify_all();
    return left;
  }
}

void RecordSample::finish(Findings& findings) {
  {
    const std::lock_guard lock(mutex_);
    closing_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : threads_)
    t.join();
  threads_.clear();
  for (const Findings& f : found_)
    findings.merge(f);
  found_.clear();
}

}  // namespace entimg::contract::detail
