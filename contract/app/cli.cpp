#include "entimg/contract/cli.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <tuple>

#include <CLI/CLI.hpp>

#include "entimg/common/cli.hpp"
#include "report_text.hpp"
#include "secret_mask.hpp"

namespace entimg::contract {
namespace {

using Getenv = std::function<std::optional<std::string>(const std::string&)>;

using common::cli::whole_number;

// The checks below return what is wrong with a value; error_line() puts "option --NAME" in front.

CLI::Validator positive_number(const std::string& of_what, double max) {
  return CLI::Validator(
      [=](const std::string& text) -> std::string {
        double n = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
        const bool number = !text.empty() && ec == std::errc{} && end == text.data() + text.size();
        if (number && std::isfinite(n) && n > 0 && n <= max) return {};
        return "needs a positive number of " + of_what + ", got '" + text + "'";
      },
      "");
}

CLI::Validator directory() {
  return CLI::Validator([](const std::string& text) { return text.empty() ? "needs a directory" : ""; }, "");
}

CLI::Validator absolute_url() {
  return CLI::Validator(
      [](const std::string& url) -> std::string {
        if (!origin_of(url)) return "needs an absolute http:// or https:// URL, got '" + url + "'";
        if (url.substr(0, url.find('/', url.find("//") + 2)).find('@') != std::string::npos)
          return "must not carry credentials; use --header-from-env Authorization=VAR";
        return {};
      },
      "");
}

// "host" or "host:port" ("[v6]:port"): what a Host header names.
CLI::Validator host_name() {
  return CLI::Validator(
      [](const std::string& host) -> std::string {
        const bool plain = !host.empty() && host.find_first_of("/?#@ \t\r\n") == std::string::npos;
        if (plain && origin_of("http://" + host)) return {};
        return "needs a host name, host:port or [IPv6]:port, got '" + host + "'";
      },
      "");
}

CLI::Validator rule_name() {
  return CLI::Validator(
      [](const std::string& name) {
        return find_rule(name) ? std::string() : "names unknown rule '" + name + "' (--list prints them)";
      },
      "");
}

bool is_token(std::string_view name) {
  if (name.empty()) return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

// "Name: value" as {Name, value}; nullopt when Name is not an HTTP token.
std::optional<std::pair<std::string, std::string>> header_of(std::string_view line) {
  const auto colon = line.find(':');
  if (colon == std::string_view::npos || !is_token(line.substr(0, colon))) return std::nullopt;
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
    value.remove_prefix(1);
  return std::pair{std::string(line.substr(0, colon)), std::string(value)};
}

// Header values may be secrets: no message below shows one.
CLI::Validator header_line() {
  return CLI::Validator(
      [](const std::string& line) -> std::string {
        const auto header = header_of(line);
        if (!header) return "needs 'Name: value' with a valid header name";
        if (header->second.find_first_of("\r\n") != std::string::npos)
          return "gives " + header->first + " a value with a line break";
        return {};
      },
      "");
}

// "HOST:PORT" or "[IPv6]:PORT" as {HOST, PORT}.
std::optional<std::pair<std::string, std::uint16_t>> listen_address_of(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::string_view host = text.substr(0, colon);
  if (host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  else if (host.find(':') != std::string_view::npos)
    return std::nullopt;
  const auto port = common::cli::digits(text.substr(colon + 1), 65535);
  if (host.empty() || !port || colon + 1 == text.size()) return std::nullopt;
  return std::pair{std::string(host), static_cast<std::uint16_t>(*port)};
}

// "Name=VARIABLE" as {Name, VARIABLE}.
std::optional<std::pair<std::string, std::string>> header_from_env_of(std::string_view text) {
  const auto eq = text.find('=');
  if (eq == std::string_view::npos || !is_token(text.substr(0, eq)) || eq + 1 == text.size())
    return std::nullopt;
  return std::pair{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
}

CLI::Validator header_from_env(const Getenv& getenv) {
  return CLI::Validator(
      [getenv](const std::string& text) -> std::string {
        const auto named = header_from_env_of(text);
        if (!named) return "needs Name=VARIABLE";
        const auto secret = getenv(named->second);
        const std::string variable =
            "cannot send " + named->first + ": environment variable " + named->second;
        if (!secret || secret->empty()) return variable + " is not set or empty";
        if (secret->find_first_of("\r\n") != std::string::npos) return variable + " holds a line break";
        return {};
      },
      "");
}

// An option in seconds, fractions allowed, kept in milliseconds.
CLI::Option* add_seconds(CLI::App& command, const std::string& name, std::chrono::milliseconds& into,
                         const std::string& help) {
  const auto store = [&into](const double& seconds) {
    into = std::chrono::milliseconds(std::max<std::int64_t>(1, std::llround(seconds * 1000.0)));
  };
  return command.add_option_function<double>(name, store, help)
      ->type_name("S")
      ->check(positive_number("seconds", 86400.0 * 7));
}

// "a check run", "record", "diff": how messages name a command.
std::string called(const CLI::App& command) {
  return command.get_parent() != nullptr ? command.get_name() : "a check run";
}

std::string spelled(const CLI::Option& option) {
  return option.get_name() + " " + option.get_type_name();
}

std::vector<const CLI::App*> either_or_groups(const CLI::App& command) {
  return command.get_subcommands([](const CLI::App* sub) { return sub->get_name().empty(); });
}

std::vector<const CLI::Option*> members(const CLI::App& group) {
  return group.get_options([&group](const CLI::Option* option) { return option != group.get_help_ptr(); });
}

std::string joined(const std::vector<const CLI::Option*>& options, const std::string& separator) {
  std::string out;
  for (const CLI::Option* option : options)
    out += (out.empty() ? "" : separator) + spelled(*option);
  return out;
}

// CLI11's help with a usage line for each command that spells out what it requires, and diff's
// either/or group shown as one more group of options (CLI11 2.1 has neither App::usage nor that).
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* app, std::string name) const override {
    std::string usage = get_label("Usage") + ": " + name + required(*app) + "\n";
    for (const CLI::App* sub : app->get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); }))
      usage += "   or: " + name + " " + sub->get_name() + required(*sub) + "\n";
    return usage;
  }

