#include "request_parser.hpp"

#include <cstring>

#include "entimg/common/ascii.hpp"

namespace entimg::mock::detail {

namespace {

// RFC 9110's tchar: what a method or a header name is made of.
bool is_tchar(unsigned char c) {
  if (c >= '0' && c <= '9') return true;
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
  return std::strchr("!#$%&'*+-.^_`|~", c) != nullptr && c != '\0';
}

bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (!is_tchar(static_cast<unsigned char>(c))) return false;
  return true;
}

// A request-target as WSGI servers take it: anything but spaces and control characters; bytes
// above 0x7F (raw UTF-8 from a client that did not percent-encode) are kept.
bool is_target(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7F) return false;
  }
  return true;
}

std::string_view without_cr(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// Calls f(token) for each comma-separated element of a list header, trimmed, empty ones skipped.
template <class F>
void each_element(std::string_view list, F f) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view element = common::trim(list.substr(0, comma));
    if (!element.empty()) f(element);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
}

// A decimal Content-Length; nullopt-like false when it is not one. Values beyond 19 digits saturate.
bool parse_length(std::string_view s, std::uint64_t& out) {
  if (s.empty() || s.size() > 64) return false;
  std::uint64_t n = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
    n = n > (UINT64_MAX - 9) / 10 ? UINT64_MAX : n * 10 + static_cast<std::uint64_t>(c - '0');
  }
  out = n;
  return true;
}

std::string limit_text(std::size_t limit, const char* flag) {
  return std::to_string(limit) + " bytes (" + flag + ")";
}

}  // namespace

RequestParser::State RequestParser::fail(int status, std::string message) {
  error_ = {status, std::move(message)};
  return state_ = State::failed;
}

RequestParser::State RequestParser::advance(std::string_view buffer) {
  if (state_ == State::head) scan_head(buffer);
  if (state_ == State::body) {
    if (chunked_) return read_chunked(buffer);
    if (buffer.size() - body_start_ >= content_length_) {
      request_.body.assign(buffer.substr(body_start_, content_length_));
      end_ = body_start_ + content_length_;
      state_ = State::complete;
    }
  }
  return state_;
}

RequestParser::State RequestParser::scan_head(std::string_view buffer) {
  // Empty lines before a request are ignored (RFC 9112 §2.2), up to the size a head may have.
  while (!started_ && request_start_ < buffer.size()) {
    if (buffer[request_start_] == '\n') {
      ++request_start_;
    } else if (buffer[request_start_] == '\r') {
      if (request_start_ + 1 >= buffer.size()) return state_;
      if (buffer[request_start_ + 1] != '\n') return fail(400, "a bare CR before the request line");
      request_start_ += 2;
    } else {
      started_ = true;
      scanned_ = line_start_ = request_start_;
    }
    if (request_start_ > limits_.max_head)
      return fail(400, "more empty lines before the request than a head may hold, " +
                           limit_text(limits_.max_head, "--max-head"));
  }
  if (!started_) return state_;
  while (scanned_ < buffer.size()) {
    const void* found = std::memchr(buffer.data() + scanned_, '\n', buffer.size() - scanned_);
    if (found == nullptr) {
      scanned_ = buffer.size();
      break;
    }
    const auto lf = static_cast<std::size_t>(static_cast<const char*>(found) - buffer.data());
    const std::string_view line = without_cr(buffer.substr(line_start_, lf - line_start_));
    scanned_ = line_start_ = lf + 1;
    if (lines_ == 0) {
      if (line.size() > limits_.max_request_line)
        return fail(414,
                    "request line longer than " + limit_text(limits_.max_request_line, "--max-request-line"));
    } else if (line.empty()) {
      if (lf + 1 - request_start_ > limits_.max_head)
        return fail(431, "request head longer than " + limit_text(limits_.max_head, "--max-head"));
      body_start_ = lf + 1;
      return parse_head(buffer.substr(request_start_, lf + 1 - request_start_));
    } else if (line.size() > limits_.max_header_line) {
      return fail(431,
                  "a header line longer than " + limit_text(limits_.max_header_line, "--max-header-line"));
    } else if (lines_ > limits_.max_headers) {
      return fail(431, "more than " + std::to_string(limits_.max_headers) + " header lines (--max-headers)");
    }
    ++lines_;
  }
  // The line under way is already too long: answer now rather than wait for its end.
  const std::size_t partial = without_cr(buffer.substr(line_start_)).size();
  if (lines_ == 0 && partial > limits_.max_request_line)
    return fail(414,
                "request line longer than " + limit_text(limits_.max_request_line, "--max-request-line"));
  if (lines_ > 0 && partial > limits_.max_header_line)
    return fail(431, "a header line longer than " + limit_text(limits_.max_header_line, "--max-header-line"));
  if (buffer.size() - request_start_ > limits_.max_head)
    return fail(431, "request head longer than " + limit_text(limits_.max_head, "--max-head"));
  return state_;
}

