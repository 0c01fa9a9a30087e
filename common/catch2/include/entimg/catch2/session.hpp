#pragma once
// Catch2 v2 declares its Session only beside its implementation; these run one from any file.

namespace entimg::catch2 {

/// Runs the registered test cases as Catch2's own main() would; returns its exit code.
int run_main(int argc, char* argv[]);
/// Runs them with these arguments (reporter, output file...); false when Catch2 refuses the arguments.
bool run_session(int argc, const char* const argv[]);

}  // namespace entimg::catch2
