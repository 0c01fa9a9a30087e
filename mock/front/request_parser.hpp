#pragma once
// The mock's own HTTP/1.x request parser: the bytes of a request reach the DRF logic as a WSGI server
// hands them to Django (method and header values unchanged, a '?' anywhere in the query, empty values
// kept), and every part of a request is bounded as nginx and gunicorn bound it. docs/mock.md, "Connections".
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "entimg/mock/http_types.hpp"

namespace entimg::mock::detail {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct ParsedRequest {
  std::string method;
  std::string target;
  int minor_version = 1;   ///< HTTP/1.0 or HTTP/1.1
  HeaderList headers;      ///< in wire order, names and values exactly as sent (values without OWS)
  std::string body;        ///< de-chunked
  bool keep_alive = true;  ///< what the request asks for (version and Connection)
};

/// A request the parser refuses: the status to answer (400, 413, 414, 431, 501, 505) and why.
struct ParseError {
  int status = 400;
  std::string message;
};

/// Parses one request at a time from a buffer that grows between calls (bytes are appended, never
/// changed). Work is proportional to the bytes added, so a client sending one byte at a time costs
/// nothing more than one sending all at once.
class RequestParser {
 public:
  enum class State { head, body, complete, failed };

  explicit RequestParser(const ConnectionLimits& limits) : limits_(limits) {}

  /// Goes on from where the last call stopped; `buffer` holds every byte not yet taken.
  State advance(std::string_view buffer);
  State state() const { return state_; }
  /// Whether a request has begun (bytes other than the empty lines allowed before it).
  bool started() const { return started_; }
  /// The head is complete and asks for "Expect: 100-continue": the interim answer is due, whether the body
  /// is still to come or came with the head (gunicorn and nginx send it either way).
  bool wants_continue() const {
    return (state_ == State::body || state_ == State::complete) && expect_continue_;
  }
  const ParseError& error() const { return error_; }
  /// The complete request; `consumed` is how many bytes of the buffer it used. Resets for the next one.
  ParsedRequest take(std::size_t& consumed);

 private:
  State fail(int status, std::string message);
  State scan_head(std::string_view buffer);
  State parse_head(std::string_view head);
  State parse_request_line(std::string_view line);
  State frame_body();
  State read_chunked(std::string_view buffer);
  State read_chunk_line(std::string_view buffer);
  State read_chunk_size(std::string_view line);
  State read_chunk_data(std::string_view buffer);
  State read_chunk_end(std::string_view buffer);

  ConnectionLimits limits_;
  State state_ = State::head;
  ParseError error_;
  ParsedRequest request_;
  bool started_ = false;
  bool expect_continue_ = false;
  // Head scanning: where the request starts (after empty lines), the current line, lines so far.
  std::size_t request_start_ = 0;
  std::size_t scanned_ = 0;
  std::size_t line_start_ = 0;
  std::size_t lines_ = 0;
  std::size_t body_start_ = 0;
  // Body: a Content-Length, or chunked decoding with its position.
  bool chunked_ = false;
  std::uint64_t content_length_ = 0;
  enum class Chunk { size_line, data, data_end, trailer };
  Chunk chunk_state_ = Chunk::size_line;
  std::size_t chunk_pos_ = 0;
  std::uint64_t chunk_left_ = 0;
  std::size_t trailer_lines_ = 0;
  std::size_t end_ = 0;  // bytes of the complete request
};

}  // namespace entimg::mock::detail
