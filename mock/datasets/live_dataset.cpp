#include "entimg/mock/live_dataset.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "entimg/common/bounded_file.hpp"
#include "entimg/common/snapshot.hpp"
#include "entimg/common/url.hpp"
#include "record_json.hpp"

namespace entimg::mock {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& what) {
  throw StateError(what + ": " + std::strerror(errno));
}

void write_all(int fd, std::string_view data, const fs::path& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write " + path.string());
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

void fsync_path(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open " + path.string());
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) fail("cannot fsync " + path.string());
}

// Every file and directory below the state directory is reached by common::open_beneath, following no
// symbolic link: a link planted there (records.jsonl -> /etc/passwd) is refused, never written through
// (issue 43: the mock truncated a planted link's target).
int open_in_state(const fs::path& root, const fs::path& relative, int flags, unsigned mode = 0) {
  const int fd = common::open_beneath(root, relative, flags, mode);
  if (fd < 0 && errno == ELOOP)
    throw StateError("--state: " + (root / relative).string() +
                     ": a symbolic link (or a link on its way), not followed: the state directory holds only "
                     "what the mock wrote");
  return fd;
}

// The directory `relative` (below root; root itself when empty), opened for *at calls and fsync.
int open_state_dir(const fs::path& root, const fs::path& relative) {
  const int fd = relative.empty() ? ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                                  : open_in_state(root, relative, O_RDONLY | O_DIRECTORY);
  if (fd < 0) fail("cannot open " + (root / relative).string());
  return fd;
}

void fsync_state_dir(const fs::path& root, const fs::path& relative) {
  const int fd = open_state_dir(root, relative);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) fail("cannot fsync " + (root / relative).string());
}

// Writes a new file below root and makes it and its directory entry durable.
void write_durably(const fs::path& root, const fs::path& relative, std::string_view data) {
  const fs::path path = root / relative;
  const int fd = open_in_state(root, relative, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) fail("cannot create " + path.string());
  try {
    write_all(fd, data, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    fail("cannot fsync " + path.string());
  }
  ::close(fd);
  fsync_state_dir(root, relative.parent_path());
}

// Creates the missing directories of `relative` below `root`, each made durable in its parent.
void make_dirs_durably(const fs::path& root, const fs::path& relative) {
  fs::path at;
  for (const auto& part : relative) {
    const int parent = open_state_dir(root, at);
    const int rc = ::mkdirat(parent, part.c_str(), 0755);
    const int error = errno;
    if (rc == 0) ::fsync(parent);
    ::close(parent);
    errno = error;
    if (rc != 0 && errno != EEXIST) fail("cannot create " + (root / at / part).string());
    at /= part;
  }
}

// Cuts the file `name` of root to `size` bytes; false when it cannot.
bool truncate_in_state(const fs::path& root, const fs::path& name, std::uint64_t size) {
  const int fd = open_in_state(root, name, O_WRONLY);
  if (fd < 0) return false;
  const bool ok = ::ftruncate(fd, static_cast<off_t>(size)) == 0;
  ::close(fd);
  return ok;
}

std::string uuid4(std::mt19937_64& rng) {
  std::array<unsigned char, 16> b{};
  for (std::size_t i = 0; i < 16; i += 8) {
    const std::uint64_t v = rng();
    for (std::size_t k = 0; k < 8; ++k)
      b[i + k] = static_cast<unsigned char>(v >> (8 * k));
  }
  b[6] = static_cast<unsigned char>((b[6] & 0x0F) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3F) | 0x80);  // RFC 4122 variant
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[b[i] >> 4]);
    out.push_back(kHex[b[i] & 15]);
  }
  return out;
}

bool before(const Record& a, const Record& b) {
  return a.order != b.order ? a.order < b.order : a.id < b.id;
}

constexpr const char* kLog = "records.jsonl";
constexpr const char* kMedia = "media";

// An upload's file as the mock names it, filer_public/xx/yy/<uuid>/<name>: relative, five plain segments, so
// that media/<file> stays inside the state directory whatever a hand-edited line says.
bool upload_path_ok(std::string_view file) {
  if (!file.starts_with("filer_public/")) return false;
  std::size_t segments = 0;
  for (std::size_t start = 0; start <= file.size();) {
    std::size_t end = file.find('/', start);
    if (end == std::string_view::npos) end = file.size();
    const std::string_view segment = file.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == ".." ||
        segment.find_first_of(std::string_view("\\\0", 2)) != std::string_view::npos)
      return false;
    ++segments;
    start = end + 1;
  }
  return segments == 5;
}
constexpr const char* kDatasetNote = "dataset.txt";

}  // namespace

