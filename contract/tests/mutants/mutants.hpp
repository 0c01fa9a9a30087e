#pragma once
// Generated mutants of a correct deployment: each takes the answers of a correct server (the mock's
// service, or the DRF replica over HTTP) and breaks them in one way, at a position the seed chooses.
// The contract suite must fail against every one, in quick mode those whose position the quick plan
// visits, and in full mode all of them; against the tolerated variations it must pass.
// (docs/mutation-testing.md)
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "entimg/common/prng.hpp"
#include "entimg/common/url.hpp"
#include "entimg/mock/http_types.hpp"

namespace entimg::mutants {

/// A correct deployment: answers what the correct server answers. Thread-safe.
class Upstream {
 public:
  virtual ~Upstream() = default;
  /// The correct answer; for HEAD, GET's answer (status, headers and the body whose length is sent).
  virtual mock::HttpResponse handle(const mock::HttpRequest& request) = 0;
  /// Records in the collection.
  virtual std::uint64_t count() const = 0;
  /// Names the upstream in reports and in the command that reproduces a mutant.
  virtual std::string describe() const = 0;
};

/// One request as a mutation sees it.
struct Call {
  const mock::HttpRequest& request;
  common::QueryParams params;  ///< decoded, in order
  std::uint64_t nth = 1;       ///< 1 for the server's first request, counted over all connections
  Upstream& upstream;

  /// The correct answer to the same request with another query.
  mock::HttpResponse answer_with(const common::QueryParams& query) const;
};

/// How an answer goes on the wire; a mutation of the transport changes this, not the answer.
struct Wire {
  enum class Framing { Length, Chunked };
  Framing framing = Framing::Length;
  std::int64_t length_delta = 0;  ///< Content-Length announced off by this many bytes
  std::string first_chunk_size;   ///< when set, the first chunk's size line as sent
  bool drop_last_chunk = false;   ///< a chunked body without its terminating 0-size chunk
  bool body_after_head = false;   ///< HEAD's answer followed by the body
  bool split_after_head = false;  ///< the head in one write, the body in a second (gunicorn's sync worker)
  std::chrono::milliseconds split_pause{0};  ///< between the two writes
  bool close_after = false;            ///< Connection: close, and the connection closed after the answer
  bool lower_case_names = false;       ///< every header name in lower case, the transport's own too
  std::size_t cut_body_at = SIZE_MAX;  ///< the connection closed after this many body bytes
  std::chrono::milliseconds delay{0};  ///< wait before answering
};

/// What a run must do to see a mutant.
enum class Visibility {
  Quick,  ///< the default quick run visits an answer it breaks, and a rule can see it there
  Full    ///< only a full walk can: the broken answer, or the comparison, is the walk's alone
};
const char* to_string(Visibility visibility);

/// A correct answer changed in one way, at one position.
struct Mutant {
  std::string klass;  ///< the class, as reports count them: "arithmetic", "links", …
  std::string name;   ///< what is broken and where: "count +1 on the last page"
  Visibility visibility = Visibility::Quick;
  /// Whether the mutation applies to this request (its position).
  std::function<bool(const Call&)> applies;
  /// Changes the correct answer (and its framing) for that request.
  std::function<void(const Call&, mock::HttpResponse&, Wire&)> mutate;
  /// Forgets what a stateful mutant (a cache) kept: called before each run against it; may be empty.
  std::function<void()> reset;
};

/// What the generators need to know of the collection under test.
struct World {
  std::uint64_t count = 0;
  std::uint64_t last_offset() const { return count == 0 ? 0 : (count - 1) / 12 * 12; }
};

/// Every class's mutants for this world, drawn from rng: `per_class` of each class, positions and
/// parameters by the seed.
std::vector<Mutant> generate_mutants(const World& world, common::Pcg32& rng, std::size_t per_class);

/// The classes in report order.
const std::vector<std::string>& mutant_classes();

}  // namespace entimg::mutants
