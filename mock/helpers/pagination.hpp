#pragma once
// DRF's LimitOffsetPagination (reference §2), reproduced from its documented behaviour: the
// effective limit and offset, the next/previous links built from the request URL, and the page-number
// controls the browsable API shows (get_html_context).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "entimg/common/url.hpp"
#include "python_number.hpp"

namespace entimg::mock::detail {

inline constexpr std::uint64_t kDefaultLimit = 12;  // PAGE_SIZE (spec §8)

/// The limit and offset a request asks for, after DRF's parsing (reference §2.1).
struct Window {
  BigUint limit{kDefaultLimit};
  BigUint offset{};
};

/// get_limit: a positive Python int, else 12; no maximum. get_offset: a non-negative int, else 0.
/// `params` are the request's parameters after edw's removal of blank ones.
Window read_window(const common::QueryParams& params);

/// The request URL as build_absolute_uri() gives it, split for link building.
struct RequestUrl {
  std::string origin_and_path;  ///< "http://host:port/edw/api/entities-images/"
  common::QueryParams params;   ///< every parameter of the raw query, decoded as parse_qs does
};

/// next: null when offset + limit >= count, else limit and offset + limit set.
std::optional<std::string> next_link(const RequestUrl& url, const Window& window, std::uint64_t count);
/// previous: null when offset <= 0; without offset when offset - limit <= 0; else offset - limit.
std::optional<std::string> previous_link(const RequestUrl& url, const Window& window);

/// DRF's pagination html context (LimitOffsetPagination.get_html_context): page links, `nullopt` a break.
struct PageControls {
  std::optional<std::string> previous, next;
  struct Link {
    std::int64_t number;
    std::string url;
    bool active;
  };
  std::vector<std::optional<Link>> pages;
};

/// The controls the browsable page shows: nullopt unless count > limit (display_page_controls).
std::optional<PageControls> page_controls(const RequestUrl& url, const Window& window, std::uint64_t count);

/// DRF's replace_query_param/remove_query_param: the URL with `set` keys replaced and `drop` removed,
/// parameters sorted by key (urlencode(sorted(...), doseq=True)); no '?' when none are left.
std::string rebuild_url(const RequestUrl& url,
                        const std::vector<std::pair<std::string_view, std::string>>& set,
                        std::string_view drop);

}  // namespace entimg::mock::detail
