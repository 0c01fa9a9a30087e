#include "http_server.hpp"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

namespace entimg::broken {

struct HandlerServer::Impl {
  Handler handler;
  std::string host;
  int port = 0;
  httplib::Server server;
  std::thread thread;
  bool bound = false;
  // httplib's stop() is a no-op until its listen loop has started; these close that window.
  std::atomic<bool> stop_requested{false};
  std::atomic<bool> run_active{false};
};

HandlerServer::HandlerServer(Handler handler, std::string host, int port) : impl_(std::make_unique<Impl>()) {
  impl_->handler = std::move(handler);
  impl_->host = std::move(host);
  impl_->port = port;
  auto& server = impl_->server;
  server.new_task_queue = [] { return new httplib::ThreadPool(32); };
  server.set_keep_alive_max_count(100000);
  server.set_tcp_nodelay(true);
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  Impl* impl = impl_.get();
  server.set_pre_routing_handler([impl](const httplib::Request& req, httplib::Response& res) {
    mock::HttpRequest request;
    request.method = req.method;
    request.target = req.target;
    for (const auto& [name, value] : req.headers)
      request.headers.emplace_back(name, value);
    request.server_authority = impl->host + ":" + std::to_string(req.local_port);
    mock::HttpResponse response = impl->handler(request);
    res.status = response.status;
    for (auto& [name, value] : response.headers)
      res.set_header(name.c_str(), value);
    // As MockServer: without it cpp-httplib adds "Accept-Ranges: bytes" to HEAD answers only, and
    // HEAD and GET must differ only where a variant makes them.
    res.set_header("Accept-Ranges", "none");
    if (response.body.empty()) res.set_header("Content-Length", "0");
    if (!response.content_type.empty()) res.set_header("Content-Type", response.content_type);
    res.body = std::move(response.body);
    return httplib::Server::HandlerResponse::Handled;
  });
}

HandlerServer::~HandlerServer() {
  stop();
}

int HandlerServer::bind() {
  if (impl_->bound) return port_;
  if (impl_->port == 0) {
    port_ = impl_->server.bind_to_any_port(impl_->host);
    if (port_ <= 0) throw std::runtime_error("cannot listen on " + impl_->host + " (any port)");
  } else {
    if (!impl_->server.bind_to_port(impl_->host, impl_->port))
      throw std::runtime_error("cannot listen on " + impl_->host + ":" + std::to_string(impl_->port) +
                               " (in use, or not an address of this machine?)");
    port_ = impl_->port;
  }
  impl_->bound = true;
  return port_;
}

bool HandlerServer::run() {
  impl_->run_active = true;
  bool ok = true;
  if (!impl_->stop_requested) ok = impl_->server.listen_after_bind();
  impl_->run_active = false;
  return ok;
}

void HandlerServer::start() {
  bind();
  impl_->thread = std::thread([this] { run(); });
}

void HandlerServer::stop() {
  if (!impl_) return;
  impl_->stop_requested = true;
  while (impl_->run_active && !impl_->server.is_running())
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::string HandlerServer::url() const {
  const std::string& host = impl_->host;
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port_);
}

}  // namespace entimg::broken
