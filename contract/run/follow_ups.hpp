#pragma once
// What a client asks past the list, besides the pictures (docs/contract.md, "Past the list"): a listed
// record opened on its detail route, the collection path without its trailing slash, a page asked again with
// the validators its answer gave. Each answer is judged by its step's FollowUp rules (checks_client.cpp), and
// a page among them by the page rules too.
#include <cstdint>
#include <span>
#include <string>

#include "entimg/contract/checks.hpp"
#include "entimg/contract/http.hpp"

namespace entimg::contract::detail {

class FollowUps {
 public:
  FollowUps(Client& client, const CheckContext& context, Findings& findings);

  /// Opens the records of `page` at these indices (those past its results skipped) on the detail route.
  void open_records(const Page& page, std::span<const std::size_t> indices);
  /// The slashless collection path with limit=9&offset=<offset>, after the slashed one asked directly.
  void slashless(std::uint64_t offset);
  /// `page` asked again with its own validators, and `other` (another page of the collection) and the
  /// browsable HTML of page's URL with page's ETag, one answer held at a time beside `page` (pages may be
  /// near the 64 MiB body cap). Without validators a client cannot revalidate: a note.
  void revalidate(const Page& page, const PageQuery& other);

 private:
  Page ask(const std::string& path, const PageQuery& query, const Headers& headers);

  Client& client_;
  const CheckContext& context_;
  Findings& findings_;
};

}  // namespace entimg::contract::detail
