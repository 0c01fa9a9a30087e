// entimg-broken-server: the mock with one deliberate fault (or one tolerated difference), for the
// black-box tests of the contract tool and for people trying the suite out.
#include <charconv>
#include <iostream>
#include <limits>

#include "broken/http_server.hpp"
#include "broken/variants.hpp"
#include "entimg/common/stop_signals.hpp"

namespace {

constexpr std::string_view kUsage = R"(Usage: entimg-broken-server --variant NAME [options]

Serves GET /edw/api/entities-images/ like entities-images-mock, with one deliberate fault.

Options:
  --variant NAME   which fault (see --list)
  --records N      size of the generated collection (default 300)
  --seed S         seed of the generated collection (default 1)
  --host ADDR      address to listen on (default 127.0.0.1)
  --port N         port to listen on; 0 picks a free one (default 0)
  --list           list the variants and the rules each one fails, and exit
  --help           print this help and exit

When ready it prints "listening on http://ADDR:PORT". SIGINT or SIGTERM stops it.
)";

struct Options {
  std::string variant, host = "127.0.0.1";
  std::uint64_t records = 300, seed = 1;
  int port = 0;
  bool list = false, help = false;
};

bool parse_number(std::string_view text, std::uint64_t max, std::uint64_t& out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string_view::npos) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size() && out <= max;
}

// "" when the command line is fine, else what is wrong with it.
std::string parse(const std::vector<std::string_view>& args, Options& o) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view given = args[i];
    std::string_view arg = given, value;
    if (arg == "--help" || arg == "-h" || arg == "--list") {
      (arg == "--list" ? o.list : o.help) = true;
      continue;
    }
    if (const auto eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return "option " + std::string(arg) + " needs a value";
    }
    std::uint64_t n = 0;
    const auto bad = [&] { return "option " + std::string(arg) + " got '" + std::string(value) + "'"; };
    if (arg == "--variant") {
      o.variant = value;
    } else if (arg == "--host") {
      o.host = value;
    } else if (arg == "--records") {
      if (!parse_number(value, 1'000'000'000'000ULL, o.records)) return bad();
    } else if (arg == "--seed") {
      if (!parse_number(value, std::numeric_limits<std::uint64_t>::max(), o.seed)) return bad();
    } else if (arg == "--port") {
      if (!parse_number(value, 65535, n)) return bad() + ", expected a port number from 0 to 65535";
      o.port = static_cast<int>(n);
    } else {
      return "unknown option '" + std::string(given) + "'";
    }
  }
  return "";
}

void list_variants() {
  for (const auto& v : entimg::broken::all_variants()) {
    std::cout << v.name << "\n    " << v.summary << "\n    ";
    if (v.kind == entimg::broken::Kind::Tolerated) {
      std::cout << "tolerated: the suite passes\n";
      continue;
    }
    std::cout << "fails:";
    for (const auto rule : v.fails)
      std::cout << " " << rule;
    if (!v.suite_header.empty()) std::cout << " (when the suite sends " << v.suite_header << ")";
    std::cout << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace entimg;
  Options o;
  if (const std::string error = parse({argv + 1, argv + argc}, o); !error.empty()) {
    std::cerr << "entimg-broken-server: " << error << "\n\n" << kUsage;
    return 2;
  }
  if (o.help) return std::cout << kUsage, 0;
  if (o.list) return list_variants(), 0;
  const broken::Variant* variant = broken::find_variant(o.variant);
  if (variant == nullptr) {
    std::cerr << "entimg-broken-server: "
              << (o.variant.empty() ? "--variant is required" : "unknown variant '" + o.variant + "'")
              << " (--list shows them)\n";
    return 2;
  }

  common::block_stop_signals();
  try {
    auto service =
        std::make_shared<broken::BrokenService>(mock::make_generated_dataset(o.records, o.seed), *variant);
    broken::HandlerServer server([service](const mock::HttpRequest& r) { return service->handle(r); }, o.host,
                                 o.port);
    server.bind();
    std::cout << "listening on " << server.url() << "\n"
              << "serving " << o.records << " generated records (seed " << o.seed << ") with variant "
              << variant->name << ": " << variant->summary << std::endl;
    if (!variant->base_path.empty())
      std::cout << "base URL: " << server.url() << variant->base_path << std::endl;
    return common::run_until_stop_signal(server) ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "entimg-broken-server: error: " << e.what() << "\n";
    return 1;
  }
}
