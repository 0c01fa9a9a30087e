// Catch2's implementation (its single header with CATCH_CONFIG_RUNNER), compiled once for every test
// binary. common/CMakeLists.txt builds it without sanitizers
// and without optimisation: it is third-party code, and it was the dearest object of the build.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "entimg/catch2/session.hpp"

namespace entimg::catch2 {

int run_main(int argc, char* argv[]) {
  return Catch::Session().run(argc, argv);
}

}  // namespace entimg::catch2
