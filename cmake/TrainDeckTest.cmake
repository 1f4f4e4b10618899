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
# Also gives the suites their shared precompiled headers (_traindeck_share_test_pch below).
function(traindeck_add_tier_targets)
  set(all_targets)
  foreach(tier ${TRAINDECK_TIERS})
    get_property(targets GLOBAL PROPERTY TRAINDECK_TIER_${tier}_TARGETS)
    add_custom_target(tier_${tier})
    if(targets)
      add_dependencies(tier_${tier} ${targets})
      list(APPEND all_targets ${targets})
    endif()
  endforeach()
  _traindeck_share_test_pch(${all_targets})
endfunction()

# _traindeck_compile_interface_of(TARGET QT_OUT DEFS_OUT OPTS_OUT): what decides whether a precompiled header
# is valid for TARGET's sources: the Qt targets it compiles against (each defines QT_<MODULE>_LIB, which Qt
# Test's headers test), and the other compile definitions and options of its own and of every library whose
# usage requirements it gets. Link-only dependencies ($<LINK_ONLY:...>, a static library's private ones) give
# none.
function(_traindeck_compile_interface_of target qt_out defs_out opts_out)
  get_target_property(queue ${target} LINK_LIBRARIES)
  get_target_property(defs ${target} COMPILE_DEFINITIONS)
  get_target_property(opts ${target} COMPILE_OPTIONS)
  foreach(list queue defs opts)
    if(NOT ${list})
      set(${list})
    endif()
  endforeach()
  set(seen)
  set(qt)
  while(queue)
    list(POP_FRONT queue item)
    if(item IN_LIST seen OR item MATCHES "^\\$<LINK_ONLY:" OR NOT TARGET "${item}")
      continue()
    endif()
    list(APPEND seen ${item})
    if(item MATCHES "^Qt6?::")
      list(APPEND qt ${item})
      continue() # Qt's own definitions follow from the module (the precompiled header's target links it too)
    endif()
    get_target_property(item_defs ${item} INTERFACE_COMPILE_DEFINITIONS)
    get_target_property(item_opts ${item} INTERFACE_COMPILE_OPTIONS)
    if(item_defs)
      list(APPEND defs ${item_defs})
    endif()
    if(item_opts)
      list(APPEND opts ${item_opts})
    endif()
    get_target_property(item_libs ${item} INTERFACE_LINK_LIBRARIES)
    if(item_libs)
      list(APPEND queue ${item_libs})
    endif()
  endwhile()
  # Our own TRAINDECK_* definitions appear in no Qt header, so they cannot invalidate the header.
  list(FILTER defs EXCLUDE REGEX "^TRAINDECK_")
  list(REMOVE_DUPLICATES qt)
  list(REMOVE_DUPLICATES defs)
  list(REMOVE_DUPLICATES opts)
  list(SORT qt)
  list(SORT defs)
  set(${qt_out} ${qt} PARENT_SCOPE)
  set(${defs_out} ${defs} PARENT_SCOPE)
  set(${opts_out} ${opts} PARENT_SCOPE)
endfunction()

# _traindeck_share_test_pch(TARGETS...): Qt Test's and the Qt modules' headers, parsed once per build for all
# suites instead of once per suite. Parsing was 86 % of a suite's compile (-ftime-report); one header shared
# through REUSE_FROM took tst_phases from 3.1 to 1.3 CPU-s. A precompiled header serves only sources whose
# macros match it (cmake/TrainDeckPch.cmake), so the suites are grouped by their Qt modules and definitions
# (QT_NO_CAST_FROM_ASCII from the backend, QT_WIDGETS_LIB, ...), one header per group. Suites with a header
# of their own (the LibTorch suites, tests/unit/trainer) keep it. AUTOMOC's mocs_compilation.cpp is left out: every
# suite includes its .moc, so that file is empty, and loading the header would be its whole cost.
function(_traindeck_share_test_pch)
  set(keys)
  foreach(target ${ARGN})
    get_target_property(own ${target} PRECOMPILE_HEADERS)
    get_target_property(reused ${target} PRECOMPILE_HEADERS_REUSE_FROM)
    if(own OR reused)
      continue()
    endif()
    _traindeck_compile_interface_of(${target} qt defs opts)
    string(MD5 key "${qt}|${defs}|${opts}")
    string(SUBSTRING ${key} 0 8 key)
    list(APPEND keys ${key})
    set(_pch_members_${key} ${_pch_members_${key}} ${target})
    set(_pch_qt_${key} ${qt})
    set(_pch_defs_${key} ${defs})
    set(_pch_opts_${key} ${opts})
  endforeach()
  list(REMOVE_DUPLICATES keys)
  set(hosts 0)
  foreach(key ${keys})
    # A header took 7-16 s to build (cold `ci`), a suite saves about 2 s (more under the sanitizers): groups
    # under three suites compile as before.
    list(LENGTH _pch_members_${key} members)
    if(members LESS 3)
      continue()
    endif()
    set(host traindeck_test_pch_${key})
    set(qt ${_pch_qt_${key}})
    # What the suites include most; all of QtCore (<QtTest/QtTest>) made a slower header.
    set(headers <QTest> <QSignalSpy> <QCoreApplication> <QObject> <QString> <QStringList> <QByteArray> <QList>
        <QHash> <QSet> <QDir> <QFile> <QFileInfo> <QTemporaryDir> <QJsonArray> <QJsonDocument> <QJsonObject>
        <QProcess> <QElapsedTimer> <QThread> <QTimer> <QRegularExpression> <QDateTime> <algorithm> <cmath>
        <functional> <memory> <optional> <thread> <vector>)
    if("Qt6::Widgets" IN_LIST qt)
      list(APPEND headers <QApplication> <QWidget> <QLabel> <QCheckBox> <QPushButton> <QComboBox> <QLineEdit>
           <QTableView> <QTabWidget> <QAbstractItemModelTester>)
    elseif("Qt6::Gui" IN_LIST qt)
      list(APPEND headers <QGuiApplication> <QImage> <QColor> <QAbstractItemModelTester>)
    endif()
    if("Qt6::Network" IN_LIST qt)
      list(APPEND headers <QHostAddress> <QTcpServer> <QTcpSocket>)
    endif()
    traindeck_pch_host(${host} HEADERS ${headers} LIBS Qt6::Test ${qt} DEFINITIONS QT_NO_KEYWORDS ${_pch_defs_${key}}
                       OPTIONS ${_pch_opts_${key}})
    math(EXPR hosts "${hosts} + 1")
    foreach(target ${_pch_members_${key}})
      traindeck_use_pch(${target} ${host})
      get_target_property(binary_dir ${target} BINARY_DIR)
      set_source_files_properties(${binary_dir}/${target}_autogen/mocs_compilation.cpp TARGET_DIRECTORY ${target}
                                  PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    endforeach()
  endforeach()
  message(STATUS "Test suites: ${hosts} shared precompiled headers")
endfunction()
