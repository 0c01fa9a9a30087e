#include "query.hpp"

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

}  // namespace entimg::contract::detail
