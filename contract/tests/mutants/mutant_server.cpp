#include "mutant_server.hpp"

#include <algorithm>

#include "broken/answer_edit.hpp"
#include "entimg/common/ascii.hpp"
#include "entimg/common/url.hpp"

namespace entimg::mutants {
namespace {

using common::iequals_ascii;

constexpr std::size_t kChunk = 4096;

bool says_chunked(const mock::HttpResponse& answer) {
  return std::any_of(answer.headers.begin(), answer.headers.end(), [](const auto& h) {
    return iequals_ascii(h.first, "Transfer-Encoding") && iequals_ascii(common::trim(h.second), "chunked");
  });
}

std::string hex(std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[n % 16]);
    n /= 16;
  } while (n != 0);
  return out;
}

std::string chunked(std::string_view body, const Wire& wire) {
  std::string out;
  for (std::size_t at = 0; at < body.size(); at += kChunk) {
    const std::string_view piece = body.substr(at, kChunk);
    out += (at == 0 && !wire.first_chunk_size.empty() ? wire.first_chunk_size : hex(piece.size())) + "\r\n";
    out.append(piece);
    out += "\r\n";
  }
  if (!wire.drop_last_chunk) out += "0\r\n\r\n";
  return out;
}

}  // namespace

mock::HttpRequest parse_head(const std::string& head, int port) {
  mock::HttpRequest request;
  request.server_authority = "127.0.0.1:" + std::to_string(port);
  std::size_t line_end = head.find("\r\n");
  const std::string_view line = std::string_view(head).substr(0, line_end);
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = line.find(' ', sp1 + 1);
  request.method = std::string(line.substr(0, sp1));
  if (sp1 != std::string_view::npos) request.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
  while (line_end != std::string::npos && line_end + 2 < head.size()) {
    const std::size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    const std::string_view header = std::string_view(head).substr(start, line_end - start);
    const std::size_t colon = header.find(':');
    if (colon == std::string_view::npos) continue;
    request.headers.emplace_back(std::string(header.substr(0, colon)),
                                 std::string(common::trim(header.substr(colon + 1))));
  }
  return request;
}

std::string wire_bytes(const mock::HttpRequest& request, const mock::HttpResponse& answer, const Wire& wire) {
  const bool head = request.method == "HEAD";
  const bool bodiless = answer.status == 304 || answer.status == 204;
  const bool chunk = !head && !bodiless && (wire.framing == Wire::Framing::Chunked || says_chunked(answer));
  std::string out = "HTTP/1.1 " + std::to_string(answer.status) + " " +
                    std::string(mock::reason_phrase(answer.status)) + "\r\n";
  const auto line = [&](std::string_view name, std::string_view value) {
    out += wire.lower_case_names ? common::ascii_lowered(name) : std::string(name);
    out.append(": ").append(value).append("\r\n");
  };
  if (!answer.content_type.empty()) line("Content-Type", answer.content_type);
  for (const auto& [name, value] : answer.headers)
    if (!iequals_ascii(name, "Transfer-Encoding")) line(name, value);
  if (chunk) {
    line("Transfer-Encoding", "chunked");
  } else if (!bodiless) {
    const auto length = static_cast<std::int64_t>(answer.body.size()) + wire.length_delta;
    line("Content-Length", std::to_string(std::max<std::int64_t>(length, 0)));
  }
  if (wire.close_after) line("Connection", "close");
  out += "\r\n";
  if (bodiless || (head && !wire.body_after_head)) return out;
  const std::string_view body = std::string_view(answer.body).substr(0, wire.cut_body_at);
  if (chunk) {
    std::string framed = chunked(answer.body, wire);
    if (wire.cut_body_at != SIZE_MAX) framed.resize(std::min(framed.size(), wire.cut_body_at));
    return out + framed;
  }
  return out.append(body);
}

MutantServer::MutantServer(Upstream& upstream, Respond respond, int port)
    : upstream_(upstream),
      respond_(std::move(respond)),
      server_([this](broken::RawServer::Connection& connection) { serve(connection); }, port) {}

void MutantServer::serve(broken::RawServer::Connection& connection) {
  do {
    const mock::HttpRequest request = parse_head(connection.request_head(), server_.port());
    const Call call{request, broken::query_of(request), ++nth_, upstream_};
    Wire wire;
    mock::HttpResponse answer;
    try {
      answer = respond_(call, wire);
    } catch (const std::exception& e) {
      // A mutation's own bug: said plainly, as a status no deployment sends.
      answer = {599, "text/plain", {}, std::string("mutation failed: ") + e.what()};
    }
    if (wire.delay.count() > 0 && !connection.pause(wire.delay)) return;
    const std::string bytes = wire_bytes(request, answer, wire);
    const std::size_t head_end = wire.split_after_head ? bytes.find("\r\n\r\n") : std::string::npos;
    if (head_end == std::string::npos) {
      if (!connection.send(bytes)) return;
    } else {
      // Two writes, as a server that sends the head before the body does.
      if (!connection.send(std::string_view(bytes).substr(0, head_end + 4))) return;
      if (wire.split_pause.count() > 0 && !connection.pause(wire.split_pause)) return;
      if (!connection.send(std::string_view(bytes).substr(head_end + 4))) return;
    }
    const auto close = request.header("Connection");
    if (wire.close_after || wire.cut_body_at != SIZE_MAX || (close && iequals_ascii(*close, "close"))) return;
  } while (connection.next_request());
}

MutantServer::Respond respond_with(const Mutant& mutant, std::atomic<std::uint64_t>& touched) {
  return [&mutant, &touched](const Call& call, Wire& wire) {
    mock::HttpResponse answer = call.upstream.handle(call.request);
    if (mutant.applies(call)) {
      const mock::HttpResponse correct = answer;
      mutant.mutate(call, answer, wire);
      // Changed is what goes on the wire: a mutation of next on a page without one changes nothing.
      if (wire_bytes(call.request, answer, wire) != wire_bytes(call.request, correct, Wire{})) ++touched;
    }
    return answer;
  };
}

}  // namespace entimg::mutants
