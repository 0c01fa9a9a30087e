#include "entimg/mock/server.hpp"

#include <algorithm>
#include <exception>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "connection_front.hpp"

namespace entimg::mock {

namespace {

std::size_t worker_count(std::size_t asked) {
  if (asked > 0) return asked;
  // Workers only compute answers (no connection holds one), so a few beyond the cores cover the
  // moments one of them writes an upload to --state.
  return std::max(2u, std::thread::hardware_concurrency()) + 2;
}

// Answers to repeated requests on unchanged data. Whatever the service reads is in the key (method,
// target, every header, the address), so an equal key at an equal data version has an equal answer.
class AnswerMemo {
 public:
  explicit AnswerMemo(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  static std::optional<std::string> key_of(const HttpRequest& request) {
    if ((request.method != "GET" && request.method != "HEAD") || !request.body.empty()) return std::nullopt;
    std::string key = request.method;
    key.append(1, '\0').append(request.target).append(1, '\0').append(request.server_authority);
    for (const auto& [name, value] : request.headers)
      key.append(1, '\0').append(name).append(1, '\n').append(value);
    return key;
  }

  std::optional<HttpResponse> find(const std::string& key, std::uint64_t version) {
    const std::lock_guard lock(mutex_);
    const auto it = answers_.find(key);
    if (it == answers_.end() || it->second.version != version) return std::nullopt;
    return it->second.response;
  }

  void keep(std::string key, std::uint64_t version, const HttpResponse& response) {
    const std::size_t size = key.size() + response.body.size() + 256;
    if (response.status != 200 || size > max_bytes_ / 16) return;
    const std::lock_guard lock(mutex_);
    if (bytes_ + size > max_bytes_) {  // full: start again rather than track an order
      answers_.clear();
      bytes_ = 0;
    }
    auto [it, added] = answers_.try_emplace(std::move(key), Entry{version, response});
    if (added) {
      bytes_ += size;
    } else {
      it->second = Entry{version, response};  // a newer version of the same request
    }
  }

 private:
  struct Entry {
    std::uint64_t version;
    HttpResponse response;
  };
  std::size_t max_bytes_;
  std::mutex mutex_;
  std::unordered_map<std::string, Entry> answers_;
  std::size_t bytes_ = 0;
};

}  // namespace

// The mock's side of the front: faults, CORS, gzip and the log around the service.
struct MockServer::Impl final : detail::FrontHandler {
  Impl(RequestHandler h, ServerOptions o)
      : handler(std::move(h)),
        options(std::move(o)),
        planner(options.faults),
        front(detail::FrontOptions{options.host, options.port, worker_count(options.threads), options.limits},
              *this) {}

  detail::Admission admit(const HttpRequest& request) override {
    detail::Admission admission;
    if (auto preflight = cors_preflight(options.cors, request)) {
      admission.response = std::move(*preflight);
    } else {
      admission.plan = planner.plan(request);
      if (admission.plan.refusal) admission.response = std::move(*admission.plan.refusal);
    }
    if (admission.response) wrap(request, *admission.response);
    return admission;
  }

  HttpResponse respond(const HttpRequest& request, const Plan& plan) override {
    std::optional<std::string> key;
    std::uint64_t version = 0;
    if (memo && !plan.fail_status && (key = AnswerMemo::key_of(request))) {
      version = data_version();
      if (auto kept = memo->find(*key, version)) return std::move(*kept);
    }
    HttpResponse response;
    if (plan.fail_status) {
      response = failure_response(*plan.fail_status);
    } else {
      try {
        response = handler(request);
      } catch (const std::exception& e) {
        // A bug, not the client's doing: answered as Django answers an unhandled exception.
        response = failure_response(500);
        const std::lock_guard lock(log_mutex);
        std::cerr << "entities-images-mock: error answering " << request.method << " " << request.target
                  << ": " << e.what() << '\n';
      }
    }
    wrap(request, response);
    if (key) memo->keep(std::move(*key), version, response);
    return response;
  }

  void finished(const HttpRequest& request, int status, std::uint64_t bytes, double milliseconds) override {
    if (options.log == LogFormat::none) return;
    const std::string line =
        log_line(options.log, request.method, request.target, status, bytes, milliseconds);
    const std::lock_guard lock(log_mutex);
    std::cerr << line << '\n';
  }

  // The middleware around the view, innermost first: CORS, then --gzip.
  void wrap(const HttpRequest& request, HttpResponse& response) const {
    add_cors_headers(options.cors, request, response);
    if (options.gzip) apply_gzip_middleware(request, response);
  }

  RequestHandler handler;
  std::function<std::uint64_t()> data_version;  // set for the service, whose answers the memo keeps
  std::optional<AnswerMemo> memo;
  ServerOptions options;
  FaultPlanner planner;
  detail::ConnectionFront front;
  std::mutex log_mutex;
  std::thread thread;
  std::mutex run_mutex;
};

MockServer::MockServer(std::shared_ptr<const Service> service, ServerOptions options)
    : MockServer([service](const HttpRequest& request) { return service->handle(request); },
                 std::move(options)) {
  if (impl_->options.memo_bytes == 0) return;
  impl_->data_version = [service] { return service->data_version(); };
  impl_->memo.emplace(impl_->options.memo_bytes);
}

MockServer::MockServer(RequestHandler handler, ServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(handler), std::move(options))) {}

MockServer::~MockServer() {
  stop();
}

int MockServer::bind() {
  if (port_ == 0) port_ = impl_->front.bind();
  return port_;
}

bool MockServer::run() {
  bind();
  return impl_->front.run();
}

void MockServer::start() {
  bind();
  impl_->thread = std::thread([this] { impl_->front.run(); });
}

void MockServer::stop() {
  if (!impl_) return;
  impl_->front.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string MockServer::url() const {
  const std::string& host = impl_->options.host;
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port_);
}

}  // namespace entimg::mock
