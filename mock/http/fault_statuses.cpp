#include "fault_statuses.hpp"

#include <vector>

namespace entimg::mock::detail {

namespace {

// "a, b, c or d": the words joined as a sentence lists them.
template <class Words>
std::string listed(const Words& words, std::string_view last_joiner) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? last_joiner : std::string_view(", ");
    out += words[i];
  }
  return out;
}

}  // namespace

const FaultStatus* find_fault_status(std::string_view text) {
  for (const FaultStatus& row : kFaultStatuses)
    if (row.text == text) return &row;
  return nullptr;
}

const FaultStatus* find_fault_status(int status) {
  for (const FaultStatus& row : kFaultStatuses)
    if (row.status == status) return &row;
  return nullptr;
}

std::string fault_status_choices(std::string_view last_choice) {
  std::vector<std::string_view> words;
  for (const FaultStatus& row : kFaultStatuses)
    words.push_back(row.text);
  if (!last_choice.empty()) words.push_back(last_choice);
  return listed(words, " or ");
}

std::string retry_after_statuses() {
  std::vector<std::string_view> words;
  for (const FaultStatus& row : kFaultStatuses)
    if (row.retry_after) words.push_back(row.text);
  return listed(words, " and ");
}

}  // namespace entimg::mock::detail
