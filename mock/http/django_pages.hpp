#pragma once
// Django's own HTML error pages (django.views.defaults.ERROR_PAGE_TEMPLATE, DEBUG off, no templates of
// the project's): what the service answers outside DRF's views, and the 500 a failing deployment sends.
#include <string>
#include <string_view>

#include "entimg/mock/http_types.hpp"

namespace entimg::mock::detail {

inline std::string django_error_page(std::string_view title, std::string_view details) {
  std::string page = "\n<!doctype html>\n<html lang=\"en\">\n<head>\n  <title>";
  page.append(title).append("</title>\n</head>\n<body>\n  <h1>").append(title).append("</h1><p>");
  page.append(details).append("</p>\n</body>\n</html>\n");
  return page;
}

/// Django's 400 page (a DisallowedHost or another SuspiciousOperation).
inline HttpResponse django_bad_request() {
  return HttpResponse{400, "text/html", {}, django_error_page("Bad Request (400)", "")};
}

}  // namespace entimg::mock::detail
