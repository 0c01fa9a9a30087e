// entimg-mutants: the contract suite against generated mutants of a correct deployment (the mock's
// service, or the DRF replica), quick and full, with the kill rate per class; and against the
// tolerated variants, which must pass. docs/mutation-testing.md says what the classes are.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "broken/variants.hpp"
#include "entimg/contract/http.hpp"
#include "entimg/contract/runner.hpp"
#include "entimg/mock/dataset.hpp"
#include "mutants/mutant_server.hpp"
#include "mutants/upstream.hpp"

namespace {

using namespace entimg;
using Clock = std::chrono::steady_clock;

struct Options {
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::size_t per_class = 4;
  std::string upstream = "mock";
  std::uint64_t records = 0;  // 0: drawn from the seed
  std::string drf_script, dataset;
  std::optional<std::size_t> only;
  int serve = -1;
  bool list = false, no_tolerated = false;
  std::string json;
};

// The DRF replica as a child process, stopped (SIGTERM) when this goes.
class Replica {
 public:
  Replica(const std::string& script, const std::string& dataset) {
    int out[2];
    if (pipe(out) != 0) throw std::runtime_error("pipe() failed");
    pid_ = fork();
    if (pid_ == 0) {
      sigset_t none;  // main blocked the stop signals; the replica must see SIGTERM
      sigemptyset(&none);
      pthread_sigmask(SIG_SETMASK, &none, nullptr);
      dup2(out[1], 1);
      close(out[0]);
      close(out[1]);
      execl("/usr/bin/python3", "python3", "-u", script.c_str(), "--dataset", dataset.c_str(), "--port", "0",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    FILE* from = fdopen(out[0], "r");
    char line[512];
    const std::string prefix = "listening on http://127.0.0.1:";
    while (from != nullptr && std::fgets(line, sizeof line, from) != nullptr) {
      const std::string text(line);
      if (const std::size_t at = text.find(prefix); at != std::string::npos) {
        port_ = std::stoi(text.substr(at + prefix.size()));
        break;
      }
    }
    if (from != nullptr) std::fclose(from);
    if (port_ == 0) throw std::runtime_error("the DRF replica (" + script + ") did not start");
  }
  ~Replica() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
  }
  Replica(const Replica&) = delete;
  Replica& operator=(const Replica&) = delete;
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

struct Outcome {
  bool killed = false;
  std::uint64_t touched = 0;
  std::set<std::string> rules;  // failed
  std::string fatal;
  std::string first_failure;  // the first failure's message and URL, for a false failure's line
};

// A mutant's run loads a few pictures, but a mutant of the pictures class every one its mode loads (the DRF
// replica serves each on a connection of its own). The tolerated controls load every one, so no false
// failure hides there.
const contract::ImagesChoice kMutantPictures{contract::ImagesChoice::Kind::sample, 12};

Outcome run_suite(const std::string& url, contract::Mode mode, const std::atomic<std::uint64_t>& touched,
                  contract::ImagesChoice images = {}) {
  static const contract::Schemas schemas = contract::Schemas::load();
  contract::ClientOptions options;
  options.base_url = url;
  // Hang guards far above what a loopback answer (the DRF replica's included) takes on a busy machine: no
  // mutant stalls, so a timeout here would be the machine's speed, not a finding.
  options.connect_timeout = std::chrono::milliseconds(30000);
  options.read_timeout = std::chrono::milliseconds(30000);
  options.max_retry_wait = std::chrono::milliseconds(2000);
  contract::Client client(options);
  contract::RunOptions run;
  run.mode = mode;
  run.seed = 42;
  run.concurrency = 2;  // the tool's default
  run.images = images;
  const contract::RunReport report = contract::run_contract(client, schemas, run);
  Outcome out;
  for (const auto& rule : report.rules)
    if (rule.failed()) {
      out.rules.emplace(rule.rule->name);
      if (out.first_failure.empty())
        out.first_failure =
            rule.failures.front().message.substr(0, 400) + " (" + rule.failures.front().url + ")";
    }
  out.fatal = report.fatal_error;
  out.killed = !out.rules.empty() || !out.fatal.empty();
  out.touched = touched;
  return out;
}

Outcome run_mutant(mutants::Upstream& upstream, const mutants::Mutant& mutant, contract::Mode mode) {
  if (mutant.reset) mutant.reset();  // a cache starts empty for each run
  std::atomic<std::uint64_t> touched{0};
  mutants::MutantServer server(upstream, mutants::respond_with(mutant, touched));
  return run_suite(server.url(), mode, touched,
                   mutant.klass == "pictures" ? contract::ImagesChoice{} : kMutantPictures);
}

// A tolerated variant over the upstream: the suite must pass it (full mode, the quick plan included).
Outcome run_tolerated(mutants::Upstream& upstream, const broken::Variant& variant) {
  std::atomic<std::uint64_t> touched{0};
  std::mutex mutex;
  std::map<std::string, std::uint64_t> seen;
  broken::SharedCache cache;
  const broken::CorrectAnswer correct = [&upstream](const mock::HttpRequest& r) {
    return upstream.handle(r);
  };
  mutants::MutantServer server(upstream, [&](const mutants::Call& call, mutants::Wire& wire) {
    std::uint64_t nth = 0;
    {
      std::lock_guard lock(mutex);
      nth = ++seen[call.request.method + " " + call.request.target];
    }
    wire.lower_case_names = variant.lower_case_names;
    return variant.respond(broken::Call{call.request, call.params, nth, correct, cache});
  });
  return run_suite(server.url() + std::string(variant.base_path), contract::Mode::Full, touched);
}

std::string rules_text(const Outcome& o) {
  if (!o.fatal.empty()) return "fatal: " + o.fatal.substr(0, 160);
  std::string out;
  for (const auto& r : o.rules)
    out += (out.empty() ? "" : ", ") + r;
  return out.empty() ? "none" : out;
}

std::string percent(std::size_t part, std::size_t whole) {
  if (whole == 0) return "   -";
  std::ostringstream out;
  out << std::setw(3) << (part * 100 / whole) << "%";
  return out.str();
}

int run(const Options& o) {
  const std::uint64_t seed = o.seed;
  std::unique_ptr<Replica> replica;
  std::unique_ptr<mutants::Upstream> upstream;
  std::string upstream_flags;
  common::Pcg32 rng(seed, 0x6d75);
  if (o.upstream == "drf") {
    replica = std::make_unique<Replica>(o.drf_script, o.dataset);
    upstream = std::make_unique<mutants::HttpUpstream>("127.0.0.1", replica->port(),
                                                       "the DRF replica over " + o.dataset);
    upstream_flags = "--upstream drf --drf-script " + o.drf_script + " --dataset " + o.dataset;
  } else {
    // Half the seeds draw a collection whose last page ends exactly at count.
    std::uint64_t records = o.records;
    if (records == 0)
      records = rng.chance(50) ? 12 * static_cast<std::uint64_t>(rng.between(5, 30))
                               : static_cast<std::uint64_t>(rng.between(50, 400));
    upstream = std::make_unique<mutants::ServiceUpstream>(
        mock::make_generated_dataset(records, seed),
        "the mock's service, " + std::to_string(records) + " records");
    upstream_flags = "--upstream mock --records " + std::to_string(records);
  }
  const mutants::World world{upstream->count()};
  if (world.count < 50) {
    std::cerr << "entimg-mutants: " << upstream->describe() << " has " << world.count
              << " records; the positions need at least 50\n";
    return 2;
  }
  const std::vector<mutants::Mutant> all = mutants::generate_mutants(world, rng, o.per_class);
  const std::string repeat = "entimg-mutants --seed " + std::to_string(seed) + " --per-class " +
                             std::to_string(o.per_class) + " " + upstream_flags;

  if (o.list) {
    for (std::size_t i = 0; i < all.size(); ++i)
      std::cout << std::setw(4) << i << "  " << std::left << std::setw(14) << all[i].klass << std::setw(6)
                << mutants::to_string(all[i].visibility) << std::right << all[i].name << "\n";
    return 0;
  }
  if (o.only && *o.only >= all.size()) {
    std::cerr << "entimg-mutants: --only " << *o.only << ": there are " << all.size() << " mutants (0-"
              << all.size() - 1 << ")\n";
    return 2;
  }
  if (o.serve >= 0) {
    if (!o.only) {
      std::cerr << "entimg-mutants: --serve needs --only ID\n";
      return 2;
    }
    std::atomic<std::uint64_t> touched{0};
    mutants::MutantServer server(*upstream, mutants::respond_with(all[*o.only], touched), o.serve);
    std::cout << "mutant " << *o.only << " (" << all[*o.only].klass << ": " << all[*o.only].name << ")\n"
              << "listening on " << server.url() << std::endl;
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    int signal = 0;
    sigwait(&stop, &signal);
    return 0;
  }

  std::cout << "entimg-mutants: seed " << seed << ", " << upstream->describe() << " (count " << world.count
            << "), " << all.size() << " mutants, " << o.per_class << " per class\n"
            << "repeat with: " << repeat << "\n";
  const auto started = Clock::now();
  struct Tally {
    std::size_t mutants = 0, quick_visible = 0, killed_quick_visible = 0, killed_quick = 0, killed_full = 0;
  };
  std::map<std::string, Tally> tally;
  std::vector<std::string> problems;
  nlohmann::json results = nlohmann::json::array();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (o.only && i != *o.only) continue;
    const mutants::Mutant& m = all[i];
    const Outcome quick = run_mutant(*upstream, m, contract::Mode::Quick);
    const Outcome full = run_mutant(*upstream, m, contract::Mode::Full);
    Tally& t = tally[m.klass];
    ++t.mutants;
    t.killed_quick += quick.killed;
    t.killed_full += full.killed;
    const bool quick_visible = m.visibility == mutants::Visibility::Quick;
    if (quick_visible) {
      ++t.quick_visible;
      t.killed_quick_visible += quick.killed;
    }
    const std::string id = "[" + std::to_string(i) + "] " + m.klass + ": " + m.name;
    const std::string how = "\n    reproduce: " + repeat + " --only " + std::to_string(i) +
                            "\n    or serve it: " + repeat + " --only " + std::to_string(i) +
                            " --serve 8000 & entities-images-contract --base-url http://127.0.0.1:8000" +
                            (quick_visible ? "" : " --mode full");
    if (full.touched == 0)
      problems.push_back("NEVER APPLIED " + id +
                         " (no answer of a full run changed: the mutant is the harness's bug)");
    else if (quick_visible && quick.touched == 0)
      problems.push_back("MISLABELLED " + id + " (quick-visible, but no answer of the quick run changed)");
    if (quick_visible && !quick.killed) problems.push_back("SURVIVED QUICK " + id + how);
    if (!full.killed) problems.push_back("SURVIVED FULL " + id + how);
    results.push_back({{"id", i},
                       {"class", m.klass},
                       {"name", m.name},
                       {"visibility", mutants::to_string(m.visibility)},
                       {"killed_quick", quick.killed},
                       {"killed_full", full.killed},
                       {"quick", rules_text(quick)},
                       {"full", rules_text(full)}});
  }

  std::size_t tolerated = 0;
  if (!o.no_tolerated && !o.only) {
    for (const broken::Variant& v : broken::all_variants()) {
      if (v.kind != broken::Kind::Tolerated) continue;
      ++tolerated;
      const Outcome outcome = run_tolerated(*upstream, v);
      if (outcome.killed)
        problems.push_back("FALSE FAILURE on tolerated variant " + std::string(v.name) + ": " +
                           rules_text(outcome) + "\n  first: " + outcome.first_failure);
    }
    std::atomic<std::uint64_t> none{0};
    mutants::MutantServer plain(
        *upstream, [](const mutants::Call& c, mutants::Wire&) { return c.upstream.handle(c.request); });
    ++tolerated;
    if (const Outcome outcome = run_suite(plain.url(), contract::Mode::Full, none); outcome.killed)
      problems.push_back("FALSE FAILURE on " + upstream->describe() + " unchanged: " + rules_text(outcome) +
                         "\n  first: " + outcome.first_failure);
  }

  Tally sum;
  std::cout << "\nclass            mutants  quick-visible  killed in quick (of visible)  killed in full\n";
  for (const std::string& klass : mutants::mutant_classes()) {
    if (!tally.contains(klass)) continue;
    const Tally& t = tally[klass];
    std::cout << std::left << std::setw(16) << klass << std::right << std::setw(8) << t.mutants
              << std::setw(15) << t.quick_visible << std::setw(14) << t.killed_quick_visible << "/"
              << std::left << std::setw(4) << t.quick_visible << std::right
              << percent(t.killed_quick_visible, t.quick_visible) << std::setw(13) << t.killed_full << "/"
              << std::left << std::setw(4) << t.mutants << std::right << percent(t.killed_full, t.mutants)
              << "\n";
    sum.mutants += t.mutants;
    sum.quick_visible += t.quick_visible;
    sum.killed_quick_visible += t.killed_quick_visible;
    sum.killed_full += t.killed_full;
  }
  std::cout << std::left << std::setw(16) << "all" << std::right << std::setw(8) << sum.mutants
            << std::setw(15) << sum.quick_visible << std::setw(14) << sum.killed_quick_visible << "/"
            << std::left << std::setw(4) << sum.quick_visible << std::right
            << percent(sum.killed_quick_visible, sum.quick_visible) << std::setw(13) << sum.killed_full << "/"
            << std::left << std::setw(4) << sum.mutants << std::right << percent(sum.killed_full, sum.mutants)
            << "\n";
  if (tolerated > 0)
    std::cout << "tolerated: " << tolerated
              << " controls (the tolerated variants and the upstream unchanged)\n";
  const auto seconds = std::chrono::duration<double>(Clock::now() - started).count();
  std::cout << "time: " << std::fixed << std::setprecision(1) << seconds << " s\n";
  for (const std::string& p : problems)
    std::cout << p << "\n";
  if (!o.json.empty())
    std::ofstream(o.json) << nlohmann::json{{"seed", seed}, {"results", results}}.dump(1) << "\n";
  std::cout << (problems.empty() ? "PASS" : "FAIL") << ": seed " << seed << "\n";
  return problems.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // SIGINT/SIGTERM are waited for by --serve; a peer gone away is an error, not an exit.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  signal(SIGPIPE, SIG_IGN);

  CLI::App app{
      "The contract suite against generated mutants of a correct deployment, quick and full; "
      "prints the kill rate per class. Exit 0 when every mutant is killed and every tolerated "
      "variant passes, 1 otherwise, 2 on a usage or setup error.",
      "entimg-mutants"};
  Options o;
  app.add_option("--seed", o.seed,
                 "seed of the mutants' positions and parameters (default: random, printed)");
  app.add_option("--per-class", o.per_class, "mutants drawn per class (default 4)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--upstream", o.upstream,
                 "the correct deployment: mock (the mock's service) or drf (the replica)")
      ->check(CLI::IsMember({"mock", "drf"}));
  app.add_option("--records", o.records, "the mock's collection size (default: drawn from the seed)")
      ->check(CLI::Range(50, 100000));
  app.add_option("--drf-script", o.drf_script, "serve_drf.py, for --upstream drf");
  app.add_option("--dataset", o.dataset, "the replica's dataset file, for --upstream drf");
  app.add_option("--only", o.only, "run (or serve) only the mutant of this id");
  app.add_option("--serve", o.serve, "serve the --only mutant on 127.0.0.1:PORT until Ctrl-C")
      ->check(CLI::Range(0, 65535));
  app.add_flag("--list", o.list, "list the mutants (id, class, visibility, what) and exit");
  app.add_flag("--no-tolerated", o.no_tolerated, "skip the tolerated controls");
  app.add_option("--json", o.json, "write each mutant's outcome to this file");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  o.seed_given = app.count("--seed") > 0;
  if (!o.seed_given) o.seed = std::random_device{}() % 1000000;
  if (o.upstream == "drf" && (o.drf_script.empty() || o.dataset.empty())) {
    std::cerr << "entimg-mutants: --upstream drf needs --drf-script and --dataset\n";
    return 2;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "entimg-mutants: " << e.what() << "\n";
    return 2;
  }
}
