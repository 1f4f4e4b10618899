# traindeck_add_test() and the test cache directory: for tests/.
# Test cache (npm reference packages, demo corpus) lives outside the tree; scripts/setup-deps.sh fills it.
# The same directory as paths::cacheDir() and the scripts: $TRAINDECK_CACHE, else $XDG_CACHE_HOME/traindeck.
if(DEFINED ENV{TRAINDECK_CACHE})
  set(TRAINDECK_CACHE_DIR "$ENV{TRAINDECK_CACHE}" CACHE PATH "TrainDeck cache dir")
elseif(DEFINED ENV{XDG_CACHE_HOME})
  set(TRAINDECK_CACHE_DIR "$ENV{XDG_CACHE_HOME}/traindeck" CACHE PATH "TrainDeck cache dir")
else()
  set(TRAINDECK_CACHE_DIR "$ENV{HOME}/.cache/traindeck" CACHE PATH "TrainDeck cache dir")
endif()

# Qt Test puts the absolute source and build directories of every test target on its compile line
# (QT_TESTCASE_SOURCEDIR/BUILDDIR, for QFINDTESTDATA, which no test uses): each checkout's compiles
# then differ, and ccache missed every test object of a fresh clone. Without them QTEST_MAIN does not
# record the paths; nothing else changes.
get_target_property(_qt_test_definitions Qt6::Test INTERFACE_COMPILE_DEFINITIONS)
if(_qt_test_definitions)
  list(FILTER _qt_test_definitions EXCLUDE REGEX "^QT_TESTCASE_(SOURCE|BUILD)DIR=")
  set_target_properties(Qt6::Test PROPERTIES INTERFACE_COMPILE_DEFINITIONS "${_qt_test_definitions}")
endif()

# The paths the tests need (tests/fixtures/paths/test_paths.h), in one generated source file for the
# same reason: only that file differs between checkouts. A program this build lacks reads as "".
function(_traindeck_test_path_of target genex out)
  set(${out} "$<$<TARGET_EXISTS:${target}>:$<${genex}:${target}>>" PARENT_SCOPE)
endfunction()
_traindeck_test_path_of(traindeck-trainer TARGET_FILE _trainer)
_traindeck_test_path_of(traindeck-cli TARGET_FILE _cli)
_traindeck_test_path_of(traindeck TARGET_FILE _app)
_traindeck_test_path_of(traindeck-telemetry-gen TARGET_FILE _telemetry_gen)
_traindeck_test_path_of(fake_nvml TARGET_FILE _fake_nvml)
_traindeck_test_path_of(fake_nvml_legacy TARGET_FILE _fake_nvml_legacy)
_traindeck_test_path_of(fake_nvml_r535 TARGET_FILE _fake_nvml_r535)
_traindeck_test_path_of(fake_cuda TARGET_FILE_DIR _fake_cuda)
file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/tests/test_paths.cpp" CONTENT "// Written by CMake (cmake/TrainDeckTest.cmake).
#include \"test_paths.h\"

