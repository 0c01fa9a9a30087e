#include "entimg/mock/cli.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <type_traits>
#include <variant>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "entimg/common/bounded_file.hpp"
#include "entimg/common/cli.hpp"
#include "entimg/common/version.hpp"
#include "fault_statuses.hpp"
#include "flags.hpp"

namespace entimg::mock {
namespace {

using common::cli::digits;
using common::cli::needs;
using common::cli::whole_number;
using detail::flag_range;

CLI::Validator share() {
  return needs("a share from 0 to 1", [](std::string& text) {
    double share = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), share);
    return !text.empty() && ec == std::errc{} && end == text.data() + text.size() && std::isfinite(share) &&
           share >= 0 && share <= 1;
  });
}

CLI::Validator not_empty(const std::string& what) {
  return needs(what, [](std::string& text) { return !text.empty(); });
}

// "MS" or "MS:JITTER", each up to ten minutes.
std::optional<std::pair<std::uint32_t, std::uint32_t>> latency_of(std::string_view text) {
  const std::size_t colon = text.find(':');
  const auto ms = digits(text.substr(0, colon), detail::kMaxDelayMs);
  const auto jitter = colon == std::string_view::npos ? std::optional<std::uint64_t>(0)
                                                      : digits(text.substr(colon + 1), detail::kMaxDelayMs);
  if (!ms || !jitter) return std::nullopt;
  return std::pair{static_cast<std::uint32_t>(*ms), static_cast<std::uint32_t>(*jitter)};
}

std::optional<User> user_of(std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  return User{std::string(text.substr(0, colon)), std::string(text.substr(colon + 1))};
}

bool is_origin(const std::string& value) {
  return value == "*" || ((value.starts_with("http://") || value.starts_with("https://")) &&
                          value.find('/', value.find("//") + 2) == std::string::npos);
}

// --config FILE: a JSON object whose keys are the long options without their dashes. Keys, flags and
// lists are checked against the options declared on the app; values go through the options' own checks.
class JsonConfig : public CLI::Config {
 public:
  explicit JsonConfig(const CLI::App& app) : app_(app) {}

  std::vector<CLI::ConfigItem> from_config(std::istream& in) const override {
    // At most kMaxConfigBytes, should the file have grown since config_file() looked at it.
    std::string text(detail::kMaxConfigBytes + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (text.size() > detail::kMaxConfigBytes)
      throw CLI::ConfigError("larger than " + std::to_string(detail::kMaxConfigBytes) + " bytes");
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      throw CLI::ConfigError(std::string("not valid JSON: ") + e.what());
    }
    if (!doc.is_object()) throw CLI::ConfigError("not a JSON object of flags");
    std::vector<CLI::ConfigItem> found;
    for (const auto& [key, value] : doc.items()) {
      const CLI::Option* option = app_.get_option_no_throw("--" + key);
      if (option == nullptr || !option->get_configurable())
        throw CLI::ConfigError("unknown key \"" + key + "\"");
      CLI::ConfigItem item;
      item.name = key;
      item.inputs = inputs(*option, key, value);
      // A flag on the command line replaces the file's value of the options it excludes, as it
      // replaces its own (--log-json over the file's "quiet").
      const auto excludes = option->get_excludes();
      const bool overridden = std::any_of(excludes.begin(), excludes.end(),
                                          [](const CLI::Option* other) { return other->count() > 0; });
      if (!item.inputs.empty() && !overridden) found.push_back(std::move(item));
    }
    return found;
  }

  // CLI11 asks for the way back too; the mock only reads config files.
  std::string to_config(const CLI::App*, bool, bool, std::string) const override {
    throw CLI::ConfigError("the mock does not write config files");
  }

 private:
  static std::vector<std::string> inputs(const CLI::Option& option, const std::string& key,
                                         const nlohmann::json& value) {
    if (option.get_expected_max() == 0) {  // a flag: true sets it, false leaves it out
      if (!value.is_boolean()) throw CLI::ConfigError("\"" + key + "\" is true or false");
      return value.get<bool>() ? std::vector<std::string>{"true"} : std::vector<std::string>{};
    }
    const bool list = option.get_expected_max() > 1;
    std::vector<std::string> out;
    for (const auto& v : (list && value.is_array()) ? value : nlohmann::json::array({value})) {
      if (!v.is_string() && !v.is_number())
        throw CLI::ConfigError("\"" + key + "\" needs a string or a number" + (list ? " (or a list)" : ""));
      out.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    }
    return out;
  }