LiveDataset::LiveDataset(std::shared_ptr<const Dataset> base, std::optional<fs::path> state_dir,
                         std::uint64_t max_file_bytes, std::uint64_t upload_bytes)
    : base_(std::move(base)),
      state_dir_(std::move(state_dir)),
      max_file_bytes_(max_file_bytes),
      upload_bytes_(upload_bytes),
      uuid_rng_(std::random_device{}()) {
  last_id_ = base_->max_id();
  if (state_dir_) load_state();
  start_last_id_ = last_id_;
  start_log_size_ = log_size_;
}

std::size_t LiveDataset::reset() {
  const std::lock_guard writing(write_mutex_);
  base_->restart();
  std::vector<std::string> files;
  {
    const std::unique_lock lock(mutex_);
    for (std::size_t i = created_.size(); i-- > 0;) {
      if (created_[i].id <= start_last_id_) continue;
      files.push_back(created_[i].file);
      created_.erase(created_.begin() + static_cast<std::ptrdiff_t>(i));
      created_rank_.erase(created_rank_.begin() + static_cast<std::ptrdiff_t>(i));
    }
    for (const std::string& file : files)
      memory_files_.erase(file);
    if (!state_dir_) memory_bytes_ = 0;  // in memory every upload is this run's
    last_id_ = start_last_id_;
    ++generation_;
  }
  if (state_dir_ && !files.empty()) {
    // The log back to its length at start (its later lines are the removed records), then their files.
    if (!truncate_in_state(*state_dir_, kLog, start_log_size_)) {
      broken_ = true;
      throw StateError("cannot cut " + (*state_dir_ / kLog).string() + " back to its length at start");
    }
    log_size_ = start_log_size_;
    for (const std::string& file : files) {
      const fs::path relative = fs::path(kMedia) / file;
      const int dir = common::open_beneath(*state_dir_, relative.parent_path(), O_RDONLY | O_DIRECTORY);
      if (dir < 0) continue;
      ::unlinkat(dir, relative.filename().c_str(), 0);
      ::close(dir);
    }
  }
  return files.size();
}

// "" when the line is a record the mock wrote, whose file is inside the state directory with the recorded
// size and sha256 (the record is then taken in); else why not.
std::string LiveDataset::state_line_problem(const fs::path& dir, std::string_view line) {
  nlohmann::json entry;
  try {
    entry = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error&) {
    return "not a record line (not JSON): edited or damaged, not written by the mock";
  }
  if (!entry.is_object() || !entry.contains("record") || !entry.contains("sha256") ||
      !entry["sha256"].is_string())
    return "not a record line (no \"record\" and \"sha256\"): edited or damaged, not written by the mock";
  const auto& record = entry["record"];
  if (const std::string problem = detail::check_record_json(record);
      !problem.empty() || record.contains("image"))
    return "not a record the mock wrote (" +
           (problem.empty() ? std::string("it has an image URL") : problem) + ")";
  Record r = detail::record_from_json(record);
  if (!upload_path_ok(r.file))
    return "file \"" + common::utf8_cut(r.file, 120, "…") +
           "\" is not an upload's path (filer_public/xx/yy/<uuid>/<name>) inside the state directory";
  const fs::path file = dir / kMedia / r.file;
  std::string bytes;
  try {  // read beneath the state directory, no link followed; a larger file is a mismatch unread
    bytes = common::read_bounded_file_beneath(dir, fs::path(kMedia) / r.file,
                                              static_cast<std::uint64_t>(r.file_size));
  } catch (const common::FileError& e) {
    if (e.kind() == common::FileProblem::too_large)
      return "its file " + file.string() + " does not match the recorded size and sha256";
    std::error_code missing;
    if (e.kind() == common::FileProblem::cannot_open && !fs::exists(fs::symlink_status(file, missing)))
      return "its file " + file.string() + " is missing";
    return e.what();
  }
  if (bytes.size() != static_cast<std::size_t>(r.file_size) ||
      common::sha256_hex(bytes) != entry["sha256"].get<std::string>())
    return "its file " + file.string() + " does not match the recorded size and sha256";
  if (r.id <= last_id_) return "id " + std::to_string(r.id) + " is not above the line before's";
  last_id_ = r.id;
  insert_created(std::move(r));
  return "";
}

