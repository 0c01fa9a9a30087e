// The main() of every test binary; Catch2's implementation is the entimg::catch2 library.
#include "entimg/catch2/session.hpp"

int main(int argc, char* argv[]) {
  return entimg::catch2::run_main(argc, argv);
}
