#pragma once
#include <cstdint>
#include <memory>
#include <optional>

#include "entimg/mock/dataset.hpp"
#include "entimg/mock/http_types.hpp"
#include "entimg/mock/live_dataset.hpp"

namespace entimg::mock {

/// How the service answers besides its data and user.
struct ServiceOptions {
  /// --sized-pictures: each record's picture is as large as its file_size says (padding inside the picture),
  /// sent in pieces; by default the small placeholder.
  bool sized_pictures = false;
};

/// The Entity Images Listing Service as django-edw on DRF answers it, over one dataset and the records
/// its user uploads (kept in memory, or in a LiveDataset's state directory).
class Service {
 public:
  /// Over `dataset`, uploads kept in memory.
  explicit Service(std::shared_ptr<const Dataset> dataset, std::optional<User> user = std::nullopt,
                   ServiceOptions options = {});
  explicit Service(std::shared_ptr<LiveDataset> dataset, std::optional<User> user = std::nullopt,
                   ServiceOptions options = {});
  /// Thread-safe: requests may be handled concurrently (uploads are serialised by the dataset).
  HttpResponse handle(const HttpRequest& request) const;
  /// Changes whenever an answer may change (an upload): answers to equal requests at one version are equal.
  std::uint64_t data_version() const;
  /// Removes the records uploaded since the start (POST /__mock/reset); returns how many.
  std::size_t reset_uploads() const;

 private:
  HttpResponse handle_at(const HttpRequest& request) const;  // at the request's moment, set by handle()
  std::shared_ptr<LiveDataset> dataset_;
  std::optional<User> user_;
  ServiceOptions options_;
};

}  // namespace entimg::mock
