#include "entimg/mock/request_log.hpp"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "entimg/common/terminal_text.hpp"

namespace entimg::mock {

std::string log_line(LogFormat format, const std::string& method, const std::string& target, int status,
                     std::uint64_t bytes, double milliseconds) {
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f", milliseconds);
  if (format == LogFormat::json) {
    nlohmann::json line = {
        {"method", method}, {"target", target}, {"bytes", bytes}, {"ms", std::round(milliseconds * 10) / 10}};
    line["status"] = status == 0 ? nlohmann::json("dropped") : nlohmann::json(status);
    // ASCII only: what is not is a \u escape, so no control or bidi character reaches a terminal.
    return line.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  }
  // The target is the client's: control and bidi characters must not reach a terminal (common::printable).
  return common::printable(method) + " " + common::printable(target) + " " +
         (status == 0 ? std::string("dropped") : std::to_string(status)) + " " + std::to_string(bytes) +
         " B " + ms + " ms";
}

}  // namespace entimg::mock
