#include "entimg/mock/server.hpp"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace entimg::mock {

struct MockServer::Impl {
  RequestHandler handler;
  ServerOptions options;
  httplib::Server server;
  std::thread thread;
  // httplib's stop() is a no-op until its listen loop has started; these close that window.
  std::atomic<bool> stop_requested{false};
  std::atomic<bool> run_active{false};
  std::atomic<int> listen_fd{-1};
};

namespace {

void install_handler(httplib::Server& server, const RequestHandler& handler, const std::string& host) {
  // One pre-routing handler answers every method and path, so that routing, 404s and 301s follow
  // Django rather than cpp-httplib's own router.
  server.set_pre_routing_handler([&handler, host](const httplib::Request& req, httplib::Response& res) {
    // Django ignores Range, but cpp-httplib would cut our JSON to the requested bytes (answering
    // 200 with a fragment). The request is cpp-httplib's own non-const object, handed to handlers
    // as const; dropping the ranges it parsed is the one way to keep it from doing so.
    const_cast<httplib::Request&>(req).ranges.clear();
    HttpRequest request;
    request.method = req.method;
    request.target = req.target;
    request.headers.reserve(req.headers.size());
    for (const auto& [name, value] : req.headers)
      request.headers.emplace_back(name, value);
    request.server_authority = host + ":" + std::to_string(req.local_port);
    HttpResponse response = handler(request);
    res.status = response.status;
    for (auto& [name, value] : response.headers)
      res.set_header(name.c_str(), value);
    // cpp-httplib writes Content-Length for a non-empty body (HEAD included); Django sends
    // "Content-Length: 0" for an empty one, which cpp-httplib would leave out.
    if (response.body.empty()) res.set_header("Content-Length", "0");
    if (!response.content_type.empty()) res.set_header("Content-Type", response.content_type);
    // Without it cpp-httplib adds "Accept-Ranges: bytes" to HEAD answers only, so HEAD's headers
    // would differ from GET's; "none" is also the truth: no ranges are served.
    res.set_header("Accept-Ranges", "none");
    res.body = std::move(response.body);
    return httplib::Server::HandlerResponse::Handled;
  });
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
  install_handler(server, impl_->handler, impl_->options.host);
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
