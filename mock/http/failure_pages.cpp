#include "entimg/mock/failure_pages.hpp"

#include <string>

#include "django_pages.hpp"
#include "fault_statuses.hpp"

namespace entimg::mock {

namespace {

std::string nginx_error_page(std::string_view title) {
  const std::string t(title);
  return "<html>\r\n<head><title>" + t + "</title></head>\r\n<body>\r\n<center><h1>" + t +
         "</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
}

}  // namespace

HttpResponse failure_response(int status) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/html";
  r.passed = DjangoMiddleware::none;
  if (status == 413) {  // nginx's client_max_body_size
    r.body = nginx_error_page("413 Request Entity Too Large");
    r.headers.emplace_back("Connection", "close");
    return r;
  }
  if (status == 416) {  // nginx's range filter, on a file it serves
    r.body = nginx_error_page("416 Requested Range Not Satisfiable");
    return r;
  }
  // What sits in front of or inside a Django deployment sends these (detail::kFaultStatuses); a status
  // the table does not name gets the 429 row's answer under its own status, as mock_failure() may ask.
  const detail::FaultStatus* found = detail::find_fault_status(status);
  const detail::FaultStatus& row = found != nullptr ? *found : *detail::find_fault_status(429);
  if (row.retry_after) r.headers.emplace_back("Retry-After", "1");
  switch (row.page) {
    case detail::FaultPage::django:
      r.passed = DjangoMiddleware::all;
      r.body = detail::django_error_page(row.reason, "");
      break;
    case detail::FaultPage::nginx:
      r.body = nginx_error_page(row.reason);
      break;
    case detail::FaultPage::drf:
      r.passed = DjangoMiddleware::all;
      r.content_type = "application/json";
      r.body = R"({"detail":")" + std::string(row.reason) + R"("})";
      r.headers.emplace_back("Vary", "Accept");
      r.headers.emplace_back("Allow", "GET, POST, HEAD, OPTIONS");
      break;
  }
  return r;
}

}  // namespace entimg::mock
