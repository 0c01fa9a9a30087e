#include "entimg/mock/server.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include "entimg/common/ascii.hpp"

namespace entimg::mock {

struct MockServer::Impl {
  RequestHandler handler;
  ServerOptions options;
  std::unique_ptr<FaultPlanner> planner;
  httplib::Server server;
  // Delays and slow bodies wait on this, so that stop() does not wait for them.
  std::mutex stop_mutex;
  std::condition_variable stop_cv;
  bool stopping = false;
  std::mutex log_mutex;

  // Sleeps for d; false when the server is stopping.
  bool pause(std::chrono::milliseconds d) {
    std::unique_lock lock(stop_mutex);
    return !stop_cv.wait_for(lock, d, [this] { return stopping; });
  }
  std::thread thread;
  // httplib's stop() is a no-op until its listen loop has started; these close that window.
  std::atomic<bool> stop_requested{false};
  std::atomic<bool> run_active{false};
  std::atomic<int> listen_fd{-1};
};

namespace {

// The request being handled on this worker thread, for the log line written after the answer.
struct Current {
  std::chrono::steady_clock::time_point started;
  bool dropped = false;
};
thread_local Current current;

// cpp-httplib parses a multipart/form-data body itself while a handler reads it, and 0.11 fails (with
// std::bad_function_call) when the handler asks for the raw bytes. The mock reads multipart bodies as
// Django does, so the pre-routing handler swaps the type for a neutral one and keeps the real value here,
// on the worker thread that goes on to read the body and answer.
thread_local std::optional<std::string> hidden_content_type;

std::string address_text(const sockaddr_storage& a, int& port) {
  char text[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&a);
    port = ntohs(v4->sin_port);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
  } else if (a.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&a);
    port = ntohs(v6->sin6_port);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
  }
  return text;
}

// Closes this request's connection without a byte of answer (--drop-rate, X-Mock-Drop). cpp-httplib
// does not hand its socket to handlers, so the socket is the one whose peer is this request's; the
// worker owns it until the handler returns, so it cannot be another connection's.
void drop_connection(const httplib::Request& req) {
  DIR* fds = opendir("/proc/self/fd");
  if (fds == nullptr) return;
  while (const dirent* entry = readdir(fds)) {
    const int fd = std::atoi(entry->d_name);
    if (fd <= 2 || fd == dirfd(fds)) continue;
    sockaddr_storage peer{}, local{};
    socklen_t peer_size = sizeof peer, local_size = sizeof local;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_size) != 0)
      continue;
    int peer_port = 0, local_port = 0;
    const std::string peer_address = address_text(peer, peer_port);
    (void)address_text(local, local_port);
    if (peer_port == req.remote_port && local_port == req.local_port && peer_address == req.remote_addr) {
      ::shutdown(fd, SHUT_RDWR);
      break;
    }
  }
  closedir(fds);
}