void LiveDataset::load_state() {
  const fs::path& dir = *state_dir_;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw StateError("cannot create the state directory " + dir.string() + ": " + ec.message());
  make_dirs_durably(dir, kMedia);        // its entry made durable in the state directory
  ::close(open_state_dir(dir, kMedia));  // a media that is a link is refused here
  // The records of a state directory only make sense over the dataset they were created over.
  const std::string described = base_->describe() + "\n";
  if (const auto seen = read_state_file(kDatasetNote)) {
    if (*seen != described)
      throw StateError("the state directory " + dir.string() +
                       " holds records created over another dataset (" + seen->substr(0, seen->find('\n')) +
                       "), not over " + base_->describe() +
                       ": start with that dataset, or use another --state directory");
  } else {
    write_durably(dir, kDatasetNote, described);
  }

  const std::string text = read_state_file(kLog).value_or("");
  std::size_t good_end = 0, at = 0, line_no = 0;
  const std::string log_name = (dir / kLog).string();
  while (at < text.size()) {
    const std::size_t eol = text.find('\n', at);
    ++line_no;
    const std::string where = log_name + ":" + std::to_string(line_no) + ": ";
    if (eol == std::string::npos) {  // the last line was cut short: its write never finished
      dropped_.push_back(where + "cut short (a crash left its write unfinished)");
      break;
    }
    const std::string_view line(text.data() + at, eol - at);
    at = eol + 1;
    const std::string problem = state_line_problem(dir, line);
    if (problem.empty()) {
      good_end = at;
    } else {
      dropped_.push_back(where + problem);
    }
  }
  if (text.size() != good_end) {
    // Cut what follows the last good entry, so that the next record starts on a line of its own.
    if (!truncate_in_state(dir, kLog, good_end)) fail("cannot repair " + (dir / kLog).string());
  }
  log_size_ = good_end;
}

std::uint64_t LiveDataset::upload_cost(const NewUpload& upload) {
  return upload.bytes.size() + upload.original_filename.size() + upload.stored_name.size() + 1024;
}

Record LiveDataset::add(NewUpload upload) {
  // One writer at a time (ids and log lines must go in order); readers are held up only for the insert.
  const std::lock_guard writing(write_mutex_);
  if (broken_)
    throw StateError("the state directory could not be repaired after a failed write; restart the mock");
  // In memory, uploads are bounded as the journal is (issue 36: in WebAssembly they filled its 2 GiB,
  // then every request failed); on disk (--state) they are not held in memory.
  const std::uint64_t cost = upload_cost(upload);
  if (!state_dir_ && memory_bytes_ + cost > upload_bytes_)
    throw UploadsFull("the mock keeps at most " + std::to_string(upload_bytes_) +
                      " bytes of uploads in memory (--upload-bytes; uploadBytes in the npm package), " +
                      std::to_string(memory_bytes_) + " taken: this upload (" + std::to_string(cost) +
                      ") does not fit. POST /__mock/reset (--admin) removes the uploads.");
  Record r;
  r.id = last_id_ + 1;
  const std::string uuid = uuid4(uuid_rng_);
  r.file =
      "filer_public/" + uuid.substr(0, 2) + "/" + uuid.substr(2, 2) + "/" + uuid + "/" + upload.stored_name;
  r.original_filename = std::move(upload.original_filename);
  r.file_size = static_cast<std::int64_t>(upload.bytes.size());
  r.mime_type = std::move(upload.mime_type);
  r.order = upload.order;
  r.key = upload.key;
  r.entity = upload.entity;
  if (state_dir_) {
    // The file first, then the record line that refers to it; each durable before the next step, so
    // an answer of 201 means both are on disk, and a crash leaves at worst an unreferenced file or a
    // cut line (dropped when the directory is opened again).
    const fs::path file = fs::path(kMedia) / r.file;
    make_dirs_durably(*state_dir_, file.parent_path());
    write_durably(*state_dir_, file, upload.bytes);
    nlohmann::json entry;
    entry["record"] = detail::record_to_json(r);
    entry["sha256"] = common::sha256_hex(upload.bytes);
    append_line(entry.dump() + "\n");
  } else {
    const std::unique_lock lock(mutex_);
    memory_files_.emplace(r.file, std::move(upload.bytes));
    memory_bytes_ += cost;
  }
  const std::unique_lock lock(mutex_);
  last_id_ = r.id;
  insert_created(r);
  ++generation_;
  return r;
}

