# Warnings and sanitizers as options applied to targets, never as global flags.
option(ENTIMG_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" OFF)
option(ENTIMG_SANITIZE "Build with address and undefined-behaviour sanitizers" OFF)
option(ENTIMG_NPM_TESTS "Build the npm package (the wasm preset) and test it against the native mock" OFF)

function(entimg_target_defaults target)
  target_compile_features(${target} PUBLIC cxx_std_20)
  set_target_properties(${target} PROPERTIES CXX_EXTENSIONS OFF)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion
                                           -Wnon-virtual-dtor -Wold-style-cast)
  if(ENTIMG_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(ENTIMG_SANITIZE)
    target_compile_options(${target} PUBLIC -fsanitize=address,undefined -fno-omit-frame-pointer
                                            -fno-sanitize-recover=undefined)
    target_link_options(${target} PUBLIC -fsanitize=address,undefined)
    # -Og -g1 instead of the build type's -O2 -g: -Og removes fewer loads and stores than -O2, so the
    # sanitizers see at least as much, and -g1 keeps file:line in their stack traces. GCC compiles our
    # heaviest file (schema.cpp) in a quarter of the time (docs/build.md).
    target_compile_options(${target} PRIVATE -Og -g1)
  endif()
  # In a unity build (the dev preset's) each .cpp is included into a bigger one, where GCC takes a class whose
  # member has a type of the file's anonymous namespace for a header's class (-Wsubobject-linkage). The
  # asan preset compiles file by file, so the warning still guards the real headers there.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_UNITY_BUILD)
    target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
  endif()
  # GCC 12 reports false -Wrestrict and -Wmaybe-uninitialized inside libstdc++ (std::string
  # concatenation, std::optional, <regex>) once it optimises (GCC bugs 105329, 105562, 105651);
  # the unoptimised dev build keeps both warnings, as errors.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND (ENTIMG_SANITIZE OR NOT CMAKE_BUILD_TYPE STREQUAL "Debug"))
    target_compile_options(${target} PRIVATE -Wno-restrict -Wno-maybe-uninitialized)
  endif()
endfunction()
