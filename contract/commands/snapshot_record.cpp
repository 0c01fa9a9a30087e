// `record`: walks a deployment into a snapshot. The recording lives in OUT.partial, with progress.json
// saying how far it got, until every page is in; then the manifest is written with "complete": true and
// the directory is renamed to OUT. A run that finds OUT.partial of the same deployment and limit goes on
// from where it stopped. docs/snapshots.md.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <fstream>
#include <system_error>

#include "entimg/common/ascii.hpp"
#include "entimg/common/snapshot.hpp"
#include "entimg/contract/report.hpp"
#include "entimg/contract/snapshot.hpp"
#include "json_access.hpp"
#include "json_parse.hpp"
#include "links.hpp"
#include "page_stream.hpp"
#include "query.hpp"
#include "raw_json.hpp"

namespace entimg::contract {
namespace fs = std::filesystem;

bool volatile_header(std::string_view name) {
  for (const std::string_view v : {"date", "content-length", "connection", "keep-alive", "transfer-encoding",
                                   "set-cookie", "age", "expires", "last-modified", "etag"})
    if (common::iequals_ascii(name, v)) return true;
  return false;
}

namespace {

struct Progression {
  std::string base_url;
  std::uint64_t limit = 0, stride = 0, next_offset = 0, records = 0, records_bytes = 0, count = 0;
  std::optional<std::int64_t> last_id;

