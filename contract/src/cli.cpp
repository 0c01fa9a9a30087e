#include "entimg/contract/cli.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace entimg::contract {
namespace {

bool parse_count(std::string_view text, std::uint64_t& out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return false;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && ptr == text.data() + text.size();
}

bool parse_seconds(std::string_view text, std::chrono::milliseconds& out) {
  double seconds = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (ec != std::errc{} || ptr != text.data() + text.size() || !std::isfinite(seconds) || seconds < 0 ||
      seconds > 86400.0 * 7)
    return false;
  out = std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000.0));
  return true;
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

void split_names(std::string_view list, std::vector<std::string>& out) {
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    if (comma > start) out.emplace_back(list.substr(start, comma - start));
    start = comma + 1;
  }
}

}  // namespace

std::string contract_usage() {
  return R"(Usage: entities-images-contract --base-url URL [options]
       entities-images-contract record --base-url URL --out DIR [options]
       entities-images-contract diff --snapshot DIR (--base-url URL | --against DIR) [options]

Checks a deployment of GET {URL}/edw/api/entities-images/ against its contract: schema, cross-field
rules, page length, links, origin, ordering, walk, headers and parameter handling. It only sends
GET, HEAD and OPTIONS. Exit: 0 all rules pass, 1 a rule failed, 2 usage or connection error.

Run:
  --base-url URL          the deployment, http(s)://host[:port][/prefix] (required)
  --mode quick|full       quick (default): a bounded set of pages and probes; full: also walks
                          every page along `next`
  --walk-limit N          full: ask for N records a page while walking (default: none, so 12)
  --page-cap N            full: walk at most N pages (default: count/limit + 2)
  --seed S                seed of the random choices (default: from the clock; always printed)
  --order-key FIELD       the field results ascend by (default id)
  --public-url URL        the origin links and images must carry, if not the base URL's
  --only RULE[,RULE]      check only these rules (repeatable)
  --skip RULE[,RULE]      leave these rules out (repeatable)
  --list                  print the rules, one a line, and exit

Safety (it is meant to be pointed at production):
  --rate N                at most N requests a second (default: unlimited)
  --concurrency N         pages in flight during a full walk (default 2)
  --connect-timeout S     seconds to connect (default 5)
  --timeout S             seconds for one request, all of it (default 15)
  --deadline S            seconds for the whole run (default: none)
  --max-requests N        stop after N requests (default: none)
  --retries N             retries on 429/503, honouring Retry-After (default 3)
  --header 'Name: value'  send this header (repeatable); it goes to the base URL's origin only
  --header-from-env Name=VAR
                          send header Name with the value of environment variable VAR, so
                          secrets stay out of command lines, logs and reports
  --cacert FILE           trust this CA bundle besides the system's
  --insecure              do not verify TLS certificates (prints a warning)

Reports:
  --junit FILE            write a JUnit XML report (Catch2's reporter), one test case a rule
  --json FILE             write a JSON report
  --no-progress           no progress display during a full walk
  --help, --version

record: walks the deployment into a snapshot (records.jsonl as served, the first pages, a
manifest with sha256s). It writes OUT.partial and renames it to OUT when complete; run again, it
resumes an interrupted recording. Exit: 0 recorded, 2 error. Takes the safety options above.
  --out DIR               the snapshot directory
  --walk-limit N          records asked for a page (default 100)
  --force                 replace an existing OUT (once the new recording is complete), or a
                          partial recording of another deployment

diff: compares the snapshot with the deployment (--base-url) or with a second snapshot
(--against): records added, removed and changed (by id, field by field), schema drift, the
first page's headers, count. Exit: 0 no change, 1 changes, 2 error. Takes the safety options,
--walk-limit (default 100), --junit, --json.
  --snapshot DIR          the old side
  --against DIR           the new side, when it is a snapshot too
  --ignore FIELD[,FIELD]  leave these fields out (repeatable), e.g. volatile ones
  --strict-host           compare image URLs whole (default: their scheme and host are not compared)
)";
}

