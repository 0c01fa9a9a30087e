#include "entimg/mock/cli.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

namespace entimg::mock {
namespace {

constexpr std::uint64_t kMaxRecords = 1'000'000'000'000ULL;  // ids stay far inside 64 bits

bool parse_unsigned(std::string_view text, std::uint64_t max, std::uint64_t& out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return false;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && ptr == text.data() + text.size() && out <= max;
}

}  // namespace

std::string_view version() {
  return "0.1.0";
}

std::string usage() {
  return R"(Usage: entities-images-mock [options]

Serves GET /edw/api/entities-images/ as django-edw on Django REST Framework does.

Options:
  --host ADDR       address to listen on (default 127.0.0.1)
  --port N          port to listen on; 0 picks a free one (default 8000)
  --records N       size of the generated collection (default 300000)
  --seed S          seed of the generated collection and of the faults below (default 1)
  --dataset PATH    serve the records of PATH instead: a JSON Lines file, a JSON array, or a
                    snapshot directory written by `entities-images-contract record`
  --threads N       worker threads; each open connection holds one (default 128)
  --user NAME:PASSWORD
                    a user HTTP Basic authenticates, as DRF's BasicAuthentication does: OPTIONS
                    then lists POST's fields, PUT/PATCH/DELETE get 405, wrong credentials 403;
                    the user's multipart POST (image, entity, order, key) creates a record (201)
  --state DIR       keep uploaded records and files in DIR across restarts: each is on disk
                    before its 201 (default: in memory, gone when the mock stops)
  --max-body BYTES  answer a request body above this size 413, as nginx does (default 10485760)

Latency and faults, for testing an app (seeded by --seed; X-Mock-* request headers ask for them
one request at a time, see docs/mock.md):
  --latency MS[:JITTER]   delay every answer MS milliseconds, plus 0..JITTER
  --fail-rate P           answer this share of requests (0..1) with --fail-status instead
  --fail-status N         500, 502, 503 or 429 (default 503; 503 and 429 carry Retry-After)
  --drop-rate P           close this share of connections (0..1) without answering
  --slow-body BYTES_PER_S send bodies at this rate

Browsers and logs:
  --cors ORIGIN     allow this origin (repeatable) or '*' any, as django-cors-headers would
  --quiet           no request log (default: one line a request on stderr)
  --log-json        the request log as JSON lines
  --config FILE     read flags from a JSON object ({"port": 8000, "cors": ["http://localhost:3000"],
                    "latency": "200:50", "quiet": true}); flags on the command line win
  --help            print this help and exit
  --version         print the version and exit

When ready it prints "listening on http://ADDR:PORT". SIGINT or SIGTERM stops it.
)";
}

namespace {

constexpr std::string_view kFlagOptions[] = {"quiet", "log-json"};
constexpr std::string_view kValuedOptions[] = {
    "host",        "port",      "records",   "seed", "dataset", "threads", "latency", "fail-rate",
    "fail-status", "drop-rate", "slow-body", "cors", "user",    "state",   "max-body"};

bool one_of(std::string_view name, const auto& list) {
  return std::find(std::begin(list), std::end(list), name) != std::end(list);
}

// The flags a --config file stands for; an error names the file and the key.
std::vector<std::string> config_arguments(const std::filesystem::path& file, std::string& error) {
  const std::string where = "config " + file.string() + ": ";
  std::ifstream in(file, std::ios::binary);
  if (!in) return error = where + "cannot be read", std::vector<std::string>{};
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    return error = where + "not valid JSON: " + e.what(), std::vector<std::string>{};
  }
  if (!doc.is_object()) return error = where + "not a JSON object of flags", std::vector<std::string>{};
  std::vector<std::string> out;
  for (const auto& [key, value] : doc.items()) {
    const std::string flag = "--" + key;
    if (one_of(key, kFlagOptions)) {
      if (!value.is_boolean())
        return error = where + "\"" + key + "\" is true or false", std::vector<std::string>{};
      if (value.get<bool>()) out.push_back(flag);
    } else if (one_of(key, kValuedOptions)) {
      const auto add = [&](const nlohmann::json& v) {
        if (v.is_string()) return out.insert(out.end(), {flag, v.get<std::string>()}), true;
        if (v.is_number()) return out.insert(out.end(), {flag, v.dump()}), true;
        return false;
      };
      bool ok = true;
      if (value.is_array() && key == "cors") {
        for (const auto& item : value)
          ok = ok && add(item);
      } else {
        ok = add(value);
      }
      if (!ok)
        return error = where + "\"" + key + "\" needs a string or a number" +
                       (key == "cors" ? " (or a list)" : ""),
               std::vector<std::string>{};
    } else {
      return error = where + "unknown key \"" + key + "\"", std::vector<std::string>{};
    }
  }
  return out;
}

