#pragma once
// The request log: one line a request on stderr (--quiet, --log-json).
#include <cstdint>
#include <string>

namespace entimg::mock {

enum class LogFormat { none, text, json };

/// One line for the request log: "GET /path?query 200 1234 B 5.1 ms", or the same as a JSON object.
std::string log_line(LogFormat format, const std::string& method, const std::string& target, int status,
                     std::uint64_t bytes, double milliseconds);

}  // namespace entimg::mock
