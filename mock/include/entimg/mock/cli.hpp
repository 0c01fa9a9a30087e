#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "entimg/mock/behaviour.hpp"
#include "entimg/mock/http_types.hpp"

namespace entimg::mock {

/// The command line of entities-images-mock.
struct Options {
  std::string host = "127.0.0.1";
  int port = 8000;
  std::uint64_t records = 300000;
  std::uint64_t seed = 1;
  std::optional<std::filesystem::path> dataset;
  std::size_t threads = 0;  ///< --threads: workers that compute answers; 0: one per core, plus two
  FaultOptions
      faults;        ///< --latency, --fail-rate, --fail-status, --drop-rate, --slow-body (seeded by --seed)
  CorsOptions cors;  ///< --cors
  std::optional<User> user;  ///< --user NAME:PASSWORD: the one user HTTP Basic authenticates
  std::optional<std::filesystem::path> state;  ///< --state DIR: uploads kept on disk
  ConnectionLimits limits;  ///< --max-body, --max-request-line, --head-timeout, ... (docs/mock.md)
  bool gzip = false;        ///< --gzip: Django's GZipMiddleware
  std::size_t memo_bytes = std::size_t{8} << 20;  ///< --memo-bytes: answers kept for repeated requests
  std::uint32_t churn_inserts = 0;                ///< --churn INSERTS:DELETES a minute: a live collection
  std::uint32_t churn_deletes = 0;
  bool admin = false;   ///< --admin: the routes under /__mock/
  int admin_port = -1;  ///< --admin-port N: those routes on a port of their own (implies --admin)
  std::size_t journal_size = 10000;                   ///< --journal-size N: requests the journal keeps
  std::size_t journal_bytes = std::size_t{32} << 20;  ///< --journal-bytes BYTES: and the bytes they may hold
  LogFormat log = LogFormat::text;                    ///< --quiet: none, --log-json: json
  std::optional<std::filesystem::path> config;        ///< --config FILE; flags on the command line win
  bool help = false;                                  ///< --help: print usage() and exit
  bool version = false;
};

struct ParsedOptions {
  Options options;
  std::string error;  ///< one line saying what is wrong; empty when the command line is fine
};

/// Parses the flags; a --config FILE among them (a JSON object whose keys are flag names without the
/// dashes) fills in the flags the command line leaves out.
ParsedOptions parse_command_line(const std::vector<std::string_view>& args);
/// The --help text, generated from the declared options.
std::string usage();
std::string_view version();

}  // namespace entimg::mock
