#pragma once
// The statuses a failing deployment answers, declared once: --fail-status, PUT /__mock/faults, X-Mock-Fail
// and failure_response() all read this table (docs/mock.md, "Latency, faults, CORS, log").
#include <array>
#include <string>
#include <string_view>

namespace entimg::mock::detail {

/// Who sends the failure page: Django itself (DEBUG off), nginx in front of it, or DRF's throttling.
enum class FaultPage { django, nginx, drf };

/// One status a request can be made to fail with, and the answer that carries it.
struct FaultStatus {
  int status;
  std::string_view text;  ///< "503": as --fail-status, X-Mock-Fail and the messages write it
  FaultPage page;
  std::string_view reason;  ///< the page's title, or DRF's detail
  bool retry_after;         ///< the answer carries "Retry-After: 1"
};

inline constexpr std::array<FaultStatus, 4> kFaultStatuses{{
    {500, "500", FaultPage::django, "Server Error (500)", false},
    {502, "502", FaultPage::nginx, "502 Bad Gateway", false},
    {503, "503", FaultPage::nginx, "503 Service Temporarily Unavailable", true},
    {429, "429", FaultPage::drf, "Request was throttled. Expected available in 1 second.", true},
}};

/// The row of `text` ("500"), or null when no fault has that status.
const FaultStatus* find_fault_status(std::string_view text);
/// The row of `status`, or null.
const FaultStatus* find_fault_status(int status);
/// "500, 502, 503 or 429"; with `last_choice` ("none") it is "500, 502, 503, 429 or none".
std::string fault_status_choices(std::string_view last_choice = {});
/// "503 and 429": the statuses whose answer carries Retry-After.
std::string retry_after_statuses();

}  // namespace entimg::mock::detail
