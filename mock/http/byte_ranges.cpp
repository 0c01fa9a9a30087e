#include "byte_ranges.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "entimg/common/ascii.hpp"
#include "entimg/common/prng.hpp"
#include "entimg/mock/failure_pages.hpp"

namespace entimg::mock::detail {
namespace {

constexpr std::int64_t kMaxOffset = std::numeric_limits<std::int64_t>::max();  // nginx's NGX_MAX_OFF_T_VALUE

// The Range value read as nginx's parser reads it: a byte at a time, the end of the text as its NUL.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}
  char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
  char take() { return at_ < text_.size() ? text_[at_++] : (++at_, '\0'); }
  void skip_spaces() {
    while (peek() == ' ')
      ++at_;
  }
  bool digit() const { return peek() >= '0' && peek() <= '9'; }
  // Digits into `value`; false when it would pass the largest offset.
  bool number(std::int64_t& value) {
    while (digit()) {
      const int d = take() - '0';
      if (value >= kMaxOffset / 10 && (value > kMaxOffset / 10 || d > kMaxOffset % 10)) return false;
      value = value * 10 + d;
    }
    return true;
  }

 private:
  std::string_view text_;
  std::size_t at_ = 0;
};

// One range of the list: false when the header is unsatisfiable as a whole. `first`..`end` as nginx keeps
// them: an end past the length is the length; a suffix range counts back from the end.
bool read_range(Cursor& in, std::int64_t length, std::int64_t& first, std::int64_t& end) {
  first = end = 0;
  bool suffix = false;
  in.skip_spaces();
  if (in.peek() != '-') {
    if (!in.digit() || !in.number(first)) return false;
    in.skip_spaces();
    if (in.take() != '-') return false;
    in.skip_spaces();
    if (in.peek() == ',' || in.peek() == '\0') {
      end = length;
      return true;
    }
  } else {
    suffix = true;
    in.take();
  }
  if (!in.digit() || !in.number(end)) return false;
  in.skip_spaces();
  if (in.peek() != ',' && in.peek() != '\0') return false;
  if (suffix) {
    first = end < length ? length - end : 0;
    end = length - 1;
  }
  end = end >= length ? length : end + 1;
  return true;
}

// The first header of that name, as nginx keeps the first of a repeated Range or If-Range.
const std::string* first_header(const HttpRequest& request, std::string_view name) {
  for (const auto& [n, v] : request.headers)
    if (common::iequals_ascii(n, name)) return &v;
  return nullptr;
}

// A body of slices: literal text and parts of another body (held, or made in pieces).
class SlicesSource final : public BodySource {
 public:
  struct Slice {
    std::string text;                // sent first
    std::uint64_t from = 0, to = 0;  // then these bytes of the body
  };
  SlicesSource(std::shared_ptr<const BodySource> whole, std::string held, std::vector<Slice> slices)
      : whole_(std::move(whole)), held_(std::move(held)), slices_(std::move(slices)) {
    for (const Slice& s : slices_)
      size_ += s.text.size() + (s.to - s.from);
  }
  std::uint64_t size() const override { return size_; }
  void write(std::uint64_t offset, char* out, std::size_t n) const override {
    std::uint64_t start = 0;
    for (const Slice& s : slices_) {
      const std::uint64_t text_end = start + s.text.size(), end = text_end + (s.to - s.from);
      if (n > 0 && offset < text_end) {
        const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(n, text_end - offset));
        std::memcpy(out, s.text.data() + static_cast<std::size_t>(offset - start), take);
        out += take, n -= take, offset += take;
      }
      if (n > 0 && offset >= text_end && offset < end) {
        const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(n, end - offset));
        const std::uint64_t at = s.from + (offset - text_end);
        if (whole_)
          whole_->write(at, out, take);
        else
          std::memcpy(out, held_.data() + static_cast<std::size_t>(at), take);
        out += take, n -= take, offset += take;
      }
      start = end;
    }
  }

 private:
  std::shared_ptr<const BodySource> whole_;
  std::string held_;
  std::vector<Slice> slices_;
  std::uint64_t size_ = 0;
};