ParsedCli parse_contract_command_line(
    const std::vector<std::string_view>& args,
    const std::function<std::optional<std::string>(const std::string&)>& getenv) {
  ParsedCli parsed;
  CliOptions& o = parsed.options;
  o.run.concurrency = 2;
  bool base_given = false;
  std::vector<std::string> given;  // the options on the line, to check they fit the command
  std::size_t first = 0;
  if (!args.empty() && (args[0] == "record" || args[0] == "diff")) {
    o.command = args[0] == "record" ? Command::record : Command::diff;
    first = 1;
  }
  auto fail = [&](std::string message) {
    parsed.error = std::move(message);
    return parsed;
  };
  for (std::size_t i = first; i < args.size(); ++i) {
    std::string_view arg = args[i];
    std::optional<std::string_view> inline_value;
    if (const auto eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      inline_value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    static constexpr std::string_view kFlags[] = {"--help",     "-h",      "--version",     "--list",
                                                  "--insecure", "--force", "--strict-host", "--no-progress"};
    if (std::find(std::begin(kFlags), std::end(kFlags), arg) != std::end(kFlags)) {
      if (inline_value) return fail("option " + std::string(arg) + " takes no value");
      if (arg == "--help" || arg == "-h") o.help = true;
      if (arg == "--version") o.version = true;
      if (arg == "--list") o.list = true;
      if (arg == "--insecure") o.client.insecure = true;
      if (arg == "--no-progress") o.progress = false;
      if (arg == "--force") o.force = true;
      if (arg == "--strict-host") o.strict_host = true;
      given.emplace_back(arg);
      continue;
    }
    static constexpr std::string_view kValued[] = {
        "--base-url",   "--mode",     "--walk-limit",   "--page-cap", "--seed",        "--order-key",
        "--public-url", "--only",     "--skip",         "--rate",     "--concurrency", "--connect-timeout",
        "--timeout",    "--deadline", "--max-requests", "--retries",  "--header",      "--header-from-env",
        "--cacert",     "--junit",    "--json",         "--out",      "--snapshot",    "--against",
        "--ignore"};
    if (std::find(std::begin(kValued), std::end(kValued), arg) == std::end(kValued))
      return fail("unknown option '" + std::string(args[i]) + "'");
    std::string_view value;
    if (inline_value)
      value = *inline_value;
    else if (i + 1 < args.size())
      value = args[++i];
    else
      return fail("option " + std::string(arg) + " needs a value");
    const std::string name(arg);
    given.emplace_back(arg);
    std::uint64_t n = 0;
    std::chrono::milliseconds ms{0};
    if (arg == "--base-url" || arg == "--public-url") {
      const auto origin = origin_of(value);
      if (!origin)
        return fail(name + " needs an absolute http:// or https:// URL, got '" + std::string(value) + "'");
      if (value.substr(0, value.find('/', value.find("//") + 2)).find('@') != std::string_view::npos)
        return fail(name + " must not carry credentials; use --header-from-env Authorization=VAR");
      if (arg == "--base-url") {
        o.client.base_url = value;
        base_given = true;
      } else {
        o.run.public_url = std::string(value);
      }
    } else if (arg == "--mode") {
      if (value != "quick" && value != "full")
        return fail("--mode is quick or full, got '" + std::string(value) + "'");
      o.run.mode = value == "full" ? Mode::Full : Mode::Quick;
    } else if (arg == "--walk-limit" || arg == "--page-cap" || arg == "--max-requests" ||
               arg == "--retries" || arg == "--concurrency" || arg == "--seed") {
      if (!parse_count(value, n))
        return fail(name + " needs a whole number, got '" + std::string(value) + "'");
      if (arg == "--walk-limit") {
        if (n == 0) return fail("--walk-limit must be at least 1");
        o.run.walk_limit = n;
      }
      if (arg == "--page-cap") o.run.page_cap = n;
      if (arg == "--max-requests") o.client.max_requests = static_cast<std::size_t>(n);
      if (arg == "--retries") o.client.retries = static_cast<int>(std::min<std::uint64_t>(n, 20));
      if (arg == "--concurrency") {
        if (n < 1 || n > 64) return fail("--concurrency must be from 1 to 64");
        o.run.concurrency = static_cast<std::size_t>(n);
      }
      if (arg == "--seed") {
        o.run.seed = n;
        o.seed_given = true;
      }
    } else if (arg == "--rate") {
      double rate = 0;
      const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), rate);
      if (ec != std::errc{} || ptr != value.data() + value.size() || !std::isfinite(rate) || rate <= 0)
        return fail("--rate needs a positive number of requests a second, got '" + std::string(value) + "'");
      o.client.rate = rate;
    } else if (arg == "--connect-timeout" || arg == "--timeout" || arg == "--deadline") {
      if (!parse_seconds(value, ms) || ms.count() == 0)
        return fail(name + " needs a positive number of seconds, got '" + std::string(value) + "'");
      if (arg == "--connect-timeout") o.client.connect_timeout = ms;
      if (arg == "--timeout") o.client.read_timeout = ms;
      if (arg == "--deadline") o.client.deadline = ms;
    } else if (arg == "--order-key") {
      if (value.empty()) return fail("--order-key needs a field name");
      o.run.order_key = value;
    } else if (arg == "--only" || arg == "--skip") {
      std::vector<std::string> names;
      split_names(value, names);
      for (const auto& rule : names)
        if (!find_rule(rule)) return fail("unknown rule '" + rule + "' (--list prints them)");
      auto& into = arg == "--only" ? o.run.only : o.run.skip;
      into.insert(into.end(), names.begin(), names.end());
    } else if (arg == "--header") {
      const auto colon = value.find(':');
      if (colon == std::string_view::npos || !is_token(value.substr(0, colon)))
        return fail("--header needs 'Name: value' with a valid header name");
      std::string_view header_value = value.substr(colon + 1);
      while (!header_value.empty() && (header_value.front() == ' ' || header_value.front() == '\t'))
        header_value.remove_prefix(1);
      if (header_value.find_first_of("\r\n") != std::string_view::npos)
        return fail("--header " + std::string(value.substr(0, colon)) + ": a value cannot hold a line break");
      o.client.headers.emplace_back(value.substr(0, colon), header_value);
    } else if (arg == "--header-from-env") {
      const auto eq = value.find('=');
      if (eq == std::string_view::npos || !is_token(value.substr(0, eq)) || eq + 1 == value.size())
        return fail("--header-from-env needs Name=VARIABLE");
      const std::string variable(value.substr(eq + 1));
      const auto secret = getenv(variable);
      if (!secret || secret->empty())
        return fail("--header-from-env: environment variable " + variable + " is not set or empty");
      if (secret->find_first_of("\r\n") != std::string::npos)
        return fail("--header-from-env: environment variable " + variable + " holds a line break");
      o.client.headers.emplace_back(value.substr(0, eq), *secret);
    } else if (arg == "--cacert") {
      o.client.cacert = std::filesystem::path(value);
    } else if (arg == "--junit") {
      o.junit = std::filesystem::path(value);
    } else if (arg == "--json") {
      o.json = std::filesystem::path(value);
    } else if (arg == "--out" || arg == "--snapshot" || arg == "--against") {
      if (value.empty()) return fail(name + " needs a directory");
      (arg == "--out" ? o.out : arg == "--snapshot" ? o.snapshot : o.against) = std::filesystem::path(value);
    } else if (arg == "--ignore") {
      split_names(value, o.ignore);
    }
  }
  if (o.help || o.version) return parsed;
  // What each command takes besides the safety options, --header*, --cacert and --no-progress.
  static constexpr std::string_view kCheckOnly[] = {"--mode",       "--page-cap", "--seed", "--order-key",
                                                    "--public-url", "--only",     "--skip", "--list"};
  static constexpr std::string_view kRecordOnly[] = {"--out", "--force"};
  static constexpr std::string_view kDiffOnly[] = {"--snapshot", "--against", "--ignore", "--strict-host"};
  static constexpr std::string_view kReports[] = {"--junit", "--json"};
  const auto refuse = [&](const auto& names, const char* command) -> std::optional<std::string> {
    for (const auto& g : given)
      if (std::find(std::begin(names), std::end(names), g) != std::end(names))
        return "option " + g + " is not one of " + command;
    return std::nullopt;
  };
  const char* command_name = o.command == Command::record ? "record's"
                             : o.command == Command::diff ? "diff's"
                                                          : "a check run's (it belongs to record or diff)";
  if (o.command != Command::check)
    if (auto bad = refuse(kCheckOnly, command_name)) return fail(*bad);
  if (o.command != Command::record)
    if (auto bad = refuse(kRecordOnly, command_name)) return fail(*bad);
  if (o.command != Command::diff)
    if (auto bad = refuse(kDiffOnly, command_name)) return fail(*bad);
  if (o.command == Command::record)
    if (auto bad = refuse(kReports, command_name)) return fail(*bad);
  if (o.command == Command::check && o.list) return parsed;
  if (o.command == Command::record && !o.out) return fail("record needs --out DIR");
  if (o.command == Command::diff) {
    if (!o.snapshot) return fail("diff needs --snapshot DIR");
    if (base_given == o.against.has_value())
      return fail("diff compares the snapshot with either --base-url URL or --against DIR");
    return parsed;
  }
  if (!base_given) return fail("--base-url is required");
  return parsed;
}

}  // namespace entimg::contract