  std::string make_expanded(const CLI::App* group) const override {
    return make_group(group->get_group() + " (exactly one)", false, members(*group));
  }

 private:
  std::string required(const CLI::App& command) const {
    std::string words;
    for (const CLI::Option* option : command.get_options())
      if (option->get_required()) words += " " + spelled(*option);
    for (const CLI::App* group : either_or_groups(command))
      words += " (" + joined(members(*group), " | ") + ")";
    return words + " [" + get_label("OPTIONS") + "]";
  }
};

// Safety: how much and how fast it asks.
void add_limits(CLI::App& command, CliOptions& o) {
  command.add_option("--rate", o.client.rate, "at most N requests a second (default: unlimited)")
      ->type_name("N")
      ->check(positive_number("requests a second", std::numeric_limits<double>::max()));
  command.add_option("--concurrency", o.run.concurrency, "pages in flight while walking")
      ->type_name("N")
      ->capture_default_str()
      ->transform(whole_number(1, 64));
  add_seconds(command, "--connect-timeout", o.client.connect_timeout, "seconds to connect (default 5)");
  add_seconds(command, "--timeout", o.client.read_timeout, "seconds for one request, all of it (default 15)");
  add_seconds(command, "--deadline", o.client.deadline, "seconds for the whole run (default: none)");
  command.add_option("--max-requests", o.client.max_requests, "stop after N requests (default: none)")
      ->type_name("N")
      ->transform(whole_number());
  command.add_option("--retries", o.client.retries, "retries on 429/503, honouring Retry-After (at most 20)")
      ->type_name("N")
      ->capture_default_str()
      ->transform(CLI::Bound(0, 20).description(""))
      ->transform(whole_number());  // runs first: transform() puts it in front
}

