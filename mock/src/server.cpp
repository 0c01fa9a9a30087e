#include "entimg/mock/server.hpp"

#include <algorithm>
#include <exception>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "app.hpp"
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

std::string url_of(const std::string& host, int port) {
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

}  // namespace

// The admin routes on a port of their own (--admin-port): nothing else is served there.
struct AdminOnly final : detail::FrontHandler {
  explicit AdminOnly(detail::MockApp& a) : app(a) {}
  detail::Admission admit(const HttpRequest& request) override { return app.admit_admin_only(request); }
  HttpResponse respond(const HttpRequest&, const Plan&) override { return {}; }  // admit answers all
  void finished(const HttpRequest&, int, std::uint64_t, double) override {}
  detail::MockApp& app;
};

// The epoll front's side of the mock: the application (detail::MockApp: faults, CORS, gzip, admin routes,
// journal, log) and the memo of answers to repeated requests.
struct MockServer::Impl final : detail::FrontHandler {
  Impl(RequestHandler h, ServerOptions o)
      : options(std::move(o)),
        app(std::move(h),
            detail::AppOptions{options.faults, options.cors, options.gzip, options.admin,
                               options.admin_port >= 0, options.journal_size, options.journal_bytes,
                               options.log},
            [this](const std::string& line) {
              const std::lock_guard lock(log_mutex);
              std::cerr << line << '\n';
            }),
        front(detail::FrontOptions{options.host, options.port, worker_count(options.threads), options.limits},
              *this),
        admin_only(app) {
    if (options.admin && options.admin_port >= 0)
      admin_front.emplace(detail::FrontOptions{options.host, options.admin_port, 2, options.limits},
                          admin_only);
  }

  detail::Admission admit(const HttpRequest& request) override { return app.admit(request); }

  HttpResponse respond(const HttpRequest& request, const Plan& plan) override {
    std::optional<std::string> key;
    std::uint64_t version = 0;
    if (memo && !plan.fail_status && (key = AnswerMemo::key_of(request))) {
      version = data_version();
      if (auto kept = memo->find(*key, version)) return std::move(*kept);
    }
    HttpResponse response = app.respond(request, plan);
    if (key) memo->keep(std::move(*key), version, response);
    return response;
  }

  void finished(const HttpRequest& request, int status, std::uint64_t bytes, double milliseconds) override {
    app.finished(request, status, bytes, milliseconds);
  }

  std::function<std::uint64_t()> data_version;  // set for the service, whose answers the memo keeps
  std::optional<AnswerMemo> memo;
  ServerOptions options;
  std::mutex log_mutex;
  detail::MockApp app;
  detail::ConnectionFront front;
  AdminOnly admin_only;
  std::optional<detail::ConnectionFront> admin_front;  // with --admin-port
  std::thread thread, admin_thread;
};

MockServer::MockServer(std::shared_ptr<const Service> service, ServerOptions options)
    : MockServer([service](const HttpRequest& request) { return service->handle(request); },
                 std::move(options)) {
  impl_->app.set_reset_uploads([service] { return service->reset_uploads(); });
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
  if (impl_->admin_front && admin_port_ == 0) admin_port_ = impl_->admin_front->bind();
  return port_;
}

bool MockServer::run() {
  bind();
  if (impl_->admin_front && !impl_->admin_thread.joinable())
    impl_->admin_thread = std::thread([this] { impl_->admin_front->run(); });
  const bool ok = impl_->front.run();
  if (impl_->admin_front) impl_->admin_front->stop();
  if (impl_->admin_thread.joinable()) impl_->admin_thread.join();
  return ok;
}

void MockServer::start() {
  bind();
  impl_->thread = std::thread([this] { run(); });
}

void MockServer::stop() {
  if (!impl_) return;
  impl_->front.stop();
  if (impl_->admin_front) impl_->admin_front->stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string MockServer::admin_url() const {
  if (!impl_->app.admin()) return "";
  return impl_->admin_front ? url_of(impl_->options.host, admin_port_) + "/__mock/" : url() + "/__mock/";
}

std::string MockServer::url() const {
  return url_of(impl_->options.host, port_);
}

}  // namespace entimg::mock
