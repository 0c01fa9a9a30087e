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

# PCRE2 (with its JIT) runs the schemas' "pattern" keywords; see common/src/ecma_regex.hpp.
pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8>=10.40)

# jemalloc: the contract suite's full walk builds and frees a DOM per page on several threads, where
# glibc's allocator spent a third of the time (bench/run.sh, docs/bench.md).
pkg_check_modules(JEMALLOC REQUIRED IMPORTED_TARGET jemalloc>=5)

# zlib and Brotli decode the answers the contract suite asked compressed (contract/http/content_coding.hpp).
find_package(ZLIB REQUIRED)
pkg_check_modules(BROTLIDEC REQUIRED IMPORTED_TARGET libbrotlidec)

# simdjson reads the pages the contract suite checks (contract/page/json_parse.hpp).
pkg_check_modules(SIMDJSON REQUIRED IMPORTED_TARGET simdjson>=3)

# CLI11 declares both programs' command lines (options, checks, help, --config).
find_package(CLI11 2.1 REQUIRED)

# Catch2 runs the tests, and the contract tool's JUnit report is Catch2's junit reporter.
find_package(Catch2 2.13 REQUIRED)
list(APPEND CMAKE_MODULE_PATH "${Catch2_DIR}")

# node runs the tests that use npm packages (ajv, swagger-parser, playwright-core); building needs none of
# it, so without node those tests fail saying so rather than the configure step.
find_program(ENTIMG_NODE node)
if(NOT ENTIMG_NODE)
  set(ENTIMG_NODE node)
endif()

# The portable tarball (the portable preset, ci/portable.sh, docs/build.md#the-portable-tarball): its programs may
# need nothing a distribution does not have everywhere (glibc, libstdc++, libgcc_s, OpenSSL 3, zlib). PCRE2,
# jemalloc, Brotli and Expat are linked from the static archives Debian ships; cpp-httplib and simdjson, which Debian
# ships only as shared libraries (its cpp-httplib header is the split one, its code in libcpp-httplib.so), are
# carried in the tarball's lib/ and found through the run path $ORIGIN/../lib.
option(ENTIMG_PORTABLE "Link the programs for the portable tarball: PCRE2, jemalloc, Brotli and Expat static, run path \$ORIGIN/../lib" OFF)
if(ENTIMG_PORTABLE)
  # A pkg-config target made to link these static archives (lib<name>.a) and what they need, in place of the
  # shared libraries; the targets' names stay, so every link line stays as it is.
  function(entimg_link_static target)
    cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "ARCHIVES;NEEDS")
    set(archives)
    foreach(name IN LISTS arg_ARCHIVES)
      find_library(archive NAMES lib${name}.a REQUIRED NO_CACHE)
      list(APPEND archives ${archive})
      unset(archive)
    endforeach()
    set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${archives};${arg_NEEDS}"
                                               INTERFACE_LINK_OPTIONS "" INTERFACE_LINK_DIRECTORIES "")
  endfunction()
  entimg_link_static(PkgConfig::PCRE2 ARCHIVES pcre2-8)
  entimg_link_static(PkgConfig::JEMALLOC ARCHIVES jemalloc NEEDS Threads::Threads m dl)
  entimg_link_static(PkgConfig::BROTLIDEC ARCHIVES brotlidec brotlicommon)
  # Expat (the suite's SVG check): FindEXPAT keeps an EXPAT_LIBRARY found before it, so the archive is linked.
  find_library(EXPAT_LIBRARY NAMES libexpat.a REQUIRED)
  set(CMAKE_SKIP_BUILD_RPATH OFF)
  set(CMAKE_BUILD_WITH_INSTALL_RPATH ON)
  set(CMAKE_INSTALL_RPATH "\$ORIGIN/../lib")
  add_link_options(LINKER:--enable-new-dtags)  # DT_RUNPATH, not the older DT_RPATH
endif()
