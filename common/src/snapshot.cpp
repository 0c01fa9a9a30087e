#include "entimg/common/snapshot.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <fstream>
#include <memory>
#include <stdexcept>

#include <openssl/evp.h>

#include "entimg/common/bounded_file.hpp"

namespace entimg::common {
namespace {

const nlohmann::json& member(const nlohmann::json& doc, const char* key) {
  const auto it = doc.find(key);
  if (it == doc.end()) throw std::runtime_error(std::string("manifest: \"") + key + "\" is missing");
  return *it;
}

std::string text_member(const nlohmann::json& doc, const char* key) {
  const auto& value = member(doc, key);
  if (!value.is_string()) throw std::runtime_error(std::string("manifest: \"") + key + "\" is not a string");
  return value.get<std::string>();
}

std::uint64_t count_member(const nlohmann::json& doc, const char* key) {
  const auto& value = member(doc, key);
  if (!value.is_number_unsigned())
    throw std::runtime_error(std::string("manifest: \"") + key + "\" is not a whole number");
  return value.get<std::uint64_t>();
}

// A file name inside the snapshot: relative, no "..", no empty or dot segments.
bool safe_relative(const std::string& name) {
  if (name.empty() || name.front() == '/' || name.find('\\') != std::string::npos) return false;
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t slash = std::min(name.find('/', start), name.size());
    const std::string segment = name.substr(start, slash - start);
    if (segment.empty() || segment == "." || segment == "..") return false;
    start = slash + 1;
  }
  return true;
}

}  // namespace

nlohmann::json SnapshotManifest::to_json() const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& f : files)
    list.push_back({{"name", f.name}, {"bytes", f.bytes}, {"sha256", f.sha256}});
  return {{"format", kSnapshotFormat},
          {"version", kSnapshotVersion},
          {"complete", complete},
          {"base_url", base_url},
          {"collection_path", collection_path},
          {"recorded_at", recorded_at},
          {"tool", tool},
          {"count", count},
          {"records", records},
          {"limit", limit},
          {"files", list}};
}

SnapshotManifest SnapshotManifest::from_json(const nlohmann::json& doc) {
  if (!doc.is_object()) throw std::runtime_error("manifest: not a JSON object");
  if (text_member(doc, "format") != kSnapshotFormat)
    throw std::runtime_error(std::string("manifest: \"format\" is not \"") + kSnapshotFormat + "\"");
  if (count_member(doc, "version") != kSnapshotVersion)
    throw std::runtime_error("manifest: version " + member(doc, "version").dump() +
                             " is not one this tool reads (" + std::to_string(kSnapshotVersion) + ")");
  SnapshotManifest m;
  const auto& complete = member(doc, "complete");
  if (!complete.is_boolean()) throw std::runtime_error("manifest: \"complete\" is not true or false");
  m.complete = complete.get<bool>();
  m.base_url = text_member(doc, "base_url");
  m.collection_path = text_member(doc, "collection_path");
  m.recorded_at = text_member(doc, "recorded_at");
  m.tool = text_member(doc, "tool");
  m.count = count_member(doc, "count");
  m.records = count_member(doc, "records");
  m.limit = count_member(doc, "limit");
  const auto& files = member(doc, "files");
  if (!files.is_array()) throw std::runtime_error("manifest: \"files\" is not an array");
  for (const auto& f : files) {
    if (!f.is_object()) throw std::runtime_error("manifest: an entry of \"files\" is not an object");
    SnapshotFile file{text_member(f, "name"), count_member(f, "bytes"), text_member(f, "sha256")};
    if (!safe_relative(file.name))
      throw std::runtime_error("manifest: file name \"" + file.name + "\" is not a plain relative path");
    m.files.push_back(std::move(file));
  }
  return m;
}