// Safety: what it sends and whom it trusts.
void add_credentials(CLI::App& command, CliOptions& o, const Getenv& getenv) {
  command
      .add_option_function<std::vector<std::string>>(
          "--header",
          [&o](const std::vector<std::string>& lines) {
            for (const auto& line : lines) {
              o.client.headers.push_back(*header_of(line));
              o.shown_headers.push_back({o.client.headers.back().first, o.client.headers.back().second, {}});
            }
          },
          "send this header (repeatable); it goes to the base URL's origin only")
      ->type_name("'Name: value'")
      ->allow_extra_args(false)
      ->check(header_line());
  command
      .add_option_function<std::vector<std::string>>(
          "--header-from-env",
          [&o, getenv](const std::vector<std::string>& names) {
            for (const auto& text : names) {
              const auto named = header_from_env_of(text);
              o.client.headers.emplace_back(named->first, *getenv(named->second));
              o.client.secrets.push_back(*getenv(named->second));
              o.shown_headers.push_back({named->first, {}, named->second});
            }
          },
          "send header Name with the value of environment variable VAR, so\n"
          "secrets stay out of command lines, logs and reports")
      ->type_name("Name=VAR")
      ->allow_extra_args(false)
      ->check(header_from_env(getenv));
  command.add_option("--cacert", o.client.cacert, "trust this CA bundle besides the system's")
      ->type_name("FILE");
  command.add_flag("--insecure", o.client.insecure, "do not verify TLS certificates (prints a warning)");
}

// What every command takes: the deployment, the walk, the safety options and progress; returns
// --base-url, which each command requires in its own way.
CLI::Option* add_client_options(CLI::App& command, CliOptions& o, const Getenv& getenv) {
  command.option_defaults()->group("Run");
  CLI::Option* base_url =
      command.add_option("--base-url", o.client.base_url, "the deployment, http(s)://host[:port][/prefix]")
          ->type_name("URL")
          ->check(absolute_url());
  command
      .add_option("--walk-limit", o.run.walk_limit,
                  "records asked for a page while walking (default: 12, DRF's, in a\n"
                  "check's full walk; 100 for record and diff)")
      ->type_name("N")
      ->transform(whole_number(1));
  command.option_defaults()->group("Safety");
  add_limits(command, o);
  add_credentials(command, o, getenv);
  command.option_defaults()->group("Reports");
  command.add_flag_callback(
      "--no-progress", [&o] { o.progress = false; }, "no progress display while walking");
  return base_url;
}

// A FILE option for each report format the command writes (report_formats.hpp), the last of each kept.
void add_report_options(CLI::App& command, CliOptions& o) {
  command.option_defaults()->group("Reports");
  const bool diff = command.get_parent() != nullptr;
  for (const ReportFormat& format : report_formats()) {
    if (diff ? !format.write_diff : !format.write_run) continue;
    command
        .add_option_function<std::string>(
            std::string(format.flag),
            [&o, &format](const std::string& file) {
              std::erase_if(o.reports, [&](const ReportFile& r) { return r.format == &format; });
              o.reports.push_back({&format, file});
            },
            std::string(format.help))
        ->type_name("FILE");
  }
}

// --list and --version stand alone: they end the parse before --base-url is found missing.
std::function<void()> stand_alone(bool& flag) {
  return [&flag] {
    flag = true;
    throw CLI::Success();
  };
}

// --only and --skip: rule names, comma-separated or repeated, each a row of the table.
void add_rule_list(CLI::App& check, const std::string& name, std::vector<std::string>& rules,
                   const std::string& help) {
  check.add_option(name, rules, help)
      ->type_name("RULE[,RULE]")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(rule_name());
}

