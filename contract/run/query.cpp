#include "query.hpp"

#include "links.hpp"

namespace entimg::contract::detail {

std::string path_with_query(std::string_view path, const common::QueryParams& params) {
  static constexpr common::PercentSafe kUnreserved = common::quote_safe("");  // quote(text, safe='')
  std::string out(path);
  for (std::size_t i = 0; i < params.size(); ++i) {
    out.push_back(i == 0 ? '?' : '&');
    common::append_quote(out, params[i].first, kUnreserved);
    out.push_back('=');
    common::append_quote(out, params[i].second, kUnreserved);
  }
  return out;
}

PageQuery window_query(std::uint64_t limit, std::uint64_t offset, common::QueryParams extra) {
  PageQuery q;
  q.params = std::move(extra);
  q.params.emplace_back("limit", std::to_string(limit));
  if (offset > 0) q.params.emplace_back("offset", std::to_string(offset));
  q.effective_limit = limit;
  q.effective_offset = offset;
  return q;
}

namespace {

Page request_page(Client& client, std::string_view path, const PageQuery& query, const Headers& headers) {
  Page page;
  page.sent = query.params;
  page.effective_limit = query.effective_limit;
  page.effective_offset = query.effective_offset;
  page.exchange = client.request("GET", path_with_query(path, query.params), headers);
  return page;
}

}  // namespace

Page fetch_page(Client& client, std::string_view path, const PageQuery& query, const Headers& headers) {
  Page page = request_page(client, path, query, headers);
  parse_body(page);
  adopt_capped_limit(page);
  return page;
}

Page fetch_page_unparsed(Client& client, std::string_view path, const PageQuery& query) {
  return request_page(client, path, query, {});
}

}  // namespace entimg::contract::detail
