#include "entimg/mock/request_log.hpp"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace entimg::mock {

std::string log_line(LogFormat format, const std::string& method, const std::string& target, int status,
                     std::uint64_t bytes, double milliseconds) {
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.1f", milliseconds);
  if (format == LogFormat::json) {
    nlohmann::json line = {
        {"method", method}, {"target", target}, {"bytes", bytes}, {"ms", std::round(milliseconds * 10) / 10}};
    line["status"] = status == 0 ? nlohmann::json("dropped") : nlohmann::json(status);
    return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  std::string safe;  // the target is the client's: control bytes must not reach a terminal
  for (const char c : target)
    safe += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  return method + " " + safe + " " + (status == 0 ? std::string("dropped") : std::to_string(status)) + " " +
         std::to_string(bytes) + " B " + ms + " ms";
}

}  // namespace entimg::mock