bool parse_share(std::string_view text, double& out) {
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc{} && ptr == text.data() + text.size() && std::isfinite(out) &&
         out >= 0 && out <= 1;
}

}  // namespace

ParsedOptions parse_command_line(const std::vector<std::string_view>& command_line) {
  ParsedOptions parsed;
  Options& o = parsed.options;
  bool records_given = false, cors_from_line = false;
  // A --config file's flags come first, so that the command line overrides them.
  std::vector<std::string> from_file;
  for (std::size_t i = 0; i < command_line.size(); ++i) {
    std::string_view arg = command_line[i];
    std::optional<std::string_view> file;
    if (arg.starts_with("--config=")) file = arg.substr(9);
    if (arg == "--config" && i + 1 < command_line.size()) file = command_line[i + 1];
    if (arg == "--config" && i + 1 == command_line.size()) {
      parsed.error = "option --config needs a file";
      return parsed;
    }
    if (file) {
      o.config = std::filesystem::path(*file);
      from_file = config_arguments(*o.config, parsed.error);
      if (!parsed.error.empty()) return parsed;
    }
  }
  std::vector<std::string_view> args(from_file.begin(), from_file.end());
  const std::size_t line_start = args.size();
  for (std::size_t i = 0; i < command_line.size(); ++i) {
    if (command_line[i] == "--config") {
      ++i;
      continue;
    }
    if (!command_line[i].starts_with("--config=")) args.push_back(command_line[i]);
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    std::optional<std::string_view> inline_value;
    if (const auto eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      inline_value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    const auto flag_only = [&]() {
      if (inline_value) parsed.error = "option " + std::string(arg) + " takes no value";
      return parsed.error.empty();
    };
    if (arg == "--help" || arg == "-h") {
      if (!flag_only()) return parsed;
      o.help = true;
      continue;
    }
    if (arg == "--version") {
      if (!flag_only()) return parsed;
      o.version = true;
      continue;
    }
    if (arg == "--quiet" || arg == "--log-json") {
      if (!flag_only()) return parsed;
      o.log = arg == "--quiet" ? LogFormat::none : LogFormat::json;
      continue;
    }
    const bool known = arg.starts_with("--") && one_of(arg.substr(2), kValuedOptions);
    if (!known) {
      parsed.error =
          "unknown option '" + std::string(args[i]) + "'" + (i < line_start ? " (from --config)" : "");
      return parsed;
    }
    std::string_view value;
    if (inline_value) {
      value = *inline_value;
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      parsed.error = "option " + std::string(arg) + " needs a value";
      return parsed;
    }
    std::uint64_t n = 0;
    const auto number = [&](std::uint64_t min, std::uint64_t max, std::string_view what) {
      if (parse_unsigned(value, max, n) && n >= min) return true;
      parsed.error =
          "option " + std::string(arg) + " needs " + std::string(what) + ", got '" + std::string(value) + "'";
      return false;
    };
    if (arg == "--host") {
      if (value.empty()) {
        parsed.error = "option --host needs an address";
        return parsed;
      }
      o.host = value;
    } else if (arg == "--port") {
      if (!number(0, 65535, "a port number from 0 to 65535")) return parsed;
      o.port = static_cast<int>(n);
    } else if (arg == "--records") {
      if (!number(0, kMaxRecords, "a whole number from 0 to 1000000000000")) return parsed;
      o.records = n;
      records_given = true;
    } else if (arg == "--seed") {
      if (!number(0, std::numeric_limits<std::uint64_t>::max(), "a whole number from 0 to 2^64-1"))
        return parsed;
      o.seed = n;
      o.faults.seed = n;
    } else if (arg == "--threads") {
      if (!number(1, 4096, "a whole number from 1 to 4096")) return parsed;
      o.threads = static_cast<std::size_t>(n);
    } else if (arg == "--latency") {
      const std::string_view text = value;
      const std::size_t colon = text.find(':');
      std::uint64_t ms = 0, jitter = 0;
      if (!parse_unsigned(text.substr(0, colon), 600000, ms) ||
          (colon != std::string_view::npos && !parse_unsigned(text.substr(colon + 1), 600000, jitter))) {
        parsed.error = "option --latency needs MS or MS:JITTER, milliseconds up to 600000, got '" +
                       std::string(value) + "'";
        return parsed;
      }
      o.faults.latency_ms = static_cast<std::uint32_t>(ms);
      o.faults.jitter_ms = static_cast<std::uint32_t>(jitter);
    } else if (arg == "--fail-rate" || arg == "--drop-rate") {
      double share = 0;
      if (!parse_share(value, share)) {
        parsed.error =
            "option " + std::string(arg) + " needs a share from 0 to 1, got '" + std::string(value) + "'";
        return parsed;
      }
      (arg == "--fail-rate" ? o.faults.fail_rate : o.faults.drop_rate) = share;
    } else if (arg == "--fail-status") {
      if (value != "500" && value != "502" && value != "503" && value != "429") {
        parsed.error = "option --fail-status is 500, 502, 503 or 429, got '" + std::string(value) + "'";
        return parsed;
      }
      o.faults.fail_status = std::stoi(std::string(value));
    } else if (arg == "--slow-body") {
      if (!number(1, 1'000'000'000, "bytes a second from 1 to 1000000000")) return parsed;
      o.faults.slow_body_bps = n;
    } else if (arg == "--cors") {
      const bool valid = value == "*" || ((value.starts_with("http://") || value.starts_with("https://")) &&
                                          value.find('/', value.find("//") + 2) == std::string_view::npos);
      if (!valid) {
        parsed.error = "option --cors needs '*' or an origin such as http://localhost:3000 (no path), got '" +
                       std::string(value) + "'";
        return parsed;
      }
      if (i >= line_start && !cors_from_line) {
        o.cors.origins.clear();  // the command line's list replaces the config file's
        cors_from_line = true;
      }
      o.cors.origins.emplace_back(value);
    } else if (arg == "--user") {
      const std::size_t colon = value.find(':');
      if (colon == std::string_view::npos || colon == 0) {
        parsed.error = "option --user needs NAME:PASSWORD";
        return parsed;
      }
      o.user = User{std::string(value.substr(0, colon)), std::string(value.substr(colon + 1))};
    } else if (arg == "--state") {
      if (value.empty()) {
        parsed.error = "option --state needs a directory";
        return parsed;
      }
      o.state = std::filesystem::path(value);
    } else if (arg == "--max-body") {
      if (!number(1, std::uint64_t{1} << 40, "a size in bytes from 1 to 1099511627776")) return parsed;
      o.max_body = n;
    } else if (arg == "--dataset") {
      if (value.empty()) {
        parsed.error = "option --dataset needs a file or a snapshot directory";
        return parsed;
      }
      o.dataset = std::filesystem::path(value);
    }
  }
  if (o.dataset && records_given)
    parsed.error = "--records is the size of the generated collection; it cannot be used with --dataset";
  return parsed;
}

}  // namespace entimg::mock
