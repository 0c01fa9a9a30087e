#pragma once
// Range requests on the files the front server serves (/media/), as nginx's static module answers them
// (ngx_http_range_filter_module): docs/mock.md, "Pictures".
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "entimg/mock/http_types.hpp"

namespace entimg::mock::detail {

/// How a Range header's value (after "bytes=") reads against a body of `length` bytes.
struct RangeSet {
  enum class Verdict { whole, partial, unsatisfiable };
  Verdict verdict = Verdict::whole;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> spans;  ///< [first, end) of each range, in order
};
RangeSet parse_byte_ranges(std::string_view spec, std::uint64_t length);

/// `full`, a 200 of a file of known length, as nginx answers its request: one range, 206 with Content-Range;
/// several, 206 with a multipart/byteranges body; none satisfiable, 416 with `Content-Range: bytes */LENGTH`
/// and nginx's page; anything else (no Range, another unit, If-Range: the mock's files carry no validator it
/// could match, overlapping ranges longer than the file), the 200 with `Accept-Ranges: bytes`. The parts of
/// a body made in pieces (HttpResponse::source) are made in pieces too.
HttpResponse answer_ranges(const HttpRequest& request, HttpResponse full);

}  // namespace entimg::mock::detail