  const CLI::App& app_;
};

// --config FILE: a regular file of at most kMaxConfigBytes, checked as the flag is read, before CLI11
// opens it (a FIFO would block the open for ever, /dev/zero never end). A missing file is CLI11's to report.
CLI::Validator config_file() {
  return CLI::Validator(
      [](std::string& file) -> std::string {
        std::error_code error;
        const auto status = std::filesystem::status(file, error);
        if (error || !std::filesystem::exists(status)) return "";
        if (!std::filesystem::is_regular_file(status))
          return "needs a regular file, got '" + file + "' (" + common::file_kind(file) + ")";
        if (const auto size = std::filesystem::file_size(file, error);
            !error && size > detail::kMaxConfigBytes)
          return "needs a file of at most " + std::to_string(detail::kMaxConfigBytes) + " bytes, got '" +
                 file + "' (" + std::to_string(size) + " bytes)";
        return "";
      },
      "");
}

// "INSERTS:DELETES", each up to kMaxChurn, not both 0.
std::optional<std::pair<std::uint32_t, std::uint32_t>> churn_of(std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto in = digits(text.substr(0, colon), detail::kMaxChurn);
  const auto out = digits(text.substr(colon + 1), detail::kMaxChurn);
  if (!in || !out || (*in == 0 && *out == 0)) return std::nullopt;
  return std::pair{static_cast<std::uint32_t>(*in), static_cast<std::uint32_t>(*out)};
}

CLI::Validator fail_status_check() {
  return CLI::Validator(
      [statuses = detail::fault_status_choices()](std::string& text) {
        return detail::find_fault_status(text) ? std::string() : "is " + statuses + ", got '" + text + "'";
      },
      "");
}

// The option of a flag whose value goes to a member of Options (its field, or a fault knob's first key).
CLI::Option* add_value(CLI::App& app, const detail::Flag& flag, Options& o, const std::string& help) {
  const std::string name(flag.name);
  if (std::holds_alternative<std::monostate>(flag.field))
    return std::visit([&](auto member) { return app.add_option(name, o.faults.*member, help); },
                      flag.keys[0].field);
  return std::visit(
      [&](auto get) -> CLI::Option* {
        if constexpr (std::is_same_v<decltype(get), std::monostate>)
          return nullptr;  // handled above
        else if constexpr (std::is_same_v<decltype(get(o)), bool&>)
          return app.add_flag(name, get(o), help);
        else
          return app.add_option(name, get(o), help);
      },
      flag.field);
}

// The option of one row, read and checked as its kind says.
CLI::Option* add_flag(CLI::App& app, const detail::Flag& flag, Options& o) {
  using detail::FlagKind;
  const std::string name(flag.name), what(flag.what);
  std::string help(flag.help);
  switch (flag.kind) {
    case FlagKind::whole:
      return add_value(app, flag, o, help)
          ->transform(whole_number(flag.low, flag.high, flag_range(flag, flag.low)));
    case FlagKind::share:
      return add_value(app, flag, o, help)->check(share());
    case FlagKind::status:
      help = detail::fault_status_choices() + " (" + detail::retry_after_statuses() + " carry Retry-After)";
      return add_value(app, flag, o, help)->check(fail_status_check());
    case FlagKind::text:
      return add_value(app, flag, o, help)->check(not_empty(what));
    case FlagKind::origins:
      return add_value(app, flag, o, help)->allow_extra_args(false)->check(needs(what, is_origin));
    case FlagKind::flag:
      return add_value(app, flag, o, help);
    case FlagKind::latency:  // two fields from one value
      return app
          .add_option_function<std::string>(
              name,
              [&o](const std::string& text) {
                std::tie(o.faults.latency_ms, o.faults.jitter_ms) = *latency_of(text);
              },
              help)
          ->check(needs("MS or MS:JITTER, " + what + " up to " + std::to_string(flag.high),
                        [](std::string& text) { return latency_of(text).has_value(); }));
    case FlagKind::log:
      return app.add_flag_callback(
          name, [&o, format = flag.log_format] { o.log = format; }, help);
    case FlagKind::user:
      return app
          .add_option_function<std::string>(
              name, [&o](const std::string& text) { o.user = user_of(text); }, help)
          ->check(CLI::Validator(  // never echoes the password
              [](std::string& text) { return user_of(text) ? std::string() : "needs NAME:PASSWORD"; }, ""));
    case FlagKind::churn:
      return app
          .add_option_function<std::string>(
              name,
              [&o](const std::string& text) { std::tie(o.churn_inserts, o.churn_deletes) = *churn_of(text); },
              help)
          ->check(needs("INSERTS:DELETES a minute, each a whole number up to " + std::to_string(flag.high) +
                            ", not both 0 (e.g. 30:10)",
                        [](std::string& text) { return churn_of(text).has_value(); }));
    case FlagKind::config:
      return app.set_config(name, "", help)
          ->check(config_file())
          ->trigger_on_parse()  // checked as it is read: CLI11 opens the file before other checks run
          ->each([&o](const std::string& file) { o.config = std::filesystem::path(file); });
    case FlagKind::help:
      return app.set_help_flag(name, help);
  }
  throw std::logic_error("flag " + name + " of no kind");
}