// Answers one request (its body already read, when it has one) through faults, CORS and the handler.
void answer(MockServer::Impl& impl, const httplib::Request& req, httplib::Response& res, std::string body) {
  // Django ignores Range, but cpp-httplib would cut our JSON to the requested bytes (answering
  // 200 with a fragment). The request is cpp-httplib's own non-const object, handed to handlers
  // as const; dropping the ranges it parsed is the one way to keep it from doing so.
  const_cast<httplib::Request&>(req).ranges.clear();
  HttpRequest request;
  request.method = req.method;
  request.target = req.target;
  request.headers.reserve(req.headers.size());
  for (const auto& [name, value] : req.headers)
    // The swapped header (cpp-httplib finds it whatever its case) gets its real value back, once.
    request.headers.emplace_back(name, hidden_content_type && common::iequals_ascii(name, "Content-Type")
                                           ? *std::exchange(hidden_content_type, std::nullopt)
                                           : value);
  hidden_content_type.reset();
  // cpp-httplib would gzip or brotli-compress the answer for a client that offers either; DRF never
  // does, and --gzip compresses as Django's GZipMiddleware would. Its own object, as above.
  const_cast<httplib::Request&>(req).headers.erase("Accept-Encoding");
  request.server_authority = impl.options.host + ":" + std::to_string(req.local_port);
  request.body = std::move(body);

  HttpResponse response;
  Plan plan;
  if (auto preflight = cors_preflight(impl.options.cors, request)) {
    response = std::move(*preflight);
  } else {
    plan = impl.planner->plan(request);
    if (plan.refusal) {
      response = std::move(*plan.refusal);
    } else {
      if (plan.delay.count() > 0 && !impl.pause(plan.delay)) plan.drop = true;  // stopping
      if (plan.drop) {
        drop_connection(req);
        current.dropped = true;
        res.status = 500;  // never sent: the connection is gone
        return;
      }
      response = plan.fail_status ? failure_response(*plan.fail_status) : impl.handler(request);
    }
    add_cors_headers(impl.options.cors, request, response);
  }
  if (impl.options.gzip) apply_gzip_middleware(request, response);  // the outermost middleware

  res.status = response.status;
  for (auto& [name, value] : response.headers)
    res.set_header(name.c_str(), value);
  // Without it cpp-httplib adds "Accept-Ranges: bytes" to HEAD answers only, so HEAD's headers
  // would differ from GET's; "none" is also the truth: no ranges are served.
  res.set_header("Accept-Ranges", "none");
  if (plan.slow_body_bps > 0 && !response.body.empty() && req.method != "HEAD") {
    // A body that trickles: a tenth of the rate every 100 ms, until it is all sent or the server stops.
    auto sent = std::make_shared<std::string>(std::move(response.body));
    const std::size_t chunk = std::max<std::uint64_t>(1, plan.slow_body_bps / 10);
    res.set_content_provider(
        sent->size(), response.content_type,
        [&impl, sent, chunk](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
          if (!impl.pause(std::chrono::milliseconds(100))) return false;
          return sink.write(sent->data() + offset, std::min(chunk, length));
        });
    return;
  }
  // cpp-httplib writes Content-Length for a non-empty body (HEAD included); Django sends
  // "Content-Length: 0" for an empty one, which cpp-httplib would leave out.
  if (response.body.empty()) res.set_header("Content-Length", "0");
  if (!response.content_type.empty()) res.set_header("Content-Type", response.content_type);
  res.body = std::move(response.body);
  return;
}

// Closes the connection after this answer. cpp-httplib adds its own "Connection: close" when the request
// says exactly "close"; a second line would be one DRF never sends.
void close_after(const httplib::Request& req, httplib::Response& res) {
  if (req.get_header_value("Connection") != "close") res.set_header("Connection", "close");
}

bool has_body(const httplib::Request& req) {
  const std::string length = req.get_header_value("Content-Length");
  return req.has_header("Transfer-Encoding") ||
         (!length.empty() && length.find_first_not_of('0') != std::string::npos);
}

void install_handler(httplib::Server& server, MockServer::Impl& impl) {
  // One pre-routing handler answers every method and path, so that routing, 404s and 301s follow
  // Django rather than cpp-httplib's own router. Requests that carry a body to a method that may
  // have one go on to the content-reader handlers below, which read it (up to --max-body) first.
  server.set_pre_routing_handler([&impl](const httplib::Request& req, httplib::Response& res) {
    current = Current{std::chrono::steady_clock::now(), false};
    const bool with_body =
        req.method == "POST" || req.method == "PUT" || req.method == "PATCH" || req.method == "DELETE";
    hidden_content_type.reset();
    if (!with_body && has_body(req)) {
      // A body on GET, HEAD or OPTIONS is not read; the connection closes after the answer, so its bytes
      // are never taken for the next request.
      answer(impl, req, res, {});
      close_after(req, res);
      return httplib::Server::HandlerResponse::Handled;
    }
    if (with_body && has_body(req)) {
      if (req.is_multipart_form_data()) {
        auto& headers = const_cast<httplib::Request&>(req).headers;  // cpp-httplib's own object, as above
        const auto it = headers.find("Content-Type");
        hidden_content_type = it->second;
        it->second = "application/octet-stream";
      }
      return httplib::Server::HandlerResponse::Unhandled;
    }
    answer(impl, req, res, {});
    return httplib::Server::HandlerResponse::Handled;
  });
  const auto read_then_answer = [&impl](const httplib::Request& req, httplib::Response& res,
                                        const httplib::ContentReader& content_reader) {
    const std::uint64_t limit = impl.options.max_body;
    const std::string length = req.get_header_value("Content-Length");
    const bool digits = !length.empty() && length.find_first_not_of("0123456789") == std::string::npos;
    const std::string significant =
        digits ? length.substr(std::min(length.find_first_not_of('0'), length.size() - 1)) : "";
    bool too_large = digits && (significant.size() > 19 || std::stoull(significant) > limit);
    std::string body;
    if (!too_large) {
      const bool read = content_reader([&](const char* data, std::size_t size) {
        if (body.size() + size > limit) {
          too_large = true;
          return false;
        }
        body.append(data, size);
        return true;
      });
      if (!read && !too_large) {  // the client went away or sent a broken chunked body
        res.status = 400;
        close_after(req, res);
        return;
      }
    }
    if (too_large) {
      // nginx refuses without reading further, and closes the connection.
      HttpResponse refusal = failure_response(413);
      res.status = refusal.status;
      for (auto& [name, value] : refusal.headers)
        res.set_header(name.c_str(), value);
      res.set_content(refusal.body, refusal.content_type.c_str());
      return;
    }
    answer(impl, req, res, std::move(body));
  };
  server.Post(".*", read_then_answer);
  server.Put(".*", read_then_answer);
  server.Patch(".*", read_then_answer);
  server.Delete(".*", read_then_answer);
  if (impl.options.log != LogFormat::none) {
    server.set_logger([&impl](const httplib::Request& req, const httplib::Response& res) {
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - current.started)
              .count();
      const std::uint64_t bytes = res.content_length_ > 0 ? res.content_length_ : res.body.size();
      const std::string line = log_line(impl.options.log, req.method, req.target,
                                        current.dropped ? 0 : res.status, current.dropped ? 0 : bytes, ms);
      const std::lock_guard lock(impl.log_mutex);
      std::cerr << line << '\n';
    });
  }
}

}  // namespace