std::filesystem::path snapshot_file(const std::filesystem::path& dir, const std::string& name) {
  namespace fs = std::filesystem;
  const std::string where = "snapshot " + dir.string() + ": " + name;
  std::error_code error;
  const fs::path root = fs::canonical(dir, error);
  if (error) throw std::runtime_error("snapshot " + dir.string() + ": not a directory");
  const fs::path file = fs::weakly_canonical(dir / name, error);
  if (error || !fs::exists(fs::symlink_status(dir / name))) throw std::runtime_error(where + " is missing");
  const auto [end, _] = std::mismatch(root.begin(), root.end(), file.begin(), file.end());
  if (end != root.end()) throw std::runtime_error(where + " leads out of the snapshot directory");
  // A FIFO would block the reader for ever, a device such as /dev/zero would never end.
  if (!fs::is_regular_file(file, error))
    throw std::runtime_error(where + " is not a regular file (a FIFO, a device or a directory?)");
  return file;
}

namespace {

// The digest a context has taken in, as lower-case hex.
std::string digest_hex(EVP_MD_CTX* ctx) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(ctx, digest.data(), &length);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(kHex[digest[i] >> 4]);
    hex.push_back(kHex[digest[i] & 15]);
  }
  return hex;
}

}  // namespace

std::string sha256_file(const std::filesystem::path& file, std::uint64_t* bytes) {
  // O_NONBLOCK: opening a FIFO with no writer must not block; fstat then refuses anything not regular.
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(file.string() + ": cannot be opened");
  const std::unique_ptr<int, void (*)(int*)> closer(new int(fd), [](int* f) {
    ::close(*f);
    delete f;
  });
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
    throw std::runtime_error(file.string() + ": not a regular file");
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 is not available");
  std::array<char, 1 << 16> buffer{};
  std::uint64_t total = 0;
  for (;;) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw std::runtime_error(file.string() + ": read error");
    if (got == 0) break;
    EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<std::size_t>(got));
    total += static_cast<std::uint64_t>(got);
  }
  if (bytes != nullptr) *bytes = total;
  return digest_hex(ctx.get());
}

std::string sha256_hex(std::string_view bytes) {
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 is not available");
  EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size());
  return digest_hex(ctx.get());
}

SnapshotManifest open_snapshot(const std::filesystem::path& dir, std::uint64_t max_file_bytes) {
  const std::string where = "snapshot " + dir.string();
  if (!std::filesystem::is_directory(dir)) throw std::runtime_error(where + ": not a directory");
  std::filesystem::path manifest_file;
  try {
    manifest_file = snapshot_file(dir, "manifest.json");
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string(e.what()) + " (not a snapshot)");
  }
  const std::string manifest_text = read_bounded_file(manifest_file, max_file_bytes);
  SnapshotManifest m;
  try {
    m = SnapshotManifest::from_json(nlohmann::json::parse(manifest_text));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(where + ": manifest.json is not valid JSON: " + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(where + ": " + e.what());
  }
  if (!m.complete)
    throw std::runtime_error(where + ": the recording is not complete (run `record` again to finish it)");
  bool has_records = false;
  for (const auto& f : m.files) {
    has_records = has_records || f.name == "records.jsonl";
    std::uint64_t bytes = 0;
    std::string sha;
    const std::filesystem::path file = snapshot_file(dir, f.name);
    std::error_code error;  // one too large is refused before it is hashed
    if (const std::uintmax_t size = std::filesystem::file_size(file, error); !error && size > max_file_bytes)
      throw FileError(FileProblem::too_large, where + ": " + f.name + ": " + std::to_string(size) +
                                                  " bytes, over the limit of " +
                                                  std::to_string(max_file_bytes));
    try {
      sha = sha256_file(file, &bytes);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(where + ": " + f.name + " cannot be read (" + e.what() + ")");
    }
    if (bytes != f.bytes || sha != f.sha256)
      throw std::runtime_error(where + ": " + f.name + " does not match the manifest (" +
                               std::to_string(bytes) + " bytes, sha256 " + sha + "; recorded " +
                               std::to_string(f.bytes) + " bytes, " + f.sha256 + ")");
  }
  if (!has_records) throw std::runtime_error(where + ": the manifest lists no records.jsonl");
  return m;
}

}  // namespace entimg::common
