#pragma once
// What both programs' command lines (CLI11) need besides their options: value checks whose messages say
// what was expected and what came, and CLI11's errors as one line naming the option.
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "entimg/common/ascii.hpp"

namespace entimg::common::cli {

/// A check failing with "needs WHAT, got 'VALUE'"; option_error() puts "option --NAME" in front.
CLI::Validator needs(const std::string& what, std::function<bool(std::string&)> accepts);

/// The value of digits-only text, if it is at most max (common/ascii.hpp).
using common::digits;

/// Digits only, from min to max ("needs WHAT, got 'V'"; WHAT says the range unless given). It rewrites
/// the text without leading zeros, which CLI11 would read as octal, so options take it with transform():
/// check() hands validators a copy.
CLI::Validator whole_number(std::uint64_t min = 0,
                            std::uint64_t max = std::numeric_limits<std::uint64_t>::max(),
                            const std::string& what = "");

/// Every flag of the command refuses "--flag=value" with "option --flag takes no value".
void flags_take_no_value(CLI::App& command);

/// "option --NAME PROBLEM" for a value CLI11 refused (a failed check, a missing value); nullopt for
/// errors that are not about one option's value.
std::optional<std::string> option_error(const CLI::ParseError& error);

/// Parses the arguments (in their order) into the app; CLI11 wants them last first.
void parse(CLI::App& app, const std::vector<std::string_view>& args);

}  // namespace entimg::common::cli
