#pragma once
// Catch2 v2 declares its Session only beside its implementation; this runs one from any file.

namespace entimg::catch2 {

/// Runs the registered test cases as Catch2's own main() would; returns its exit code.
int run_main(int argc, char* argv[]);

}  // namespace entimg::catch2
