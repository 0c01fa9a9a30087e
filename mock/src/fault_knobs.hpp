#pragma once
// The fault knobs declared once: each row gives a knob's flag, help and range (read by the command line's
// checks and --help) and its keys in GET and PUT /__mock/faults (read by the admin route's checks and
// messages). docs/mock.md, "Latency, faults, CORS, log" and "Admin routes".
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "entimg/mock/faults.hpp"

namespace entimg::mock::detail {

inline constexpr std::uint64_t kMaxDelayMs = 3'600'000;             ///< --latency's and --max-delay's top
inline constexpr std::uint64_t kMaxBytesPerSecond = 1'000'000'000;  ///< --slow-body's and X-Mock-Slow-Body's

/// What a knob's value is, which decides how it is checked.
enum class KnobKind {
  latency,  ///< "MS[:JITTER]" on the command line, low..high each; in PUT two keys, each up to --max-delay
  whole,    ///< a whole number from low to high (PUT also takes 0, the value at the start: off)
  share,    ///< a number from 0 to 1
  status,   ///< one of kFaultStatuses
};

/// The FaultOptions field a key sets.
using KnobField = std::variant<std::uint32_t FaultOptions::*, std::uint64_t FaultOptions::*,
                               int FaultOptions::*, double FaultOptions::*>;

/// A field and its name in GET and PUT /__mock/faults.
struct KnobKey {
  std::string_view name;  ///< empty: the knob has no second key
  KnobField field;
};

/// One fault knob: the command line's flag and the admin route's keys of the same option.
struct FaultKnob {
  std::string_view flag;
  std::string_view type_name;
  std::string_view help;  ///< empty for --fail-status: kFaultStatuses says it
  KnobKind kind;
  std::array<KnobKey, 2> keys;
  std::uint64_t low = 0, high = 0;  ///< a whole number's range on the command line
  std::string_view unit = {};       ///< how the messages name a whole number
  bool shows_default = false;       ///< --help shows "=DEFAULT"
  bool in_put = true;               ///< PUT /__mock/faults takes its keys (GET shows every knob's)
};

inline constexpr std::array<FaultKnob, 6> kFaultKnobs{{
    {.flag = "--latency",
     .type_name = "MS[:JITTER]",
     .help = "delay every answer MS milliseconds, plus 0..JITTER",
     .kind = KnobKind::latency,
     .keys = {{{"latency_ms", &FaultOptions::latency_ms}, {"jitter_ms", &FaultOptions::jitter_ms}}},
     .high = kMaxDelayMs,
     .unit = "milliseconds"},
    {.flag = "--max-delay",
     .type_name = "MS",
     .help = "the longest delay a request may ask for with X-Mock-Latency (longer:\n"
             "400); --latency MS+JITTER may not exceed it either",
     .kind = KnobKind::whole,
     .keys = {{{"max_delay_ms", &FaultOptions::max_delay_ms}, {}}},
     .high = kMaxDelayMs,
     .unit = "milliseconds",
     .shows_default = true,
     .in_put = false},
    {.flag = "--fail-rate",
     .type_name = "P",
     .help = "answer this share of requests with --fail-status instead",
     .kind = KnobKind::share,
     .keys = {{{"fail_rate", &FaultOptions::fail_rate}, {}}}},
    {.flag = "--fail-status",
     .type_name = "N",
     .help = "",
     .kind = KnobKind::status,
     .keys = {{{"fail_status", &FaultOptions::fail_status}, {}}},
     .shows_default = true},
    {.flag = "--drop-rate",
     .type_name = "P",
     .help = "close this share of connections without answering",
     .kind = KnobKind::share,
     .keys = {{{"drop_rate", &FaultOptions::drop_rate}, {}}}},
    {.flag = "--slow-body",
     .type_name = "BYTES_PER_S",
     .help = "send bodies at this rate",
     .kind = KnobKind::whole,
     .keys = {{{"slow_body_bps", &FaultOptions::slow_body_bps}, {}}},
     .low = 1,
     .high = kMaxBytesPerSecond,
     .unit = "bytes a second"},
}};

/// "from LOW to HIGH" in the knob's unit: "milliseconds from 0 to 3600000".
std::string knob_range(const FaultKnob& knob, std::uint64_t low);
/// The keys PUT /__mock/faults takes, as its messages list them: "latency_ms, jitter_ms, ...".
std::string put_keys();

}  // namespace entimg::mock::detail
