#include "app.hpp"

#include <exception>

#include "admin.hpp"
#include "entimg/common/terminal_text.hpp"
#include "entimg/mock/security_headers.hpp"
#include "journal.hpp"

namespace entimg::mock::detail {

struct MockApp::State {
  State(RequestHandler h, AppOptions o, LogSink l)
      : handler(std::move(h)), options(std::move(o)), log(std::move(l)), planner(options.faults) {
    if (!options.admin) return;
    journal.emplace(options.journal_size, options.journal_bytes, options.journal_credentials);
    std::vector<std::string> origins;
    for (const std::string& origin : options.cors.origins)
      if (origin != "*") origins.push_back(origin);
    admin.emplace(AdminContext{*journal,
                               planner,
                               options.faults,
                               {},
                               AdminAccess{options.listen_host, options.admin_host, std::move(origins)}});
  }
  RequestHandler handler;
  AppOptions options;
  LogSink log;
  FaultPlanner planner;
  std::optional<RequestJournal> journal;  // with --admin
  std::optional<AdminContext> admin;
};

MockApp::MockApp(RequestHandler handler, AppOptions options, LogSink log)
    : state_(std::make_unique<State>(std::move(handler), std::move(options), std::move(log))) {}

MockApp::~MockApp() = default;

bool MockApp::admin() const {
  return state_->admin.has_value();
}

void MockApp::set_reset_uploads(std::function<std::size_t()> reset) {
  if (state_->admin) state_->admin->reset_uploads = std::move(reset);
}

Admission MockApp::admit(const HttpRequest& request) {
  Admission admission;
  if (auto preflight = cors_preflight(state_->options.cors, request)) {
    admission.response = std::move(*preflight);
  } else if (state_->admin && state_->options.admin_port < 0 && is_admin_path(request.target)) {
    admission.response = admin_answer(*state_->admin, request);
    admission.response->passed = DjangoMiddleware::none;  // the mock's own routes
  } else {
    admission.plan = state_->planner.plan(request);
    if (admission.plan.refusal) admission.response = std::move(*admission.plan.refusal);
  }
  if (admission.response) wrap(request, *admission.response);
  return admission;
}

Admission MockApp::admit_admin_only(const HttpRequest& request) {
  Admission admission;
  if (auto preflight = cors_preflight(state_->options.cors, request))
    admission.response = std::move(*preflight);
  else if (is_admin_path(request.target) && state_->admin)
    admission.response = admin_answer(*state_->admin, request);
  else
    admission.response =
        HttpResponse{404, "application/json", {}, R"({"detail":"only /__mock/ routes here"})"};
  admission.response->passed = DjangoMiddleware::none;
  add_cors_headers(state_->options.cors, request, *admission.response);
  return admission;
}

HttpResponse MockApp::respond(const HttpRequest& request, const Plan& plan) {
  HttpResponse response;
  if (plan.fail_status) {
    response = failure_response(*plan.fail_status);
  } else {
    try {
      response = state_->handler(request);
    } catch (const std::exception& e) {
      // A bug, not the client's doing: answered as Django answers an unhandled exception.
      response = failure_response(500);
      if (state_->log)
        state_->log("entities-images-mock: error answering " +
                    common::printable(request.method + " " + request.target + ": " + e.what()));
    }
  }
  wrap(request, response);
  return response;
}

void MockApp::finished(const HttpRequest& request, int status, std::uint64_t body_bytes,
                       double milliseconds) {
  if (state_->journal && (state_->options.admin_port >= 0 || !is_admin_path(request.target)))
    state_->journal->add(request, status, body_bytes, milliseconds);
  if (state_->options.log == LogFormat::none || !state_->log) return;
  state_->log(
      log_line(state_->options.log, request.method, request.target, status, body_bytes, milliseconds));
}

// The middleware around the view, innermost first: CORS, then --gzip, then Django's security headers
// (both of startproject's middleware, whose header order a client cannot see).
void MockApp::wrap(const HttpRequest& request, HttpResponse& response) const {
  add_cors_headers(state_->options.cors, request, response);
  if (state_->options.gzip) apply_gzip_middleware(request, response);
  if (!state_->options.no_security_headers) add_security_headers(response);
}

}  // namespace entimg::mock::detail
