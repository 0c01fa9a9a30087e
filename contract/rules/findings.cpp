#include <algorithm>

#include "entimg/common/url.hpp"
#include "entimg/contract/checks.hpp"
#include "json_parse.hpp"

namespace entimg::contract {

namespace {

// A URL from a next link, a message quoting a header: text a server chose, kept to a length a CI log
// and a JSON report can carry.
constexpr std::size_t kMaxMessageBytes = 4096;
constexpr std::size_t kMaxUrlBytes = 2048;
constexpr std::size_t kMaxPointerBytes = 512;

std::string bounded(std::string text, std::size_t max) {
  if (text.size() <= max) return text;
  const std::size_t total = text.size();
  return common::utf8_cut(std::move(text), max, "… (" + std::to_string(total) + " bytes)");
}

}  // namespace

Findings::Tally& Findings::tally(std::string_view rule) {
  for (Tally& t : tallies_)
    if (t.rule == rule) return t;
  return tallies_.emplace_back(Tally{std::string(rule)});
}

void Findings::judged(std::string_view rule, std::chrono::steady_clock::time_point first,
                      std::chrono::steady_clock::time_point last) {
  for (Span& span : spans_) {
    if (span.rule != rule) continue;
    span.first = std::min(span.first, first);
    span.last = std::max(span.last, last);
    return;
  }
  spans_.push_back({std::string(rule), first, last});
}

std::chrono::nanoseconds Findings::judged_for(std::string_view rule) const {
  for (const Span& span : spans_)
    if (span.rule == rule) return span.last - span.first;
  return std::chrono::nanoseconds{0};
}

void Findings::merge_spans(const Findings& other) {
  for (const Span& span : other.spans_)
    judged(span.rule, span.first, span.last);
}

void Findings::fail(Failure failure) {
  if (stamping_) {
    const auto now = std::chrono::steady_clock::now();
    judged(failure.rule, now, now);
  }
  Tally& t = tally(failure.rule);
  if (t.kept >= kKeptFailures) {
    ++t.left_out;
    return;
  }
  ++t.kept;
  failure.message = bounded(std::move(failure.message), kMaxMessageBytes);
  failure.url = bounded(std::move(failure.url), kMaxUrlBytes);
  failure.pointer = bounded(std::move(failure.pointer), kMaxPointerBytes);
  failures_.push_back(std::move(failure));
}

void Findings::set_request_headers(std::size_t from, const Headers& headers) {
  for (std::size_t i = from; i < failures_.size(); ++i)
    if (failures_[i].request_headers.empty()) failures_[i].request_headers = headers;
}

std::uint64_t Findings::left_out(std::string_view rule) const {
  for (const Tally& t : tallies_)
    if (t.rule == rule) return t.left_out;
  return 0;
}

void Findings::pass(std::string_view rule, std::uint64_t n) {
  if (n == 0) return;
  if (stamping_) {
    const auto now = std::chrono::steady_clock::now();
    judged(rule, now, now);
  }
  for (auto& [name, count] : passes_) {
    if (name == rule) {
      count += n;
      return;
    }
  }
  passes_.emplace_back(std::string(rule), n);
}

void Findings::note(std::string_view rule, std::string text) {
  text = bounded(std::move(text), kMaxMessageBytes);
  for (const auto& [name, existing] : notes_)
    if (name == rule && existing == text) return;
  notes_.emplace_back(std::string(rule), std::move(text));
}

std::uint64_t Findings::checked(std::string_view rule) const {
  std::uint64_t n = 0;
  for (const auto& [name, count] : passes_)
    if (name == rule) n += count;
  for (const Failure& f : failures_)
    if (f.rule == rule) ++n;
  return n + left_out(rule);
}

void Findings::merge(const Findings& other) {
  stamping_ = false;
  merge_spans(other);
  for (const Failure& f : other.failures_)
    fail(f);
  for (const Tally& t : other.tallies_)
    tally(t.rule).left_out += t.left_out;
  for (const auto& [rule, count] : other.passes_)
    pass(rule, count);
  for (const auto& [rule, text] : other.notes_)
    note(rule, text);
  stamping_ = true;
}

void Findings::merge_excusing(const Findings& other, const std::vector<std::string_view>& rules) {
  stamping_ = false;
  merge_spans(other);
  const auto excused = [&](std::string_view rule) {
    return std::find(rules.begin(), rules.end(), rule) != rules.end();
  };
  for (const Failure& f : other.failures_)
    if (excused(f.rule))
      pass(f.rule);
    else
      fail(f);
  for (const Tally& t : other.tallies_)
    if (excused(t.rule))
      pass(t.rule, t.left_out);
    else
      tally(t.rule).left_out += t.left_out;
  for (const auto& [rule, count] : other.passes_)
    pass(rule, count);
  for (const auto& [rule, text] : other.notes_)
    note(rule, text);
  stamping_ = true;
}

}  // namespace entimg::contract
