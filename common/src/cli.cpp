#include "entimg/common/cli.hpp"

#include <charconv>

namespace entimg::common::cli {

CLI::Validator needs(const std::string& what, std::function<bool(std::string&)> accepts) {
  return CLI::Validator(
      [what, accepts = std::move(accepts)](std::string& value) {
        return accepts(value) ? std::string() : "needs " + what + ", got '" + value + "'";
      },
      "");
}

CLI::Validator whole_number(std::uint64_t min, std::uint64_t max, const std::string& what) {
  const bool bounded = max != std::numeric_limits<std::uint64_t>::max();
  const std::string range = bounded   ? " from " + std::to_string(min) + " to " + std::to_string(max)
                            : min > 0 ? " of at least " + std::to_string(min)
                                      : "";
  return needs(what.empty() ? "a whole number" + range : what, [min, max](std::string& text) {
    const auto n = digits(text, max);
    if (!n || *n < min) return false;
    text = std::to_string(*n);
    return true;
  });
}

void flags_take_no_value(CLI::App& command) {
  const CLI::Validator no_value(
      [](const std::string& given) {
        return given == "true" ? std::string() : std::string("takes no value");
      },
      "");
  for (CLI::Option* flag : command.get_options([](CLI::Option* opt) { return opt->get_expected_max() == 0; }))
    flag->check(no_value);
}

std::optional<std::string> option_error(const CLI::ParseError& error) {
  const std::string what = error.what();
  const std::string option = what.substr(0, what.find(':'));  // CLI11 names the option first
  if (dynamic_cast<const CLI::ValidationError*>(&error))
    return "option " + option + what.substr(option.size() + 1);
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error)) return "option " + option + " needs a value";
  return std::nullopt;
}

void parse(CLI::App& app, const std::vector<std::string_view>& args) {
  app.parse(std::vector<std::string>(args.rbegin(), args.rend()));
}

}  // namespace entimg::common::cli