RequestParser::State RequestParser::parse_request_line(std::string_view line) {
  const std::size_t first = line.find(' ');
  const std::size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  if (second == std::string_view::npos || line.find(' ', second + 1) != std::string_view::npos)
    return fail(400, "the request line is not 'METHOD TARGET HTTP/1.x'");
  const std::string_view method = line.substr(0, first);
  const std::string_view target = line.substr(first + 1, second - first - 1);
  const std::string_view version = line.substr(second + 1);
  if (!is_token(method)) return fail(400, "the method is not an HTTP token");
  if (!is_target(target)) return fail(400, "the request target is empty or holds a control character");
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.' ||
      !common::ascii_digit(version[5]) || !common::ascii_digit(version[7]))
    return fail(400, "the HTTP version is not 'HTTP/1.0' or 'HTTP/1.1'");
  if (version[5] != '1') return fail(505, "only HTTP/1.0 and HTTP/1.1 are served");
  request_.method = method;
  request_.target = target;
  request_.minor_version = version[7] == '0' ? 0 : 1;
  return state_;
}

RequestParser::State RequestParser::parse_head(std::string_view head) {
  std::size_t pos = head.find('\n');
  if (parse_request_line(without_cr(head.substr(0, pos))) == State::failed) return state_;
  bool close = false, keep_alive = false;
  for (++pos; pos < head.size();) {
    const std::size_t lf = head.find('\n', pos);
    const std::string_view line = without_cr(head.substr(pos, lf - pos));
    pos = lf + 1;
    if (line.empty()) break;
    if (line.front() == ' ' || line.front() == '\t')
      return fail(400, "a header line folded onto the next (obsolete line folding)");
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return fail(400, "a header line without a colon");
    const std::string_view name = line.substr(0, colon);
    if (!is_token(name)) return fail(400, "a header name that is not an HTTP token");
    const std::string_view value = common::trim(line.substr(colon + 1));
    for (const char c : value) {
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && u != '\t') || u == 0x7F) return fail(400, "a header value holds a control character");
    }
    if (common::iequals_ascii(name, "Connection"))
      each_element(value, [&](std::string_view token) {
        close = close || common::iequals_ascii(token, "close");
        keep_alive = keep_alive || common::iequals_ascii(token, "keep-alive");
      });
    if (common::iequals_ascii(name, "Expect") && common::iequals_ascii(value, "100-continue"))
      expect_continue_ = request_.minor_version == 1;
    request_.headers.emplace_back(name, value);
  }
  request_.keep_alive = !close && (request_.minor_version == 1 || keep_alive);
  return frame_body();
}

RequestParser::State RequestParser::frame_body() {
  bool has_te = false, has_length = false, last_chunked = false, other_coding = false;
  std::uint64_t length = 0;
  for (const auto& [name, value] : request_.headers) {
    if (common::iequals_ascii(name, "Transfer-Encoding")) {
      has_te = true;
      each_element(value, [&](std::string_view coding) {
        other_coding = other_coding || last_chunked;  // a coding after chunked
        last_chunked = common::iequals_ascii(coding, "chunked");
        other_coding = other_coding || !last_chunked;
      });
    } else if (common::iequals_ascii(name, "Content-Length")) {
      bool ok = true;
      each_element(value, [&](std::string_view element) {
        std::uint64_t n = 0;
        if (!parse_length(element, n) || (has_length && n != length)) ok = false;
        length = n;
        has_length = true;
      });
      if (!ok || !has_length) return fail(400, "Content-Length is not one decimal number");
    }
  }
  if (has_te) {
    if (request_.minor_version == 0) return fail(400, "Transfer-Encoding in an HTTP/1.0 request");
    if (has_length) return fail(400, "both Transfer-Encoding and Content-Length");
    if (!last_chunked) return fail(400, "Transfer-Encoding does not end with chunked");
    if (other_coding) return fail(501, "only the chunked transfer coding is served");
    chunked_ = true;
    chunk_pos_ = body_start_;
    return state_ = State::body;
  }
  if (length > limits_.max_body)
    return fail(413, "a body of " + std::to_string(length) + " bytes, above " +
                         limit_text(static_cast<std::size_t>(limits_.max_body), "--max-body"));
  content_length_ = length;
  return state_ = State::body;  // advance() completes it at once when it is empty
}