MockServer::MockServer(std::shared_ptr<const Service> service, ServerOptions options)
    : MockServer([service](const HttpRequest& request) { return service->handle(request); },
                 std::move(options)) {}

MockServer::MockServer(RequestHandler handler, ServerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->handler = std::move(handler);
  impl_->options = std::move(options);
  auto& server = impl_->server;
  const std::size_t threads = impl_->options.threads;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server.set_keep_alive_max_count(100000);
  server.set_tcp_nodelay(true);
  // cpp-httplib's default is SO_REUSEPORT, which lets a second mock bind the same port and the
  // kernel then splits requests between the two. SO_REUSEADDR alone still allows quick restarts.
  server.set_socket_options([impl = impl_.get()](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    impl->listen_fd = static_cast<int>(sock);
  });
  impl_->planner = std::make_unique<FaultPlanner>(impl_->options.faults);
  install_handler(server, *impl_);
}

MockServer::~MockServer() {
  stop();
}

int MockServer::bind() {
  if (port_ > 0) return port_;
  auto& options = impl_->options;
  if (options.port == 0) {
    port_ = impl_->server.bind_to_any_port(options.host);
    if (port_ <= 0) throw std::runtime_error("cannot listen on " + options.host + " (any port)");
  } else {
    if (!impl_->server.bind_to_port(options.host, options.port))
      throw std::runtime_error("cannot listen on " + options.host + ":" + std::to_string(options.port) +
                               " (in use, or not an address of this machine?)");
    port_ = options.port;
  }
  // Debian's libcpp-httplib is built with a listen backlog of 5: 32 clients connecting at once
  // overflow it and wait a second for a SYN retry. Listening again on the bound socket raises it.
  if (const int fd = impl_->listen_fd; fd >= 0) ::listen(fd, SOMAXCONN);
  return port_;
}

bool MockServer::run() {
  impl_->run_active = true;
  bool ok = true;
  if (!impl_->stop_requested) ok = impl_->server.listen_after_bind();
  impl_->run_active = false;
  return ok;
}

void MockServer::start() {
  bind();
  impl_->thread = std::thread([this] { run(); });
}

void MockServer::stop() {
  if (!impl_) return;
  impl_->stop_requested = true;
  {
    const std::lock_guard lock(impl_->stop_mutex);
    impl_->stopping = true;
  }
  impl_->stop_cv.notify_all();
  // If run() is under way but its loop has not started yet, wait for the loop so stop() lands.
  while (impl_->run_active && !impl_->server.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string MockServer::url() const {
  const std::string& host = impl_->options.host;
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port_);
}

}  // namespace entimg::mock