// Appends a record line and makes it durable. A write or sync that fails takes the log back to its last
// good length, so no later line is glued to a cut one; if even that fails, no more writes are taken.
void LiveDataset::append_line(const std::string& line) {
  const fs::path log = *state_dir_ / kLog;
  std::error_code ec;
  const bool existed = fs::exists(fs::symlink_status(log, ec));
  const int fd = open_in_state(*state_dir_, kLog, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) fail("cannot open " + log.string());
  std::string problem;
  try {
    write_all(fd, line, log);
    if (::fdatasync(fd) != 0) fail("cannot fsync " + log.string());
  } catch (const StateError& e) {
    problem = e.what();
  }
  if (!problem.empty()) {
    if (::ftruncate(fd, static_cast<off_t>(log_size_)) != 0 || ::fdatasync(fd) != 0) broken_ = true;
    ::close(fd);
    throw StateError(problem);
  }
  ::close(fd);
  if (!existed) fsync_path(*state_dir_);  // the new log's directory entry
  log_size_ += line.size();
}

std::optional<std::string> LiveDataset::uploaded_bytes(std::string_view file) const {
  const std::shared_lock lock(mutex_);
  const auto it =
      std::find_if(created_.begin(), created_.end(), [&](const Record& r) { return r.file == file; });
  if (it == created_.end()) return std::nullopt;
  if (!state_dir_) return memory_files_.at(it->file);
  try {  // replaced by a FIFO or a device since it was checked: not served
    return common::read_bounded_file_beneath(*state_dir_, fs::path(kMedia) / it->file, max_file_bytes_);
  } catch (const common::FileError&) {
    return std::nullopt;
  }
}

// A state file's bytes, or nullopt when there is none; a FIFO, a device or one over --max-file-bytes is a
// StateError.
std::optional<std::string> LiveDataset::read_state_file(const fs::path& name) const {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(*state_dir_ / name, ec))) return std::nullopt;
  try {
    return common::read_bounded_file_beneath(*state_dir_, name, max_file_bytes_);
  } catch (const common::FileError& e) {
    const bool too_large = e.kind() == common::FileProblem::too_large;
    throw StateError(std::string("--state: ") + e.what() + (too_large ? " (--max-file-bytes)" : ""));
  }
}

bool LiveDataset::has_entity(std::int64_t entity) const {
  {
    const std::shared_lock lock(mutex_);
    for (const Record& r : created_)
      if (r.entity == entity) return true;
  }
  Selection s;
  s.entity = entity;
  return base_->count(s) > 0;
}

std::size_t LiveDataset::created_count() const {
  const std::shared_lock lock(mutex_);
  return created_.size();
}

void LiveDataset::insert_created(Record record) {
  const std::uint64_t rank = base_rank(Selection{}, record.order);
  const auto at = std::upper_bound(created_.begin(), created_.end(), record, before);
  created_rank_.insert(created_rank_.begin() + (at - created_.begin()), rank);
  created_.insert(at, std::move(record));
}

std::vector<const Record*> LiveDataset::created_in(const Selection& selection) const {
  std::vector<const Record*> out;
  if (selection.matches_nothing) return out;
  for (const Record& r : created_)
    if (!selection.entity || r.entity == *selection.entity) out.push_back(&r);
  return out;
}

// How many of the base's selected records come before a created record of this order: those with a
// lower or equal order (created ids are above all of the base's). The base lists by order, so a binary
// search over its positions finds the boundary.
std::uint64_t LiveDataset::base_rank(const Selection& selection, std::int64_t order) const {
  std::uint64_t low = 0, high = base_->count(selection);
  std::vector<Record> one;
  while (low < high) {
    const std::uint64_t mid = low + (high - low) / 2;
    one.clear();
    base_->page(selection, mid, 1, one);
    if (!one.empty() && one.front().order <= order)
      low = mid + 1;
    else
      high = mid;
  }
  return low;
}

std::uint64_t LiveDataset::entity_base_rank(const Selection& selection, std::int64_t order) const {
  const std::pair key{*selection.entity, order};
  {
    const std::lock_guard lock(entity_rank_mutex_);
    if (const auto it = entity_rank_.find(key); it != entity_rank_.end()) return it->second;
  }
  const std::uint64_t rank = base_rank(selection, order);
  const std::lock_guard lock(entity_rank_mutex_);
  entity_rank_.emplace(key, rank);
  return rank;
}

