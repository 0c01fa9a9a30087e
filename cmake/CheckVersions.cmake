# cmake -DVERSION=X.Y.Z -DSOURCE=DIR -P CheckVersions.cmake: the files that state the project's version
# outside CMake (the OpenAPI document, package.json) state project()'s.
foreach(file_and_pattern "schema/openapi.yaml|^  version: (.*)$" "package.json|^  \"version\": \"([^\"]*)\",$")
  string(REPLACE "|" ";" parts "${file_and_pattern}")
  list(GET parts 0 file)
  list(GET parts 1 pattern)
  file(STRINGS "${SOURCE}/${file}" lines REGEX "${pattern}")
  list(GET lines 0 line)
  string(REGEX REPLACE "${pattern}" "\\1" found "${line}")
  if(NOT found STREQUAL VERSION)
    message(FATAL_ERROR "${file} says version '${found}'; project() in CMakeLists.txt says ${VERSION}")
  endif()
  message(STATUS "${file}: ${found}")
endforeach()
