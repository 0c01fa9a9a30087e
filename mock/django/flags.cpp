#include "flags.hpp"

namespace entimg::mock::detail {

std::string flag_range(const Flag& flag, std::uint64_t low) {
  const std::string high =
      flag.high == std::numeric_limits<std::uint64_t>::max() ? "2^64-1" : std::to_string(flag.high);
  return std::string(flag.what) + " from " + std::to_string(low) + " to " + high;
}

std::string put_keys() {
  std::string out;
  for (const Flag& flag : kFlags)
    for (const KnobKey& key : flag.keys)
      if (flag.in_put && !key.name.empty()) out.append(out.empty() ? "" : ", ").append(key.name);
  return out;
}

}  // namespace entimg::mock::detail
