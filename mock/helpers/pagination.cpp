#include "pagination.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

namespace entimg::mock::detail {

// DRF utils/urls.py: parse_qs(keep_blank_values=True) into a dict (values of a key stay in
// order), set or drop keys, then urlencode(sorted(items), doseq=True). Sorting the (key, value) pairs by key,
// ties in their order, groups them as the dict does, without a node a key (this runs twice a page).
std::string rebuild_url(const RequestUrl& url,
                        const std::vector<std::pair<std::string_view, std::string>>& set,
                        std::string_view drop) {
  const auto replaced = [&](std::string_view key) {
    return (!drop.empty() && key == drop) ||
           std::any_of(set.begin(), set.end(), [key](const auto& entry) { return entry.first == key; });
  };
  struct Item {
    std::string_view key, value;
    std::size_t order;
  };
  std::vector<Item> items;
  items.reserve(url.params.size() + set.size());
  std::size_t bytes = url.origin_and_path.size() + 1;
  const auto add = [&](std::string_view key, std::string_view value) {
    items.push_back({key, value, items.size()});
    bytes += 3 * (key.size() + value.size()) + 2;
  };
  for (const auto& param : url.params)
    if (!replaced(param.first)) add(param.first, param.second);
  for (std::size_t i = 0; i < set.size(); ++i) {
    const bool later = std::any_of(set.begin() + static_cast<std::ptrdiff_t>(i) + 1, set.end(),
                                   [&](const auto& entry) { return entry.first == set[i].first; });
    if (!later && (drop.empty() || set[i].first != drop)) add(set[i].first, set[i].second);  // the last wins
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {  // byte order == code point order
    return a.key != b.key ? a.key < b.key : a.order < b.order;
  });
  std::string out;
  out.reserve(bytes);
  out.append(url.origin_and_path);
  for (const Item& item : items) {
    out.push_back(&item == items.data() ? '?' : '&');
    common::append_quote_plus(out, item.key);
    out.push_back('=');
    common::append_quote_plus(out, item.value);
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

namespace {

// Page arithmetic as DRF does it on Python ints, in one type: the limit, offset and count (each at most
// 2^64, the offset saturated there) and their products stay exact in 128 bits.
__extension__ using PageInt = __int128;
__extension__ using PageUnsigned = unsigned __int128;

std::string page_int_text(PageInt v) {
  const bool negative = v < 0;
  auto u = static_cast<PageUnsigned>(negative ? -v : v);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  } while (u != 0);
  return negative ? "-" + digits : digits;
}

// Python's ceil division as DRF's _divide_with_ceil does it (floor division rounds towards -inf).
PageInt divide_with_ceil(PageInt a, PageInt b) {
  PageInt q = a / b;
  if (a % b != 0 && (a < 0) == (b < 0)) ++q;
  return q;
}

// _get_displayed_page_numbers: the first, last, current and its neighbours; 0 stands for a break.
std::vector<PageInt> displayed_page_numbers(PageInt current, PageInt final) {
  std::vector<PageInt> shown;
  if (final <= 5) {
    for (PageInt n = 1; n <= final; ++n)
      shown.push_back(n);
    return shown;
  }
  std::vector<PageInt> included = {1, current - 1, current, current + 1, final};
  if (current <= 4) included.insert(included.end(), {2, 3});
  if (current >= final - 3) included.insert(included.end(), {final - 1, final - 2});
  std::sort(included.begin(), included.end());
  included.erase(std::unique(included.begin(), included.end()), included.end());
  for (const PageInt n : included)
    if (n > 0 && n <= final) shown.push_back(n);
  if (current > 4) shown.insert(shown.begin() + 1, 0);  // 0: a break
  if (current < final - 3) shown.insert(shown.end() - 1, 0);
  return shown;
}

}  // namespace

// LimitOffsetPagination.get_html_context with _get_displayed_page_numbers and _get_page_links.
std::optional<PageControls> page_controls(const RequestUrl& url, const Window& window, std::uint64_t count) {
  if (!(BigUint(count) > window.limit)) return std::nullopt;  // display_page_controls
  const auto limit = static_cast<PageInt>(window.limit.saturated());
  const auto offset = static_cast<PageInt>(window.offset.saturated());
  PageInt current = divide_with_ceil(offset, limit) + 1;
  const PageInt final = std::max<PageInt>(
      divide_with_ceil(static_cast<PageInt>(count) - offset, limit) + divide_with_ceil(offset, limit), 1);
  current = std::min(current, final);
  PageControls controls;
  controls.previous = previous_link(url, window);
  controls.next = next_link(url, window, count);
  for (const PageInt n : displayed_page_numbers(current, final)) {
    if (n == 0) {
      controls.pages.emplace_back(std::nullopt);
      continue;
    }
    std::string link =
        n == 1 ? rebuild_url(url, {}, "offset")
               : rebuild_url(url, {{"offset", page_int_text(offset + (n - current) * limit)}}, {});
    controls.pages.emplace_back(
        PageControls::Link{static_cast<std::int64_t>(n), std::move(link), n == current});
  }
  return controls;
}

}  // namespace entimg::mock::detail