std::string span_text(std::pair<std::uint64_t, std::uint64_t> span, std::uint64_t length) {
  return std::to_string(span.first) + "-" + std::to_string(span.second - 1) + "/" + std::to_string(length);
}

// nginx numbers each multipart answer's boundary (a counter); the mock draws it from the request, so that
// the same request gets the same bytes (the memo, the npm package): 20 digits, as nginx pads its number.
std::string boundary_of(const HttpRequest& request, std::string_view range) {
  std::uint64_t h = 0;
  for (const std::string_view part : {std::string_view(request.target), range})
    for (const char c : part)
      h = common::mix64(h ^ static_cast<unsigned char>(c));
  char digits[24];
  std::snprintf(digits, sizeof digits, "%020llu",
                static_cast<unsigned long long>(h % 10'000'000'000'000'000'000ULL));
  return digits;
}

}  // namespace

RangeSet parse_byte_ranges(std::string_view spec, std::uint64_t length) {
  RangeSet set;
  const auto len = static_cast<std::int64_t>(std::min<std::uint64_t>(length, kMaxOffset));
  Cursor in(spec);
  std::int64_t size = 0;
  for (;;) {
    std::int64_t first = 0, end = 0;
    if (!read_range(in, len, first, end)) return {RangeSet::Verdict::unsatisfiable, {}};
    if (first < end) {
      set.spans.emplace_back(static_cast<std::uint64_t>(first), static_cast<std::uint64_t>(end));
      if (size > kMaxOffset - (end - first)) return {RangeSet::Verdict::unsatisfiable, {}};
      size += end - first;
    } else if (first == 0) {
      return {};
    }
    if (in.take() != ',') break;
  }
  if (set.spans.empty()) return {RangeSet::Verdict::unsatisfiable, {}};
  if (size > len) return {};  // overlapping ranges asking for more than the file: the whole of it
  set.verdict = RangeSet::Verdict::partial;
  return set;
}

HttpResponse answer_ranges(const HttpRequest& request, HttpResponse full) {
  const std::uint64_t length = body_size(full);
  const std::string* range = first_header(request, "Range");
  RangeSet set;
  if (full.status == 200 && range != nullptr && range->size() >= 7 &&
      common::istarts_with_ascii(*range, "bytes=") && first_header(request, "If-Range") == nullptr)
    set = parse_byte_ranges(std::string_view(*range).substr(6), length);
  if (set.verdict == RangeSet::Verdict::whole) {
    if (full.status == 200) full.headers.emplace_back("Accept-Ranges", "bytes");
    return full;
  }
  if (set.verdict == RangeSet::Verdict::unsatisfiable) {
    HttpResponse refused = failure_response(416);
    refused.headers.emplace_back("Content-Range", "bytes */" + std::to_string(length));
    return refused;
  }
  std::vector<SlicesSource::Slice> slices;
  HttpResponse partial{206, full.content_type, std::move(full.headers), {}, nullptr};
  partial.passed = full.passed;
  if (set.spans.size() == 1) {
    partial.headers.emplace_back("Content-Range", "bytes " + span_text(set.spans[0], length));
    slices.push_back({"", set.spans[0].first, set.spans[0].second});
  } else {
    const std::string boundary = boundary_of(request, *range);
    partial.content_type = "multipart/byteranges; boundary=" + boundary;
    const std::string type_line = full.content_type.empty() ? "" : "\r\nContent-Type: " + full.content_type;
    for (const auto& span : set.spans)
      slices.push_back({"\r\n--" + boundary + type_line + "\r\nContent-Range: bytes " +
                            span_text(span, length) + "\r\n\r\n",
                        span.first, span.second});
    slices.push_back({"\r\n--" + boundary + "--\r\n", 0, 0});
  }
  auto source = std::make_shared<const SlicesSource>(full.source, std::move(full.body), std::move(slices));
  if (full.source)
    partial.source = std::move(source);
  else
    partial.body = whole_body(HttpResponse{206, {}, {}, {}, source});  // small: held as any answer
  return partial;
}

}  // namespace entimg::mock::detail
