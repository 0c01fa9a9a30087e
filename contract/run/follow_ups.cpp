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
  }
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

}  // namespace entimg::contract::detail