// --images: all, none, or sample:N with N ≥ 1.
std::optional<ImagesChoice> images_choice(std::string_view text) {
  if (text == "all") return ImagesChoice{};
  if (text == "none") return ImagesChoice{ImagesChoice::Kind::none, 0};
  if (!text.starts_with("sample:")) return std::nullopt;
  const std::string_view digits = text.substr(7);
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc{} || end != digits.data() + digits.size() || digits.empty() || n == 0)
    return std::nullopt;
  return ImagesChoice{ImagesChoice::Kind::sample, n};
}

// What a check run asks: quick or full, and the full walk's caps.
void add_mode_options(CLI::App& check, CliOptions& o) {
  check
      .add_option_function<std::string>(
          "--mode", [&o](const std::string& mode) { o.run.mode = mode == "full" ? Mode::Full : Mode::Quick; },
          "quick (default): a bounded set of pages and probes; full: also\n"
          "walks every page along `next`")
      ->type_name("quick|full")
      ->check(CLI::Validator(
          [](const std::string& mode) {
            return mode == "quick" || mode == "full" ? std::string() : "is quick or full, got '" + mode + "'";
          },
          ""));
  check
      .add_option(
          "--page-cap", o.run.page_cap,
          "full: at most N requests of pages and pictures (default: count/\nlimit + 2 pages, at most " +
              std::to_string(kMaxWalkPages) + ", and one a picture, at most " +
              std::to_string(kMaxWalkRequests) + " in all)")
      ->type_name("N")
      ->transform(whole_number());
  check
      .add_option_function<std::string>(
          "--images", [&o](const std::string& text) { o.run.images = *images_choice(text); },
          "which records' pictures to load and judge: all (default: quick\n"
          "mode reads a sample of at most 40 whole; full mode judges every\n"
          "record walked by its head and 40 whole), sample:N (N, spread\n"
          "over the walk; quick mode at most 40) or none")
      ->type_name("all|sample:N|none")
      ->check(CLI::Validator(
          [](const std::string& text) {
            return images_choice(text)
                       ? std::string()
                       : "is all, none or sample:N (N a whole number from 1), got '" + text + "'";
          },
          ""));
  check
      .add_option("--byte-cap", o.run.byte_cap,
                  "full: stop the walk once its bodies, pages and pictures, reach N\nbytes (default 4 GiB; "
                  "0: no cap)")
      ->type_name("N")
      ->transform(whole_number());
}

void add_check_options(CLI::App& check, CliOptions& o) {
  check.option_defaults()->group("Run");
  add_mode_options(check, o);
  check
      .add_option_function<std::uint64_t>(
          "--seed",
          [&o](const std::uint64_t& seed) {
            o.run.seed = seed;
            o.seed_given = true;
          },
          "seed of the random choices (default: from the clock; always printed)")
      ->type_name("S")
      ->transform(whole_number());
  check.add_option("--order-key", o.run.order_key, "the field results ascend by")
      ->type_name("FIELD")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](const std::string& field) { return field.empty() ? "needs a field name" : ""; }, ""));
  check
      .add_option("--public-url", o.run.public_url,
                  "the origin links and images must carry, if not the base URL's")
      ->type_name("URL")
      ->check(absolute_url());
  check
      .add_option("--alt-host", o.run.alt_host,
                  "a second host name of the deployment, host[:port], which the quick\n"
                  "plan asks as Host and X-Forwarded-Host (default: the base host with\n"
                  "its port written the other way)")
      ->type_name("HOST")
      ->check(host_name());
  check
      .add_option("--picture-concurrency", o.run.picture_concurrency,
                  "pictures loading at once, on threads of their own (a full walk\n"
                  "loads every record's; quick mode at least 2)")
      ->type_name("N")
      ->capture_default_str()
      ->transform(whole_number(1, 64));
  check.add_flag("--require-filter", o.run.require_filter,
                 "fail a deployment that ignores ?entity= altogether (by default a\n"
                 "warning: edw's filter_class is ignored by django-filter 22.1 and later)");
  add_rule_list(check, "--only", o.run.only, "check only these rules (repeatable)");
  add_rule_list(check, "--skip", o.run.skip, "leave these rules out (repeatable)");
  check.add_flag_callback("--list", stand_alone(o.list), "print the rules, one a line, and exit");
}