// A chunked body, step by step as its bytes come: a chunk-size line, that many bytes of data and their
// CRLF, again until the size 0, then trailer lines up to an empty one. Each step returns `state_` while it
// waits for more bytes, moves chunk_state_ on when it is done, and fails on a line or chunk too long.
RequestParser::State RequestParser::read_chunked(std::string_view buffer) {
  while (chunk_pos_ < buffer.size() || chunk_state_ == Chunk::data) {
    const Chunk before = chunk_state_;
    const std::size_t at = chunk_pos_;
    const State state = chunk_state_ == Chunk::data       ? read_chunk_data(buffer)
                        : chunk_state_ == Chunk::data_end ? read_chunk_end(buffer)
                                                          : read_chunk_line(buffer);
    if (state != State::body || (chunk_state_ == before && chunk_pos_ == at)) return state;
  }
  return state_;
}

// A chunk-size line or a trailer line, once it is whole.
RequestParser::State RequestParser::read_chunk_line(std::string_view buffer) {
  const std::size_t lf = buffer.find('\n', chunk_pos_);
  const std::size_t limit =
      chunk_state_ == Chunk::size_line ? limits_.max_chunk_line : limits_.max_header_line;
  const std::size_t length = (lf == std::string_view::npos ? buffer.size() : lf) - chunk_pos_;
  if (length > limit + 1) {
    return chunk_state_ == Chunk::size_line
               ? fail(400, "a chunk-size line longer than " + limit_text(limit, "--max-chunk-line"))
               : fail(431, "a trailer line longer than " + limit_text(limit, "--max-header-line"));
  }
  if (lf == std::string_view::npos) return state_;
  const std::string_view line = without_cr(buffer.substr(chunk_pos_, lf - chunk_pos_));
  chunk_pos_ = lf + 1;
  if (chunk_state_ == Chunk::size_line) return read_chunk_size(line);
  if (line.empty()) {
    end_ = chunk_pos_;
    return state_ = State::complete;
  }
  if (++trailer_lines_ > limits_.max_headers)
    return fail(431, "more than " + std::to_string(limits_.max_headers) + " trailer lines (--max-headers)");
  return state_;
}

// "1a2b[;extension]": the next chunk's size in hexadecimal, 0 for the last.
RequestParser::State RequestParser::read_chunk_size(std::string_view line) {
  std::uint64_t size = 0;
  std::size_t digits = 0;
  for (; digits < line.size(); ++digits) {
    const char c = line[digits];
    const int v = common::ascii_digit(c)                   ? c - '0'
                  : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10
                                                           : -1;
    if (v < 0) break;
    if (size >> 60) return fail(413, "a chunk larger than " + limit_text(limits_.max_body, "--max-body"));
    size = size * 16 + static_cast<std::uint64_t>(v);
  }
  const std::string_view rest = common::trim(line.substr(digits));
  if (digits == 0 || (!rest.empty() && rest.front() != ';'))
    return fail(400, "a chunk-size line that is not a hexadecimal size");
  if (size > limits_.max_body - request_.body.size())
    return fail(413, "a chunked body above " + limit_text(limits_.max_body, "--max-body"));
  chunk_left_ = size;
  chunk_state_ = size == 0 ? Chunk::trailer : Chunk::data;
  return state_;
}

RequestParser::State RequestParser::read_chunk_data(std::string_view buffer) {
  const std::size_t take =
      static_cast<std::size_t>(std::min<std::uint64_t>(chunk_left_, buffer.size() - chunk_pos_));
  request_.body.append(buffer.substr(chunk_pos_, take));
  chunk_pos_ += take;
  chunk_left_ -= take;
  if (chunk_left_ == 0) chunk_state_ = Chunk::data_end;
  return state_;
}

// The CRLF (or a bare LF) after a chunk's data.
RequestParser::State RequestParser::read_chunk_end(std::string_view buffer) {
  if (buffer[chunk_pos_] == '\n') {
    chunk_pos_ += 1;
  } else if (buffer[chunk_pos_] == '\r') {
    if (chunk_pos_ + 1 >= buffer.size()) return state_;
    if (buffer[chunk_pos_ + 1] != '\n') return fail(400, "chunk data not followed by CRLF");
    chunk_pos_ += 2;
  } else {
    return fail(400, "chunk data longer than its size");
  }
  chunk_state_ = Chunk::size_line;
  return state_;
}

ParsedRequest RequestParser::take(std::size_t& consumed) {
  consumed = end_;
  ParsedRequest done = std::move(request_);
  *this = RequestParser(limits_);
  return done;
}

}  // namespace entimg::mock::detail
