#pragma once
#include <filesystem>

#include "entimg/contract/runner.hpp"

namespace entimg::contract {
/// Writes the run as JUnit XML through Catch2's own junit reporter: one test case a rule that was
/// checked, failing with one message a violation. Replays the results: no request is sent.
/// Returns false when the file could not be written.
bool write_junit_report(const RunReport& report, const std::filesystem::path& file);
}  // namespace entimg::contract
