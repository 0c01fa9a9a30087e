# Every dependency comes from Debian's packages (see ci/setup.sh); nothing is downloaded here.
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)

# Debian builds cpp-httplib as a shared library; its pkg-config file carries the feature macros
# (OpenSSL, zlib, brotli) that the header must see to match the library's ABI.
find_package(PkgConfig REQUIRED)
pkg_check_modules(CPP_HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib>=0.11)
add_library(httplib::httplib ALIAS PkgConfig::CPP_HTTPLIB)

# valijson: header-only; ci/setup.sh unpacks Debian's libvalijson-dev headers into /opt/valijson.
find_path(VALIJSON_INCLUDE_DIR valijson/validator.hpp HINTS /opt/valijson/include /usr/include REQUIRED)
add_library(valijson INTERFACE)
target_include_directories(valijson SYSTEM INTERFACE "${VALIJSON_INCLUDE_DIR}")
add_library(valijson::valijson ALIAS valijson)

# Catch2 runs the tests, and the contract tool's JUnit report is Catch2's junit reporter.
find_package(Catch2 2.13 REQUIRED)
list(APPEND CMAKE_MODULE_PATH "${Catch2_DIR}")
