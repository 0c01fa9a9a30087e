#pragma once
// The admin routes (--admin): what a frontend's end-to-end test uses to steer the mock and to check what
// its app asked. They live under /__mock/, which no DRF route can be, or on a port of their own
// (--admin-port). docs/mock.md, "Admin routes".
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "entimg/mock/faults.hpp"
#include "entimg/mock/http_types.hpp"
#include "journal.hpp"

namespace entimg::mock::detail {

inline constexpr std::string_view kAdminPrefix = "/__mock/";

/// Who may reach the admin routes (docs/mock.md, "Admin routes"): as Django's ALLOWED_HOSTS and CSRF origin
/// check guard a site, so that no web page can drive them (issue 43: a cross-site text/plain POST reset the
/// mock; a DNS-rebinding page read the journal).
struct AdminAccess {
  std::string listen_host;                ///< the address the server listens on (a wildcard adds nothing)
  std::string admin_host;                 ///< --admin-host ('*': any Host)
  std::vector<std::string> cors_origins;  ///< --cors: origins (not '*') whose pages may write
};

struct AdminContext {
  RequestJournal& journal;
  FaultPlanner& planner;
  FaultOptions start_faults;                   ///< what POST /__mock/reset goes back to
  std::function<std::size_t()> reset_uploads;  ///< removes the uploads since the start; may be empty
  AdminAccess access = {};
};

/// Why the admin routes refuse a request, or "": a Host that is none of localhost, *.localhost, 127.x.x.x,
/// [::1], the listening address or --admin-host; a write (any method but GET, HEAD, OPTIONS) sent cross-site:
/// an Origin other than the request's own (http:// or https:// and its Host) or a --cors origin, or
/// Sec-Fetch-Site other than same-origin or none. A request without Host, Origin or Sec-Fetch-Site (curl, a
/// test's HTTP client) is let in.
std::string admin_refusal(const AdminAccess& access, const HttpRequest& request);

/// Whether the request's path is under /__mock/.
bool is_admin_path(std::string_view target);

/// The answer to a request for an admin route: the journal (GET, DELETE /__mock/requests, GET
/// /__mock/requests/count), POST /__mock/reset, GET and PUT /__mock/faults; 404 and 405 as DRF words
/// them for the rest; 400 with a message for a filter or a body it cannot use.
HttpResponse admin_answer(AdminContext& context, const HttpRequest& request);

}  // namespace entimg::mock::detail
