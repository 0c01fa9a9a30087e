#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "entimg/mock/options.hpp"

namespace entimg::mock {

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