std::uint64_t LiveDataset::count(const Selection& selection) const {
  const std::shared_lock lock(mutex_);
  const bool all = !selection.entity && !selection.matches_nothing;
  return base_->count(selection) + (all ? created_.size() : created_in(selection).size());
}

namespace {

// Merges the created records (the i-th at listing position position(i), strictly increasing) into the
// base's records of the same selection, for the listing's positions [offset, offset + limit).
template <typename CreatedAt, typename PositionOf>
void merge_page(const Dataset& base, const Selection& selection, std::size_t created, CreatedAt created_at,
                PositionOf position, std::uint64_t offset, std::uint64_t limit, std::vector<Record>& out) {
  std::size_t low = 0, high = created;  // j: the first created record at or after offset
  while (low < high) {
    const std::size_t mid = low + (high - low) / 2;
    (position(mid) < offset ? low = mid + 1 : high = mid);
  }
  std::size_t j = low;
  std::vector<Record> from_base;
  base.page(selection, offset - j, limit, from_base);
  std::size_t b = 0;
  for (std::uint64_t k = offset; k - offset < limit; ++k) {
    if (j < created && position(j) == k)
      out.push_back(created_at(j++));
    else if (b < from_base.size())
      out.push_back(std::move(from_base[b++]));
    else
      break;
  }
}

}  // namespace

void LiveDataset::page(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
                       std::vector<Record>& out) const {
  const std::shared_lock lock(mutex_);
  page_locked(selection, offset, limit, out);
}

void LiveDataset::page_in_batches(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
                                  std::uint64_t batch,
                                  const std::function<void(std::vector<Record>&)>& each) const {
  const std::shared_lock lock(mutex_);
  each_batch(
      offset, limit, batch,
      [&](std::uint64_t from, std::uint64_t n, std::vector<Record>& out) {
        page_locked(selection, from, n, out);
      },
      each);
}

void LiveDataset::each_record(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
                              RecordSink& sink) const {
  const std::shared_lock lock(mutex_);
  const bool all = !selection.entity && !selection.matches_nothing;
  if (created_.empty() || (!all && created_in(selection).empty()))
    return base_->each_record(selection, offset, limit, sink);
  each_batch(
      offset, limit, kRecordBatch,
      [&](std::uint64_t from, std::uint64_t n, std::vector<Record>& out) {
        page_locked(selection, from, n, out);
      },
      [&sink](std::vector<Record>& records) {
        for (const Record& r : records)
          sink.record(view_of(r));
      });
}

void LiveDataset::page_locked(const Selection& selection, std::uint64_t offset, std::uint64_t limit,
                              std::vector<Record>& out) const {
  if (!selection.entity && !selection.matches_nothing) {
    if (created_.empty()) return base_->page(selection, offset, limit, out);
    // A created record's position is its base rank plus the created records before it.
    return merge_page(
        *base_, selection, created_.size(), [this](std::size_t i) { return created_[i]; },
        [this](std::size_t i) { return created_rank_[i] + i; }, offset, limit, out);
  }
  const std::vector<const Record*> mine = created_in(selection);
  if (mine.empty()) return base_->page(selection, offset, limit, out);
  std::vector<std::uint64_t> position(mine.size());
  for (std::size_t i = 0; i < mine.size(); ++i)
    position[i] = entity_base_rank(selection, mine[i]->order) + i;
  merge_page(
      *base_, selection, mine.size(), [&mine](std::size_t i) { return *mine[i]; },
      [&position](std::size_t i) { return position[i]; }, offset, limit, out);
}

std::string LiveDataset::describe() const {
  const std::size_t n = created_count();
  return base_->describe() + (n == 0 ? "" : " + " + std::to_string(n) + " uploaded");
}

std::optional<Record> LiveDataset::find_by_file(std::string_view file) const {
  {
    const std::shared_lock lock(mutex_);
    for (const Record& r : created_)
      if (r.file == file) return r;
  }
  return base_->find_by_file(file);
}

std::optional<Record> LiveDataset::find_by_id(std::int64_t id) const {
  {
    const std::shared_lock lock(mutex_);
    for (const Record& r : created_)
      if (r.id == id) return r;
  }
  return base_->find_by_id(id);
}

std::int64_t LiveDataset::max_id() const {
  const std::shared_lock lock(mutex_);
  return last_id_;
}

}  // namespace entimg::mock
