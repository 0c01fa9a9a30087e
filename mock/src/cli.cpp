#include "entimg/mock/cli.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <tuple>
#include <variant>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "entimg/common/cli.hpp"
#include "entimg/common/version.hpp"
#include "fault_knobs.hpp"
#include "fault_statuses.hpp"

namespace entimg::mock {
namespace {

constexpr std::uint64_t kMaxRecords = 1'000'000'000'000ULL;  // ids stay far inside 64 bits

using common::cli::digits;
using common::cli::needs;
using common::cli::whole_number;

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
    nlohmann::json doc;
    try {
      doc = nlohmann::json::parse(in);
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

// --churn INSERTS:DELETES: a live collection.
CLI::Option* add_churn(CLI::App& app, Options& o) {
  return app
      .add_option_function<std::string>(
          "--churn",
          [&o](const std::string& text) {
            const std::size_t colon = text.find(':');
            o.churn_inserts = static_cast<std::uint32_t>(*digits(text.substr(0, colon), 100000));
            o.churn_deletes = static_cast<std::uint32_t>(*digits(text.substr(colon + 1), 100000));
          },
          "a live collection: this many records inserted and deleted a minute\n"
          "(seeded by --seed; X-Mock-Time: MS replays a moment; not with --user)")
      ->type_name("INSERTS:DELETES")
      ->check(needs("INSERTS:DELETES a minute, each a whole number up to 100000, not both 0 (e.g. 30:10)",
                    [](std::string& text) {
                      const std::size_t colon = text.find(':');
                      if (colon == std::string::npos) return false;
                      const auto in = digits(std::string_view(text).substr(0, colon), 100000);
                      const auto out = digits(std::string_view(text).substr(colon + 1), 100000);
                      return in && out && (*in > 0 || *out > 0);
                    }));
}

void declare_serving(CLI::App& app, Options& o) {
  app.add_option("--host", o.host, "address to listen on")
      ->type_name("ADDR")
      ->capture_default_str()
      ->check(not_empty("an address"));
  app.add_option("--port", o.port, "port to listen on; 0 picks a free one")
      ->type_name("N")
      ->capture_default_str()
      ->transform(whole_number(0, 65535, "a port number from 0 to 65535"));
  CLI::Option* records =
      app.add_option("--records", o.records, "size of the generated collection")
          ->type_name("N")
          ->capture_default_str()
          ->transform(whole_number(0, kMaxRecords, "a whole number from 0 to 1000000000000"));
  app.add_option("--seed", o.seed, "seed of the generated collection and of the faults below")
      ->type_name("S")
      ->capture_default_str()
      ->transform(
          whole_number(0, std::numeric_limits<std::uint64_t>::max(), "a whole number from 0 to 2^64-1"));
  app.add_option("--dataset", o.dataset,
                 "serve the records of PATH instead: a JSON Lines file, a JSON array, or\n"
                 "a snapshot directory written by `entities-images-contract record`")
      ->type_name("PATH")
      ->check(not_empty("a file or a snapshot directory"))
      ->excludes(records);
  CLI::Option* churn = add_churn(app, o);
  app.add_option("--threads", o.threads,
                 "worker threads that compute answers; 0 is one per core plus two\n"
                 "(idle connections, slow clients and delays hold none)")
      ->type_name("N")
      ->capture_default_str()
      ->transform(whole_number(0, 4096, "a whole number from 0 to 4096"));
  CLI::Option* user_option =
      app.add_option_function<std::string>(
             "--user", [&o](const std::string& text) { o.user = user_of(text); },
             "a user HTTP Basic authenticates, as DRF's BasicAuthentication does:\n"
             "OPTIONS then lists POST's fields, PUT/PATCH/DELETE get 405, wrong\n"
             "credentials 403; the user's multipart POST (image, entity, order, key)\n"
             "creates a record (201)")
          ->type_name("NAME:PASSWORD")
          ->check(CLI::Validator(  // never echoes the password
              [](std::string& text) { return user_of(text) ? std::string() : "needs NAME:PASSWORD"; }, ""));
  user_option->excludes(churn);
  app.add_option("--state", o.state,
                 "keep uploaded records and files in DIR across restarts: each is on\n"
                 "disk before its 201 (default: in memory, gone when the mock stops)")
      ->type_name("DIR")
      ->check(not_empty("a directory"));
}

// Each limit a request and a connection must keep: its flag, its help, its range (docs/mock.md).
void declare_limits(CLI::App& app, ConnectionLimits& l, std::size_t& memo_bytes) {
  const auto size = [&app](const char* flag, auto& field, const char* help, std::uint64_t low,
                           std::uint64_t high) {
    app.add_option(flag, field, help)
        ->type_name("BYTES")
        ->capture_default_str()
        ->transform(whole_number(
            low, high, "a size in bytes from " + std::to_string(low) + " to " + std::to_string(high)));
  };
  const auto millis = [&app](const char* flag, std::uint32_t& field, const char* help) {
    app.add_option(flag, field, help)
        ->type_name("MS")
        ->capture_default_str()
        ->transform(whole_number(1, 86'400'000, "milliseconds from 1 to 86400000"));
  };
  size("--max-body", l.max_body, "answer a request body above this size 413, as nginx does", 1,
       std::uint64_t{1} << 40);
  size("--max-request-line", l.max_request_line, "answer a longer request line 414, as nginx does", 64,
       1 << 20);
  size("--max-header-line", l.max_header_line, "answer a longer header line 431, as gunicorn does", 64,
       1 << 20);
  app.add_option("--max-headers", l.max_headers, "answer a request with more header lines 431")
      ->type_name("N")
      ->capture_default_str()
      ->transform(whole_number(1, 100000, "a whole number from 1 to 100000"));
  size("--max-head", l.max_head, "answer a longer request head (line and headers) 431", 256, 1 << 24);
  size("--max-chunk-line", l.max_chunk_line, "answer a longer chunk-size line of a chunked body 400", 16,
       1 << 20);
  millis("--head-timeout", l.head_timeout_ms,
         "answer 408 and close when a head is not whole this long after its\n"
         "first byte, or a body pauses as long; a connection that sends nothing\n"
         "is closed after it");
  millis("--keep-alive-timeout", l.keep_alive_timeout_ms, "close a keep-alive connection idle this long");
  millis("--send-timeout", l.send_timeout_ms,
         "close a connection whose client takes no byte of its answer this long");
  app.add_option("--max-connections", l.max_connections,
                 "answer a connection beyond this many open ones 503 and close it\n"
                 "(at most the open-file limit allows)")
      ->type_name("N")
      ->capture_default_str()
      ->transform(whole_number(1, 1'000'000, "a whole number from 1 to 1000000"));
  size("--memo-bytes", memo_bytes,
       "keep answers to GET/HEAD requests asked again (equal target and headers,\n"
       "unchanged data) up to this many bytes; 0 computes every answer",
       0, std::uint64_t{1} << 32);
}

// --latency MS[:JITTER]: two fields from one value.
CLI::Option* add_latency(CLI::App& app, const detail::FaultKnob& knob, FaultOptions& faults) {
  return app
      .add_option_function<std::string>(
          std::string(knob.flag),
          [&faults](const std::string& text) {
            std::tie(faults.latency_ms, faults.jitter_ms) = *latency_of(text);
          },
          std::string(knob.help))
      ->check(needs("MS or MS:JITTER, " + std::string(knob.unit) + " up to " + std::to_string(knob.high),
                    [](std::string& text) { return latency_of(text).has_value(); }));
}

CLI::Validator fail_status_check() {
  return CLI::Validator(
      [statuses = detail::fault_status_choices()](std::string& text) {
        return detail::find_fault_status(text) ? std::string() : "is " + statuses + ", got '" + text + "'";
      },
      "");
}

// Each fault knob as detail::kFaultKnobs declares it: its flag, help and range.
void declare_faults(CLI::App& app, FaultOptions& faults) {
  for (const detail::FaultKnob& knob : detail::kFaultKnobs) {
    std::string help(knob.help);
    if (knob.kind == detail::KnobKind::status)
      help = detail::fault_status_choices() + " (" + detail::retry_after_statuses() + " carry Retry-After)";
    CLI::Option* option =
        knob.kind == detail::KnobKind::latency
            ? add_latency(app, knob, faults)
            : std::visit(
                  [&](auto member) { return app.add_option(std::string(knob.flag), faults.*member, help); },
                  knob.keys[0].field);
    option->type_name(std::string(knob.type_name));
    if (knob.shows_default) option->capture_default_str();
    if (knob.kind == detail::KnobKind::whole)
      option->transform(whole_number(knob.low, knob.high, detail::knob_range(knob, knob.low)));
    if (knob.kind == detail::KnobKind::share) option->check(share());
    if (knob.kind == detail::KnobKind::status) option->check(fail_status_check());
  }
}

void declare_browsers_and_logs(CLI::App& app, Options& o) {
  app.add_option("--cors", o.cors.origins,
                 "allow this origin (repeatable) or '*' any, as django-cors-headers would")
      ->type_name("ORIGIN")
      ->allow_extra_args(false)
      ->check(needs("'*' or an origin such as http://localhost:3000 (no path)", is_origin));
  app.add_flag("--gzip", o.gzip,
               "gzip answers for clients that accept it, as Django's GZipMiddleware does\n"
               "(with Vary: Accept-Encoding); without it nothing is compressed, as with DRF");
  app.add_flag("--admin", o.admin,
               "serve the admin routes under /__mock/: the request journal\n"
               "(GET/DELETE /__mock/requests, GET /__mock/requests/count), POST\n"
               "/__mock/reset, GET/PUT /__mock/faults (docs/mock.md)");
  app.add_option_function<int>(
         "--admin-port",
         [&o](int port) {
           o.admin_port = port;
           o.admin = true;
         },
         "serve the admin routes on this port instead (0 picks a free one);\nimplies --admin")
      ->type_name("N")
      ->transform(whole_number(0, 65535, "a port number from 0 to 65535"));
  app.add_option("--journal-size", o.journal_size, "the number of requests the journal keeps, the latest")
      ->type_name("N")
      ->capture_default_str()
      ->transform(whole_number(1, 10'000'000, "a whole number from 1 to 10000000"));
  app.add_option("--journal-bytes", o.journal_bytes,
                 "and at most this many bytes of them (an entry counts as its JSON;\n"
                 "of a body it keeps the first 16 KiB, its length and sha256)")
      ->type_name("BYTES")
      ->capture_default_str()
      ->transform(whole_number(65536, std::uint64_t{1} << 34, "a size in bytes from 65536 to 17179869184"));
  CLI::Option* quiet = app.add_flag_callback(
      "--quiet", [&o] { o.log = LogFormat::none; }, "no request log (default: one line a request on stderr)");
  app.add_flag_callback(
         "--log-json", [&o] { o.log = LogFormat::json; }, "the request log as JSON lines")
      ->excludes(quiet);
}

// The whole command line: each option once, with its help and its check.
void declare_options(CLI::App& app, Options& o) {
  app.name("entities-images-mock");
  app.description("Serves GET /edw/api/entities-images/ as django-edw on Django REST Framework does.");
  app.footer(
      "Latency and faults are seeded by --seed; X-Mock-* request headers ask for them one request\n"
      "at a time (docs/mock.md). When ready it prints \"listening on http://ADDR:PORT\".\n"
      "SIGINT or SIGTERM stops it. Exit: 0 stopped, 1 a dataset or port it cannot use, 2 usage.");
  app.get_formatter()->column_width(34);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)->group("Serving");
  declare_serving(app, o);
  app.option_defaults()->group("Limits (as nginx and gunicorn bound requests)");
  declare_limits(app, o.limits, o.memo_bytes);
  app.option_defaults()->group("Latency and faults");
  declare_faults(app, o.faults);
  app.option_defaults()->group("Browsers and logs");
  declare_browsers_and_logs(app, o);
  app.option_defaults()->group("Options");
  app.set_config("--config", "",
                 "read flags from a JSON object, e.g. {\"port\": 8000, \"cors\":\n"
                 "[\"http://localhost:3000\"], \"latency\": \"200:50\", \"quiet\": true};\n"
                 "flags on the command line win")
      ->type_name("FILE")
      ->each([&o](const std::string& file) { o.config = std::filesystem::path(file); });
  app.config_formatter(std::make_shared<JsonConfig>(app));
  app.set_help_flag("-h,--help", "print this help and exit");
  app.add_flag("--version", o.version, "print the version and exit")->configurable(false);
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
  parsed.options.faults.seed = parsed.options.seed;  // --seed draws the faults too
  const FaultOptions& f = parsed.options.faults;
  if (parsed.error.empty() && std::uint64_t{f.latency_ms} + f.jitter_ms > f.max_delay_ms)
    parsed.error = "option --latency adds up to " +
                   std::to_string(std::uint64_t{f.latency_ms} + f.jitter_ms) +
                   " ms, longer than --max-delay (" + std::to_string(f.max_delay_ms) + " ms)";
  return parsed;
}

}  // namespace entimg::mock
