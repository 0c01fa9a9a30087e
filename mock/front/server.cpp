#include "entimg/mock/server.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "app.hpp"
#include "connection_front.hpp"
#include "entimg/common/prng.hpp"

namespace entimg::mock {

namespace {

std::size_t worker_count(std::size_t asked) {
  if (asked > 0) return asked;
  // Workers only compute answers (no connection holds one), so a few beyond the cores cover the
  // moments one of them writes an upload to --state.
  return std::max(2u, std::thread::hardware_concurrency()) + 2;
}

// The front's options as given, on `workers` threads.
FrontOptions with_workers(const FrontOptions& options, std::size_t workers) {
  FrontOptions front = options;
  front.threads = workers;
  return front;
}

// Answers to repeated requests on unchanged data. Whatever the service reads is in the key (method,
// target, every header, the address), so an equal key at an equal data version has an equal answer.
// A miss costs a hash and a look-up, never a copy: an answer is kept only when its request comes a
// second time (a walk that asks each page once keeps nothing), and only while there is room; once full,
// the memo keeps what it holds until the data changes, which makes every answer stale and starts it
// again. (Starting again whenever it was full made a mix of more pages than it holds copy every answer
// and find none: slower than no memo at all, issue 20.)
class AnswerMemo {
 public:
  explicit AnswerMemo(std::size_t max_bytes) : max_bytes_(max_bytes), seen_(kSeenSlots, 0) {}

  static bool applies_to(const HttpRequest& request) {
    return (request.method == "GET" || request.method == "HEAD") && request.body.empty();
  }

  /// What the memo has for a request: its answer, or whether to offer it the answer once computed.
  struct Lookup {
    std::optional<HttpResponse> answer;
    bool wanted = false;
  };

  /// One look under the lock: the answer kept for this request, else a note that it was asked (the
  /// second time, the answer is wanted, while there is room).
  Lookup look_up(const HttpRequest& request, std::uint64_t version) {
    const std::uint64_t hash = hash_of(request);
    const std::lock_guard lock(mutex_);
    if (version != version_) {  // the data changed: nothing kept holds any longer
      answers_.clear();
      std::fill(seen_.begin(), seen_.end(), 0);
      bytes_ = 0;
      version_ = version;
    }
    Lookup found;
    if (const auto it = answers_.find(hash); it != answers_.end()) {
      if (same_key(it->second.key, request))
        found.answer = it->second.response;  // its body shared, not copied
      return found;  // or another request with the same hash: that one keeps the place
    }
    std::uint64_t& seen = seen_[hash % kSeenSlots];
    found.wanted = seen == hash && bytes_ < max_bytes_;
    seen = hash;
    return found;
  }

  /// Keeps the answer look_up wanted, if it fits and the data has not changed since.
  void keep(const HttpRequest& request, std::uint64_t version, const HttpResponse& response) {
    if (response.status != 200) return;
    std::string key = key_of(request);
    const std::size_t size = key.size() + static_cast<std::size_t>(body_size(response)) + 256;
    if (size > max_bytes_ / 16) return;
    const std::uint64_t hash = hash_of(request);
    const std::lock_guard lock(mutex_);
    if (version != version_ || bytes_ + size > max_bytes_) return;
    HttpResponse kept = response;
    if (!kept.source) kept.source = std::make_shared<const HeldBody>(std::move(kept.body));
    if (answers_.try_emplace(hash, Entry{std::move(key), std::move(kept)}).second) bytes_ += size;
  }

 private:
  static constexpr std::size_t kSeenSlots = 4096;  // hashes of requests asked once, by slot

  // Eight bytes a multiply, each part closed by mix64: no allocation, a few instructions a word.
  static std::uint64_t hash_of(const HttpRequest& request) {
    std::uint64_t h = 0;
    const auto add = [&h](std::string_view part) {
      std::uint64_t word = 0;
      std::size_t at = 0;
      for (; at + 8 <= part.size(); at += 8) {
        std::memcpy(&word, part.data() + at, 8);
        h = (h ^ word) * 0x9e3779b97f4a7c15ULL;
      }
      word = 0;
      if (at < part.size()) std::memcpy(&word, part.data() + at, part.size() - at);
      h = common::mix64(h ^ word ^ (std::uint64_t{part.size()} << 56));  // "ab","c" is not "a","bc"
    };
    add(request.method);
    add(request.target);
    add(request.server_authority);
    for (const auto& header : request.headers) {
      add(header.first);
      add(header.second);
    }
    return h;
  }

  // key == key_of(request), without making the key.
  static bool same_key(std::string_view key, const HttpRequest& request) {
    const auto take = [&key](std::string_view part, std::string_view before) {
      if (!key.starts_with(before) || key.substr(before.size()).substr(0, part.size()) != part) return false;
      key.remove_prefix(before.size() + part.size());
      return true;
    };
    if (!take(request.method, "") || !take(request.target, std::string_view("\0", 1)) ||
        !take(request.server_authority, std::string_view("\0", 1)))
      return false;
    for (const auto& header : request.headers)
      if (!take(header.first, std::string_view("\0", 1)) || !take(header.second, "\n")) return false;
    return key.empty();
  }

  static std::string key_of(const HttpRequest& request) {
    std::string key = request.method;
    key.append(1, '\0').append(request.target).append(1, '\0').append(request.server_authority);
    for (const auto& header : request.headers)
      key.append(1, '\0').append(header.first).append(1, '\n').append(header.second);
    return key;
  }

  struct Entry {
    std::string key;
    HttpResponse response;
  };
  std::size_t max_bytes_;
  std::mutex mutex_;
  std::unordered_map<std::uint64_t, Entry> answers_;  // by hash_of; a colliding key is simply not kept
  std::vector<std::uint64_t> seen_;
  std::size_t bytes_ = 0;
  std::uint64_t version_ = 0;
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

// The application is told the address the front listens on: a Host the admin routes accept.
ServerOptions with_listen_host(ServerOptions o) {
  o.listen_host = o.host;
  return o;
}

// The epoll front's side of the mock: the application (detail::MockApp: faults, CORS, gzip, admin routes,
// journal, log) and the memo of answers to repeated requests.
struct MockServer::Impl final : detail::FrontHandler {
  Impl(RequestHandler h, ServerOptions o)
      : options(with_listen_host(std::move(o))),
        app(std::move(h), options,
            [this](const std::string& line) {
              const std::lock_guard lock(log_mutex);
              std::cerr << line << '\n';
            }),
        front(with_workers(options, worker_count(options.threads)), *this),
        admin_only(app) {
    if (options.admin && options.admin_port >= 0) {
      FrontOptions admin = with_workers(options, 2);
      admin.port = options.admin_port;
      admin_front.emplace(std::move(admin), admin_only);
    }
  }

  detail::Admission admit(const HttpRequest& request) override { return app.admit(request); }

  HttpResponse respond(const HttpRequest& request, const Plan& plan) override {
    AnswerMemo::Lookup memoised;
    std::uint64_t version = 0;
    if (memo && !plan.fail_status && AnswerMemo::applies_to(request)) {
      version = data_version();
      memoised = memo->look_up(request, version);
      if (memoised.answer) return std::move(*memoised.answer);
    }
    HttpResponse response = app.respond(request, plan);
    if (memoised.wanted) memo->keep(request, version, response);
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
