#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "entimg/mock/http_types.hpp"
#include "entimg/mock/server.hpp"

namespace entimg::mock {

/// The command line of entities-images-mock: the server's options, handed to MockServer as they are, and
/// what picks the collection. Each flag is one row of mock/src/flags.hpp; a default is an initializer here
/// (or in ServerOptions).
struct Options : ServerOptions {
  Options() { log = LogFormat::text; }  // the program logs each request unless told not to
  std::uint64_t records = 300000;
  std::uint64_t seed = 1;  ///< --seed: the generated collection's, the faults' (faults.seed) and --churn's
  std::optional<std::filesystem::path> dataset;
  std::optional<User> user;  ///< --user NAME:PASSWORD: the one user HTTP Basic authenticates
  std::optional<std::filesystem::path> state;  ///< --state DIR: uploads kept on disk
  std::uint32_t churn_inserts = 0;             ///< --churn INSERTS:DELETES a minute: a live collection
  std::uint32_t churn_deletes = 0;
  std::optional<std::filesystem::path> config;  ///< --config FILE; flags on the command line win
  bool help = false;                            ///< --help: print usage() and exit
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