namespace traindeck::testpaths {
const char* sourceDir() { return \"${PROJECT_SOURCE_DIR}\"; }
const char* trainer() { return \"${_trainer}\"; }
const char* cli() { return \"${_cli}\"; }
const char* app() { return \"${_app}\"; }
const char* telemetryGen() { return \"${_telemetry_gen}\"; }
const char* fakeNvmlLibrary() { return \"${_fake_nvml}\"; }
const char* fakeNvmlLegacyLibrary() { return \"${_fake_nvml_legacy}\"; }
const char* fakeNvmlR535Library() { return \"${_fake_nvml_r535}\"; }
const char* fakeCudaDir() { return \"${_fake_cuda}\"; }
} // namespace traindeck::testpaths
")
add_library(traindeck_test_paths STATIC "${PROJECT_BINARY_DIR}/tests/test_paths.cpp"
                                        "${PROJECT_SOURCE_DIR}/tests/fixtures/paths/test_paths.h")
target_include_directories(traindeck_test_paths PUBLIC "${PROJECT_SOURCE_DIR}/tests/fixtures/paths")

# Every suite belongs to one tier, its first label (docs/contributors/testing.md):
#   unit         in-process: no sshd, no mpirun, no trainer or CLI as a process, no testbed
#   integration  a real sshd, mpirun, or the trainer/CLI as a process
#   system       the testbed's network namespaces or its Slurm
# `scripts/test.sh --quick` builds the target tier_unit (every unit suite) and runs `ctest -L unit`.
set(TRAINDECK_TIERS unit integration system)

# traindeck_set_tier(<test> <tier> [PROCESSORS n]): the tier label of a test made with add_test(), and
# how many cores it keeps busy (CTest schedules `-j` by it: suites that run two ranks take both cores).
function(traindeck_set_tier test tier)
  cmake_parse_arguments(T "" "PROCESSORS" "" ${ARGN})
  if(NOT tier IN_LIST TRAINDECK_TIERS)
    message(FATAL_ERROR "test ${test}: tier '${tier}' is not one of ${TRAINDECK_TIERS}")
  endif()
  set_property(TEST ${test} APPEND PROPERTY LABELS ${tier})
  if(T_PROCESSORS)
    set_property(TEST ${test} PROPERTY PROCESSORS ${T_PROCESSORS})
  endif()
endfunction()

# The build targets of each tier's suites, so a tier can be built alone (tier_<name>, tests/CMakeLists.txt).
function(_traindeck_tier_target tier target)
  set_property(GLOBAL APPEND PROPERTY TRAINDECK_TIER_${tier}_TARGETS ${target})
endfunction()

# Every suite's timeout is multiplied by this. The sanitizer presets raise it: their suites run several
# times slower, and scripts/test.sh runs them at nice 10 beside the integration and system tiers, where
# a suite that takes 5 s alone took 53 s (CI, 2026-12-06) and one that took 35 s ran past its 180 s.
set(TRAINDECK_TEST_TIMEOUT_SCALE 1 CACHE STRING "Factor for every suite's CTest timeout (sanitizer builds: 5)")
if(NOT TRAINDECK_TEST_TIMEOUT_SCALE MATCHES "^[1-9][0-9]*$")
  message(FATAL_ERROR "TRAINDECK_TEST_TIMEOUT_SCALE must be a positive whole number, not '${TRAINDECK_TEST_TIMEOUT_SCALE}'")
endif()

# One Qt Test executable per tst_<name>.cpp, registered with CTest.
#   traindeck_add_test(tst_name TIER unit|integration|system SOURCES a.cpp LIBS lib... [LABELS l...]
#                      [TIMEOUT s] [PROCESSORS n])
function(traindeck_add_test name)
  cmake_parse_arguments(T "" "TIMEOUT;TIER;PROCESSORS" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT T_TIER)
    message(FATAL_ERROR "traindeck_add_test(${name}): TIER unit|integration|system is required")
  endif()
  add_executable(${name} ${T_SOURCES})
  set_target_properties(${name} PROPERTIES AUTOMOC ON)
  target_link_libraries(${name} PRIVATE Qt6::Test traindeck_test_paths ${T_LIBS})
  # The cache directory is the same for every checkout (TRAINDECK_CACHE_DIR above).
  target_compile_definitions(${name} PRIVATE QT_NO_KEYWORDS TRAINDECK_CACHE_DIR="${TRAINDECK_CACHE_DIR}")
  add_test(NAME ${name} COMMAND ${name})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  math(EXPR T_TIMEOUT "${T_TIMEOUT} * ${TRAINDECK_TEST_TIMEOUT_SCALE}")
  # TRAINDECK_SUITE_LABELS: labels a directory gives all its suites (e.g. `asan`, tests/unit/backend).
  list(APPEND T_LABELS ${TRAINDECK_SUITE_LABELS})
  list(REMOVE_DUPLICATES T_LABELS)
  set(environment "QT_QPA_PLATFORM=offscreen;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
  if(TRAINDECK_TEST_TIMEOUT_SCALE GREATER 1)
    # Qt Test's own limit per test function (5 minutes) would otherwise cut a scaled suite short.
    math(EXPR function_timeout_ms "${T_TIMEOUT} * 1000")
    list(APPEND environment "QTEST_FUNCTION_TIMEOUT=${function_timeout_ms}")
  endif()
  set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "${T_LABELS}" ENVIRONMENT "${environment}")
  if(T_PROCESSORS)
    traindeck_set_tier(${name} ${T_TIER} PROCESSORS ${T_PROCESSORS})
  else()
    traindeck_set_tier(${name} ${T_TIER})
  endif()
  _traindeck_tier_target(${T_TIER} ${name})
endfunction()

# tier_unit, tier_integration, tier_system: build every suite of that tier (call once, after all tests).
function(traindeck_add_tier_targets)
  foreach(tier ${TRAINDECK_TIERS})
    get_property(targets GLOBAL PROPERTY TRAINDECK_TIER_${tier}_TARGETS)
    add_custom_target(tier_${tier})
    if(targets)
      add_dependencies(tier_${tier} ${targets})
    endif()
  endforeach()
endfunction()