  nlohmann::json to_json() const {
    return {{"base_url", base_url}, {"limit", limit},
            {"stride", stride},     {"next_offset", next_offset},
            {"records", records},   {"records_bytes", records_bytes},
            {"count", count},       {"last_id", last_id ? nlohmann::json(*last_id) : nlohmann::json()}};
  }
  static std::optional<Progression> read(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    try {
      const auto doc = nlohmann::json::parse(in);
      Progression p;
      p.base_url = doc.at("base_url").get<std::string>();
      for (auto [key, into] : {std::pair{"limit", &p.limit},
                               {"stride", &p.stride},
                               {"next_offset", &p.next_offset},
                               {"records", &p.records},
                               {"records_bytes", &p.records_bytes},
                               {"count", &p.count}})
        *into = doc.at(key).get<std::uint64_t>();
      if (!doc.at("last_id").is_null()) p.last_id = doc.at("last_id").get<std::int64_t>();
      return p;
    } catch (const nlohmann::json::exception&) {
      return std::nullopt;  // unreadable: the recording starts over
    }
  }
};

void fsync_path(const fs::path& path, bool directory) {
  const int fd = ::open(path.c_str(), directory ? O_RDONLY | O_DIRECTORY : O_RDONLY);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

// Writes content to file through a temporary name and a rename, so a reader sees the old or the new.
void write_atomically(const fs::path& file, const std::string& content) {
  const fs::path tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  fsync_path(tmp, false);
  fs::rename(tmp, file);
  fsync_path(file.parent_path(), true);
}

std::string now_utc() {
  char text[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

std::string describe_answer(const HttpExchange& exchange) {
  if (exchange.status == 0) return exchange.error.empty() ? "no answer" : exchange.error;
  return "status " + std::to_string(exchange.status);
}

// page-N.json (the body as served) and page-N.head.json (status and headers, volatile ones left out).
void save_page(const fs::path& pages, int n, const std::string& target, const HttpExchange& exchange) {
  nlohmann::json headers = nlohmann::json::array();
  for (const auto& [name, value] : exchange.headers)
    if (!volatile_header(name)) headers.push_back({name, value});
  write_atomically(pages / ("page-" + std::to_string(n) + ".json"), exchange.body);
  write_atomically(
      pages / ("page-" + std::to_string(n) + ".head.json"),
      nlohmann::json{{"request", target}, {"status", exchange.status}, {"headers", headers}}.dump(2) + "\n");
}

class Recorder {
 public:
  Recorder(Client& client, const RecordOptions& options, RecordResult& result)
      : client_(client), options_(options), result_(result) {}

  void run();

 private:
  void prepare();
  void record_first_pages();
  void walk();
  // Appends a page's records to records.jsonl.
  void take(const Page& page);
  void finish();
  void save_progress() { write_atomically(partial_ / "progress.json", state_.to_json().dump() + "\n"); }

  Client& client_;
  const RecordOptions& options_;
  RecordResult& result_;
  fs::path out_, partial_;
  std::string collection_;
  Progression state_;
  int records_fd_ = -1;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  bool raw_fallback_noted_ = false;
};

void Recorder::prepare() {
  out_ = options_.out.lexically_normal();
  if (out_.filename().empty()) out_ = out_.parent_path();
  if (out_.empty()) throw std::runtime_error("--out needs a directory name");
  partial_ = out_.string() + ".partial";
  collection_ = client_.base_path() + "/edw/api/entities-images/";
  if (fs::exists(out_) && !options_.force)
    throw std::runtime_error(out_.string() +
                             " already exists; --force replaces it once the new recording is complete");

  const auto previous = Progression::read(partial_ / "progress.json");
  const bool same = previous && previous->base_url == client_.origin() + client_.base_path() &&
                    previous->limit == options_.limit;
  if (previous && !same && !options_.force)
    throw std::runtime_error(
        partial_.string() + " holds an unfinished recording of " + previous->base_url + " with limit " +
        std::to_string(previous->limit) +
        "; run with the same --base-url and --walk-limit to finish it, or --force to start over");
  std::error_code size_error;
  const auto size = same ? fs::file_size(partial_ / "records.jsonl", size_error) : 0;
  if (same && !size_error && size >= previous->records_bytes) {
    state_ = *previous;
    fs::resize_file(partial_ / "records.jsonl", state_.records_bytes);  // drop a page cut short
    result_.resumed = true;
    result_.resumed_records = state_.records;
  } else {
    fs::remove_all(partial_);
    fs::create_directories(partial_ / "pages");
    state_ = Progression{};
    state_.base_url = client_.origin() + client_.base_path();
    state_.limit = options_.limit;
    common::SnapshotManifest m;
    m.base_url = state_.base_url;
    m.collection_path = collection_;
    m.tool = "entities-images-contract " + std::string(tool_version());
    m.limit = options_.limit;
    write_atomically(partial_ / "manifest.json", m.to_json().dump(2) + "\n");  // "complete": false
    std::ofstream(partial_ / "records.jsonl", std::ios::binary | std::ios::trunc);
    save_progress();
  }
  records_fd_ = ::open((partial_ / "records.jsonl").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (records_fd_ < 0) throw std::runtime_error("cannot open " + (partial_ / "records.jsonl").string());
}

void Recorder::record_first_pages() {
  const std::string first = collection_;
  const HttpExchange page1 = client_.request("GET", first);
  if (page1.status != 200)
    throw std::runtime_error("GET " + page1.url + " answered " + describe_answer(page1));
  save_page(partial_ / "pages", 1, first, page1);
  Page parsed;
  parsed.exchange = page1;
  parse_body(parsed);
  const auto next = detail::next_link_query(parsed);  // only when "next" is a string URL
  if (!next || origin_of(*detail::as_string(detail::member(*parsed.json, "next"))) != client_.origin())
    return;
  const std::string second = detail::path_with_query(collection_, next->params);
  const HttpExchange page2 = client_.request("GET", second);
  if (page2.status != 200)
    throw std::runtime_error("GET " + page2.url + " answered " + describe_answer(page2));
  save_page(partial_ / "pages", 2, second, page2);
}

void Recorder::take(const Page& page) {
  const std::string& url = page.exchange.url;
  const detail::JsonArray results = *detail::results_array(page);  // CollectionWalk checked it
  auto raw = detail::raw_results(page.exchange.body);
  if (raw && raw->size() != detail::count_of(results)) raw.reset();
  if (!raw && !raw_fallback_noted_) {
    result_.warnings.push_back(
        "the records of " + url +
        " could not be cut from the body as sent; they were re-serialised (same values)");
    raw_fallback_noted_ = true;
  }
  std::string lines;
  std::size_t i = 0;
  for (const detail::Json record : results) {
    const auto id = detail::record_id(record);
    if (!id)
      throw std::runtime_error("GET " + url + ": record " + std::to_string(i) +
                               " has no integer id; a snapshot needs one");
    if (state_.last_id && *id <= *state_.last_id)
      throw std::runtime_error("GET " + url + ": id " + std::to_string(*id) + " comes after id " +
                               std::to_string(*state_.last_id) +
                               "; a snapshot needs ids ascending across pages (run the contract suite)");
    state_.last_id = id;
    lines += raw ? detail::compact_json((*raw)[i]) : detail::to_nlohmann(record).dump();
    lines += '\n';
    ++i;
  }
  for (std::size_t written = 0; written < lines.size();) {
    const ssize_t n = ::write(records_fd_, lines.data() + written, lines.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("cannot write " + (partial_ / "records.jsonl").string() + ": " +
                               std::system_category().message(errno));
    }
    written += static_cast<std::size_t>(n);
  }
  state_.records += results.size();
  state_.records_bytes += lines.size();
}

void Recorder::walk() {
  detail::CollectionWalk walk(client_, collection_, options_.limit, options_.concurrency, state_.next_offset,
                              state_.stride, state_.count);
  while (const auto page = walk.next()) {
    take(*page);
    state_.stride = walk.stride();
    state_.next_offset = walk.next_offset();
    state_.count = walk.count();
    save_progress();
    if (options_.on_progress)
      options_.on_progress({state_.records, state_.count, 0,
                            std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::steady_clock::now() - started_)});
  }
}

void Recorder::finish() {
  ::fsync(records_fd_);
  ::close(records_fd_);
  records_fd_ = -1;
  if (state_.records != state_.count)
    result_.warnings.push_back("the deployment's count is " + std::to_string(state_.count) +
                               " but the walk found " + std::to_string(state_.records) + " records");
  common::SnapshotManifest m;
  m.base_url = state_.base_url;
  m.collection_path = collection_;
  m.recorded_at = now_utc();
  m.tool = "entities-images-contract " + std::string(tool_version());
  m.count = state_.count;
  m.records = state_.records;
  m.limit = options_.limit;
  m.complete = true;
  std::vector<std::string> names = {"records.jsonl"};
  for (const auto& entry : fs::directory_iterator(partial_ / "pages"))
    if (entry.path().extension() == ".json") names.push_back("pages/" + entry.path().filename().string());
  std::sort(names.begin() + 1, names.end());
  for (const auto& name : names) {
    common::SnapshotFile f{name, 0, ""};
    f.sha256 = common::sha256_file(partial_ / name, &f.bytes);
    m.files.push_back(std::move(f));
  }
  fs::remove(partial_ / "progress.json");
  write_atomically(partial_ / "manifest.json", m.to_json().dump(2) + "\n");
  if (fs::exists(out_)) {
    const fs::path old = out_.string() + ".replaced";
    fs::remove_all(old);
    fs::rename(out_, old);
    fs::rename(partial_, out_);
    fs::remove_all(old);
  } else {
    fs::rename(partial_, out_);
  }
  fsync_path(out_.parent_path().empty() ? fs::path(".") : out_.parent_path(), true);
  result_.records = state_.records;
  result_.count = state_.count;
}

void Recorder::run() {
  prepare();
  try {
    record_first_pages();
    walk();
    finish();
  } catch (...) {
    if (records_fd_ >= 0) ::close(records_fd_);
    records_fd_ = -1;
    result_.records = state_.records;
    throw;
  }
}

}  // namespace

RecordResult record_snapshot(Client& client, const RecordOptions& options) {
  RecordResult result;
  try {
    Recorder(client, options, result).run();
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  return result;
}

}  // namespace entimg::contract