void add_monitor_options(CLI::App& monitor, CliOptions& o) {
  // A monitor runs quick checks only: the walk's options are not its own.
  for (const char* walking : {"--walk-limit", "--concurrency", "--no-progress"})
    monitor.remove_option(monitor.get_option(walking));
  monitor.option_defaults()->group("Run");
  monitor
      .add_option_function<std::string>(
          "--interval",
          [&o](const std::string& text) {
            std::string why;
            o.monitor.interval = *parse_interval(text, why);
          },
          "time from one run's start to the next's: 30s, 5m, 1h, 1h30m\n(default 5m)")
      ->type_name("DURATION")
      ->check(CLI::Validator(
          [](const std::string& text) {
            std::string why;
            parse_interval(text, why);
            return why;
          },
          ""));
  monitor
      .add_option_function<std::string>(
          "--listen",
          [&o](const std::string& text) {
            std::tie(o.monitor.listen_host, o.monitor.listen_port) = *listen_address_of(text);
          },
          "serve /metrics, /report.html and /report.json here (default\n127.0.0.1:9464; port 0 picks a free "
          "one)")
      ->type_name("HOST:PORT")
      ->check(CLI::Validator(
          [](const std::string& text) {
            return listen_address_of(text) ? std::string()
                                           : "needs HOST:PORT (an address and a port up to 65535; IPv6 as "
                                             "[::1]:9464), got '" +
                                                 text + "'";
          },
          ""));
  monitor.add_option("--runs", o.monitor.runs, "stop after N runs (default: run until SIGINT or SIGTERM)")
      ->type_name("N")
      ->transform(whole_number(1));
}

void add_record_options(CLI::App& record, CliOptions& o) {
  record.option_defaults()->group("Run");
  record.add_option("--out", o.out, "the snapshot directory")
      ->type_name("DIR")
      ->required()
      ->check(directory());
  record.add_flag("--force", o.force,
                  "replace an existing OUT (once the new recording is complete), or a\n"
                  "partial recording of another deployment");
}

void add_diff_options(CLI::App& diff, CliOptions& o, CLI::Option* base_url) {
  diff.option_defaults()->group("Run");
  diff.add_option("--snapshot", o.snapshot, "the old side")->type_name("DIR")->required()->check(directory());
  diff.add_option("--ignore", o.ignore, "leave these fields out (repeatable), e.g. volatile ones")
      ->type_name("FIELD[,FIELD]")
      ->delimiter(',')
      ->allow_extra_args(false);
  diff.add_flag("--strict-host", o.strict_host,
                "compare image URLs whole (default: their scheme and host are not compared)");
  auto* new_side = diff.add_option_group("Compared with");
  new_side->add_option(base_url);
  new_side->add_option("--against", o.against, "the new side, when it is a snapshot too")
      ->type_name("DIR")
      ->check(directory());
  new_side->require_option(1);
}

const char* word_of(Command command) {
  return command == Command::record ? "record" : command == Command::diff ? "diff" : "monitor";
}

// record and diff start the command line, and a check run's requirement of --base-url is not theirs.
CLI::App& add_command(CLI::App& app, CliOptions& o, Command which, std::string description,
                      std::string footer) {
  CLI::App& command = *app.add_subcommand(word_of(which), std::move(description));
  command.footer(std::move(footer));
  command.group("Commands");
  command.preparse_callback([&app, &command, &o, which](std::size_t) {
    for (CLI::Option* option : app.get_options()) {
      if (option->count() > 0 && option != app.get_help_ptr())
        throw CLI::ParseError(command.get_name() + " must be the first word, before " + option->get_name(),
                              CLI::ExitCodes::ExtrasError);
      option->required(false);
    }
    o.command = which;
  });
  return command;
}

