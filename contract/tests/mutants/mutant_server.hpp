#pragma once
// Serves a behaviour over an upstream on 127.0.0.1: each request's correct answer, changed as the
// behaviour says, framed as its Wire says. Built on RawServer so framing, lengths and closes can be
// wrong in ways an HTTP library would not send.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

#include "broken/raw_server.hpp"
#include "mutants.hpp"

namespace entimg::mutants {

class MutantServer {
 public:
  /// Gives the answer to a call (the upstream's, changed or not) and may change its framing.
  using Respond = std::function<mock::HttpResponse(const Call&, Wire&)>;

  /// port 0 picks a free port.
  MutantServer(Upstream& upstream, Respond respond, int port = 0);
  std::string url() const { return server_.url(); }
  /// Requests answered so far.
  std::uint64_t requests() const { return nth_; }

 private:
  void serve(broken::RawServer::Connection& connection);
  Upstream& upstream_;
  Respond respond_;
  std::atomic<std::uint64_t> nth_{0};
  broken::RawServer server_;  // last: its threads use the members above
};

/// A mutant as a behaviour; `touched` counts the answers it changed.
MutantServer::Respond respond_with(const Mutant& mutant, std::atomic<std::uint64_t>& touched);

/// The request head as the service reads it.
mock::HttpRequest parse_head(const std::string& head, int port);
/// The answer's bytes: status line, headers, framing and body as wire says.
std::string wire_bytes(const mock::HttpRequest& request, const mock::HttpResponse& answer, const Wire& wire);

}  // namespace entimg::mutants