// The whole command line: each row of detail::kFlags once, with its help and its check.
void declare_options(CLI::App& app, Options& o) {
  app.name("entities-images-mock");
  app.description("Serves GET /edw/api/entities-images/ as django-edw on Django REST Framework does.");
  app.footer(
      "Latency and faults are seeded by --seed; X-Mock-* request headers ask for them one request\n"
      "at a time (docs/mock.md). When ready it prints \"listening on http://ADDR:PORT\".\n"
      "SIGINT or SIGTERM stops it. Exit: 0 stopped, 1 a dataset or port it cannot use, 2 usage.");
  app.get_formatter()->column_width(34);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  for (const detail::Flag& flag : detail::kFlags) {
    CLI::Option* option = add_flag(app, flag, o);
    option->group(std::string(flag.group));
    if (!flag.type_name.empty()) option->type_name(std::string(flag.type_name));
    if (flag.shows_default) option->capture_default_str();
    if (!flag.in_config) option->configurable(false);
  }
  for (const detail::Flag& flag : detail::kFlags)
    if (!flag.excludes.empty())
      app.get_option(std::string(flag.name))->excludes(app.get_option(std::string(flag.excludes)));
  app.config_formatter(std::make_shared<JsonConfig>(app));
  common::cli::flags_take_no_value(app);
}

// One line for a bad command line, whatever CLI11 threw.
std::string error_line(const CLI::App& app, const CLI::ParseError& e) {
  if (const auto extras = app.remaining(); !extras.empty()) return "unknown option '" + extras.front() + "'";
  if (auto line = common::cli::option_error(e)) return *line;
  std::string what = e.what();
  const auto config = [&app] { return "config " + app.get_config_ptr()->as<std::string>() + ": "; };
  if (dynamic_cast<const CLI::ExcludesError*>(&e))
    return "option " + what.replace(what.find(" excludes "), 10, " cannot be used with ");
  if (dynamic_cast<const CLI::FileError*>(&e)) return config() + "cannot be read";
  if (dynamic_cast<const CLI::ConfigError*>(&e)) return config() + what;
  return what;
}

}  // namespace

std::string_view version() {
  return common::kVersion;
}

std::string usage() {
  Options unused;
  CLI::App app;
  declare_options(app, unused);
  return app.help();
}

ParsedOptions parse_command_line(const std::vector<std::string_view>& args) {
  ParsedOptions parsed;
  CLI::App app;
  declare_options(app, parsed.options);
  try {
    common::cli::parse(app, args);
  } catch (const CLI::CallForHelp&) {
    parsed.options.help = true;
  } catch (const CLI::ParseError& e) {
    parsed.error = error_line(app, e);
  }
  parsed.options.faults.seed = parsed.options.seed;                 // --seed draws the faults too
  if (parsed.options.admin_port >= 0) parsed.options.admin = true;  // --admin-port implies --admin
  const FaultOptions& f = parsed.options.faults;
  if (parsed.error.empty() && std::uint64_t{f.latency_ms} + f.jitter_ms > f.max_delay_ms)
    parsed.error = "option --latency adds up to " +
                   std::to_string(std::uint64_t{f.latency_ms} + f.jitter_ms) +
                   " ms, longer than --max-delay (" + std::to_string(f.max_delay_ms) + " ms)";
  return parsed;
}

}  // namespace entimg::mock
