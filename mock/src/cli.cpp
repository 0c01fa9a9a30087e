#include "entimg/mock/cli.hpp"

#include <charconv>
#include <limits>

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
  --seed S          seed of the generated collection (default 1)
  --dataset PATH    serve the records of PATH instead: a JSON Lines file, a JSON array, or a
                    snapshot directory written by `entities-images-contract record`
  --threads N       worker threads; each open connection holds one (default 128)
  --help            print this help and exit
  --version         print the version and exit

When ready it prints "listening on http://ADDR:PORT". SIGINT or SIGTERM stops it.
)";
}

ParsedOptions parse_command_line(const std::vector<std::string_view>& args) {
  ParsedOptions parsed;
  Options& o = parsed.options;
  bool records_given = false, seed_given = false;
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
    const bool known = arg == "--host" || arg == "--port" || arg == "--records" || arg == "--seed" ||
                       arg == "--dataset" || arg == "--threads";
    if (!known) {
      parsed.error = "unknown option '" + std::string(args[i]) + "'";
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
      seed_given = true;
    } else if (arg == "--threads") {
      if (!number(1, 4096, "a whole number from 1 to 4096")) return parsed;
      o.threads = static_cast<std::size_t>(n);
    } else if (arg == "--dataset") {
      if (value.empty()) {
        parsed.error = "option --dataset needs a file or a snapshot directory";
        return parsed;
      }
      o.dataset = std::filesystem::path(value);
    }
  }
  if (o.dataset && (records_given || seed_given))
    parsed.error =
        "--records and --seed describe the generated collection; they cannot be used with --dataset";
  return parsed;
}

}  // namespace entimg::mock
