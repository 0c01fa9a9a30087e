# Fails when a Catch2 TEST_CASE name holds a ';' or a '\\': ctest's discovery splits the name at the first,
# and Catch2 reads the second as an escape in the name it is handed, so the test registered runs nothing.
# Run by the test common.test_names_reach_ctest with -DSOURCE=<repository root>.
file(GLOB_RECURSE sources ${SOURCE}/common/*.cpp ${SOURCE}/mock/*.cpp ${SOURCE}/contract/*.cpp)
set(bad "")
foreach(source IN LISTS sources)
  file(STRINGS ${source} lines REGEX "TEST_CASE\\(\"[^\"]*[;\\]")
  foreach(line IN LISTS lines)
    string(APPEND bad "\n  ${source}: ${line}")
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "test case names with ';' or '\\\\' (the test ctest registers for them runs nothing):${bad}")
endif()