// Every command and option, each declared once with its help and its check.
void declare_commands(CLI::App& app, CliOptions& o, const Getenv& getenv) {
  app.name("entities-images-contract");
  app.description(
      "Checks a deployment of GET {URL}/edw/api/entities-images/ against its contract: schema,\n"
      "cross-field rules, page length, links, origin, ordering, walk, headers and parameter handling.\n"
      "It only sends GET, HEAD and OPTIONS. Exit: 0 all rules pass, 1 a rule failed, 2 usage or\n"
      "connection error.");
  app.footer("entities-images-contract COMMAND --help lists the options of record, diff or monitor.");
  app.formatter(std::make_shared<HelpFormatter>());
  app.get_formatter()->column_width(30);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  o.run.concurrency = 2;  // the command line's default, above the library's
  CLI::App& record =
      add_command(app, o, Command::record, "Walks the deployment into a snapshot (docs/snapshots.md).",
                  "It writes records.jsonl as served, the first pages and a manifest with sha256s into\n"
                  "OUT.partial and renames it to OUT when complete; run again, it resumes an interrupted\n"
                  "recording. Exit: 0 recorded, 2 error.");
  CLI::App& diff =
      add_command(app, o, Command::diff, "Compares a snapshot with the deployment or with a second snapshot.",
                  "It reports records added, removed and changed (by id, field by field), schema drift, the\n"
                  "first page's headers and count. Exit: 0 no change, 1 changes, 2 error.");
  CLI::App& monitor = add_command(
      app, o, Command::monitor, "Runs the quick checks on a schedule and serves their outcome to Prometheus.",
      "It serves the metrics on /metrics (Prometheus' text format), the last run's report on\n"
      "/report.html and /report.json (docs/monitor.md). A run that finds failures, or cannot reach\n"
      "the deployment (entimg_contract_up 0), is a metric, never the end of the monitor; each run's\n"
      "--deadline is the interval unless given. Stops on SIGINT or SIGTERM. Exit: 0 stopped, 2 usage\n"
      "error or cannot listen.");
  add_client_options(app, o, getenv)->required();
  add_check_options(app, o);
  add_report_options(app, o);
  add_client_options(record, o, getenv)->required();
  add_record_options(record, o);
  add_diff_options(diff, o, add_client_options(diff, o, getenv));
  add_report_options(diff, o);
  add_client_options(monitor, o, getenv)->required();
  add_monitor_options(monitor, o);
  for (CLI::App* command : {&app, &record, &diff, &monitor}) {
    command->option_defaults()->group("Options");
    command->add_flag_callback("--version", stand_alone(o.version), "print the version and exit");
    command->set_help_flag("-h,--help", "print this help and exit");
    common::cli::flags_take_no_value(*command);
  }
}

// What to say about a word no option of its command took.
std::string misplaced(const CLI::App& app, const CLI::App& command, const std::string& word) {
  const std::string name = word.substr(0, word.find('='));
  std::string owners;
  auto others = app.get_subcommands([](const CLI::App* sub) { return !sub->get_name().empty(); });
  others.insert(others.begin(), &app);
  for (const CLI::App* other : others)
    if (other != &command && name.starts_with("-") && other->get_option_no_throw(name) != nullptr)
      owners += (owners.empty() ? "" : " and ") + called(*other);
  if (owners.empty()) return "unknown option '" + word + "'";
  return "option " + name + " is not one of " + called(command) + "'s (it belongs to " + owners + ")";
}

