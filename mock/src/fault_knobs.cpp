#include "fault_knobs.hpp"

namespace entimg::mock::detail {

std::string knob_range(const FaultKnob& knob, std::uint64_t low) {
  return std::string(knob.unit) + " from " + std::to_string(low) + " to " + std::to_string(knob.high);
}

std::string put_keys() {
  std::string out;
  for (const FaultKnob& knob : kFaultKnobs)
    for (const KnobKey& key : knob.keys)
      if (knob.in_put && !key.name.empty()) out.append(out.empty() ? "" : ", ").append(key.name);
  return out;
}

}  // namespace entimg::mock::detail
