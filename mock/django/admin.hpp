#pragma once
// The admin routes (--admin): what a frontend's end-to-end test uses to steer the mock and to check what
// its app asked. They live under /__mock/, which no DRF route can be, or on a port of their own
// (--admin-port). docs/mock.md, "Admin routes".
#include <cstddef>
#include <functional>
#include <string_view>

#include "entimg/mock/faults.hpp"
#include "entimg/mock/http_types.hpp"
#include "journal.hpp"

namespace entimg::mock::detail {

inline constexpr std::string_view kAdminPrefix = "/__mock/";

struct AdminContext {
  RequestJournal& journal;
  FaultPlanner& planner;
  FaultOptions start_faults;                   ///< what POST /__mock/reset goes back to
  std::function<std::size_t()> reset_uploads;  ///< removes the uploads since the start; may be empty
};

/// Whether the request's path is under /__mock/.
bool is_admin_path(std::string_view target);

/// The answer to a request for an admin route: the journal (GET, DELETE /__mock/requests, GET
/// /__mock/requests/count), POST /__mock/reset, GET and PUT /__mock/faults; 404 and 405 as DRF words
/// them for the rest; 400 with a message for a filter or a body it cannot use.
HttpResponse admin_answer(AdminContext& context, const HttpRequest& request);

}  // namespace entimg::mock::detail