// What a command lacks, after CLI11's RequiredError; empty if it lacks nothing.
std::string unmet(const CLI::App& command) {
  for (const CLI::Option* option : command.get_options())
    if (option->get_required() && option->count() == 0) return called(command) + " needs " + spelled(*option);
  for (const CLI::App* group : either_or_groups(command)) {
    const auto options = members(*group);
    const auto given = std::count_if(options.begin(), options.end(),
                                     [](const CLI::Option* option) { return option->count() > 0; });
    if (given != 1)
      return called(command) + (given == 0 ? " needs" : " takes") + " either " + joined(options, " or ") +
             (given == 0 ? "" : ", not both");
  }
  return {};
}

// One line for a bad command line, whatever CLI11 threw.
std::string error_line(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App& command = app.get_subcommands().empty() ? app : *app.get_subcommands().front();
  for (const CLI::App* parsed : {&app, &command})
    if (const auto extras = parsed->remaining(); !extras.empty())
      return misplaced(app, *parsed, extras.front());
  if (auto line = common::cli::option_error(e)) return *line;
  if (dynamic_cast<const CLI::RequiredError*>(&e))
    if (const std::string lacking = unmet(command); !lacking.empty()) return lacking;
  return e.what();
}

}  // namespace

std::optional<std::filesystem::path> CliOptions::report_file(std::string_view flag) const {
  for (const ReportFile& r : reports)
    if (r.format->flag == flag) return r.file;
  return std::nullopt;
}

std::string command_to_repeat(std::string_view program, const std::vector<std::string_view>& args,
                              const CliOptions& options) {
  std::string line = detail::shell_quoted(program);
  for (const std::string_view arg : args)
    line += " " + detail::shell_quoted(arg);
  if (!options.seed_given) line += " --seed " + std::to_string(options.run.seed);
  // --header-from-env keeps secrets off the command line; one typed there as well is masked all the same.
  detail::SecretMask(options.client.secrets).apply(line);
  return line;
}

std::string monitor_run_to_repeat(std::string_view program, const std::vector<std::string_view>& args,
                                  const CliOptions& options, std::uint64_t seed) {
  // The monitor's own options are those a check run does not take.
  CliOptions unused;
  CLI::App app;
  declare_commands(app, unused, [](const std::string&) { return std::nullopt; });
  std::vector<std::string_view> check_args;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string name(args[i].substr(0, args[i].find('=')));
    if (i == 0 && args[i] == "monitor") continue;
    const CLI::Option* own = app.get_subcommand("monitor")->get_option_no_throw(name);
    if (own != nullptr && app.get_option_no_throw(name) == nullptr) {
      if (name.size() == args[i].size() && own->get_expected_min() > 0) ++i;  // its value, a word of its own
      continue;
    }
    check_args.push_back(args[i]);
  }
  CliOptions run = options;
  run.seed_given = false;
  run.run.seed = seed;
  return command_to_repeat(program, check_args, run);
}

std::string contract_usage(Command command) {
  CliOptions unused;
  CLI::App app;
  declare_commands(app, unused, [](const std::string&) { return std::nullopt; });
  if (command == Command::check) return app.help();
  return app.get_subcommand(word_of(command))->help(app.get_name());
}

ParsedCli parse_contract_command_line(const std::vector<std::string_view>& args, const Getenv& getenv) {
  ParsedCli parsed;
  CLI::App app;
  declare_commands(app, parsed.options, getenv);
  try {
    common::cli::parse(app, args);
  } catch (const CLI::CallForHelp&) {
    parsed.options.help = true;
  } catch (const CLI::Success&) {
    // --list or --version: their flag is set
  } catch (const CLI::ParseError& e) {
    parsed.error = error_line(app, e);
  }
  const CliOptions& o = parsed.options;
  if (parsed.error.empty() && o.command == Command::check && !o.help && !o.list && !o.version)
    parsed.error = nothing_to_check(o.run);  // before any request: the run could only end in exit 2
  return parsed;
}

}  // namespace entimg::contract
