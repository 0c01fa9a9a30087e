#include "pagination.hpp"

#include <algorithm>
#include <map>
#include <vector>

namespace entimg::mock::detail {

// DRF utils/urls.py: parse_qs(keep_blank_values=True) into a dict (values of a key stay in
// order), set or drop keys, then urlencode(sorted(items), doseq=True).
std::string rebuild_url(const RequestUrl& url,
                        const std::vector<std::pair<std::string_view, std::string>>& set,
                        std::string_view drop) {
  std::map<std::string_view, std::vector<std::string_view>> by_key;  // byte order == code point order
  for (const auto& [k, v] : url.params)
    by_key[k].push_back(v);
  for (const auto& [k, v] : set)
    by_key[k] = {v};
  if (!drop.empty()) by_key.erase(drop);
  std::string out = url.origin_and_path;
  if (!by_key.empty()) out.push_back('?');
  bool first = true;
  for (const auto& [k, values] : by_key)
    for (const auto v : values) {
      if (!first) out.push_back('&');
      first = false;
      common::append_quote_plus(out, k);
      out.push_back('=');
      common::append_quote_plus(out, v);
    }
  return out;
}

std::string quote(std::string_view utf8, std::string_view safe) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(utf8.size());
  for (const char ch : utf8) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
        c == '-' || c == '~' || safe.find(ch) != std::string_view::npos) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

Window read_window(const common::QueryParams& params) {
  Window w;
  if (const std::string* limit = common::last_value(params, "limit")) {
    const auto parsed = parse_python_int(*limit);
    if (parsed && !parsed->negative && !parsed->magnitude.is_zero()) w.limit = parsed->magnitude;
  }
  if (const std::string* offset = common::last_value(params, "offset")) {
    const auto parsed = parse_python_int(*offset);
    if (parsed && !parsed->negative) w.offset = parsed->magnitude;
  }
  return w;
}

std::optional<std::string> next_link(const RequestUrl& url, const Window& window, std::uint64_t count) {
  const BigUint next_offset = window.offset + window.limit;
  if (next_offset >= BigUint(count)) return std::nullopt;
  return rebuild_url(url, {{"limit", window.limit.str()}, {"offset", next_offset.str()}}, {});
}

std::optional<std::string> previous_link(const RequestUrl& url, const Window& window) {
  if (window.offset.is_zero()) return std::nullopt;
  if (window.offset <= window.limit) return rebuild_url(url, {{"limit", window.limit.str()}}, "offset");
  return rebuild_url(
      url, {{"limit", window.limit.str()}, {"offset", monus(window.offset, window.limit).str()}}, {});
}

}  // namespace entimg::mock::detail
