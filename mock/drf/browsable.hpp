#pragma once
// The browsable API page (reference §3.9): what DRF's BrowsableAPIRenderer shows for `?format=api`, a
// `.api` suffix or an HTML Accept: title, breadcrumb, request line, status and headers, the JSON indented
// by 4 with its URLs as links, page-number controls, a format switcher, the entity filter and, for a user
// allowed to POST, an upload form. Same content as DRF's page, in markup of our own that needs no static
// files (DRF's Bootstrap/jQuery assets are not ours to serve); every echoed value is HTML-escaped.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "entimg/common/html.hpp"
#include "entimg/mock/http_types.hpp"
#include "pagination.hpp"

namespace entimg::mock::detail {

struct BrowsablePage {
  std::string_view name;        ///< the view's name: "Entity Image List"
  std::string_view method;      ///< as requested
  std::string full_path;        ///< request.get_full_path(): path and query as received (URI form)
  std::string get_url;          ///< the GET button: the full path
  std::string json_format_url;  ///< the full path with format=json (DRF's replace_query_param)
  std::string api_format_url;   ///< the full path with format=api
  std::vector<std::pair<std::string, std::string>> breadcrumbs;  ///< (name, url), root first
  std::optional<PageControls> pagination;
  bool entity_filter = false;  ///< the list route's filter backend: a Filters form
  bool upload_form = false;    ///< a user allowed to POST: the upload form
  std::string form_action;     ///< where the upload form posts (the full path)
};

/// Django's django.utils.html.escape: & < > " ' as entities (one escaper for both sides' pages).
using common::append_html_escaped;

/// Django's urlize (nofollow, autoescape) as the page applies it to the JSON and header values: words
/// that are http(s) URLs, www./bare .com-style domains or e-mail addresses become links, the rest is
/// escaped. smart_urlquote is taken as the identity (the mock's URLs are already quoted).
void append_urlized(std::string& out, std::string_view text);

/// Renders `json` (the view's JSON answer, indented by 4) as the browsable page: text/html with the
/// view's Allow and Vary headers kept.
HttpResponse render_browsable(HttpResponse json, const BrowsablePage& page);

}  // namespace entimg::mock::detail
