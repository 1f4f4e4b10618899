# traindeck_add_test() and the test cache directory: for tests/ and for the sanitized unit suites of
# the clang build (CMakeLists.txt, TRAINDECK_FUZZ).
# Test cache (npm reference packages, demo corpus) lives outside the tree; scripts/setup-deps.sh fills it.
# The same directory as paths::cacheDir() and the scripts: $TRAINDECK_CACHE, else $XDG_CACHE_HOME/traindeck.
if(DEFINED ENV{TRAINDECK_CACHE})
  set(TRAINDECK_CACHE_DIR "$ENV{TRAINDECK_CACHE}" CACHE PATH "TrainDeck cache dir")
elseif(DEFINED ENV{XDG_CACHE_HOME})
  set(TRAINDECK_CACHE_DIR "$ENV{XDG_CACHE_HOME}/traindeck" CACHE PATH "TrainDeck cache dir")
else()
  set(TRAINDECK_CACHE_DIR "$ENV{HOME}/.cache/traindeck" CACHE PATH "TrainDeck cache dir")
endif()

# One Qt Test executable per tst_<name>.cpp, registered with CTest.
#   traindeck_add_test(tst_name SOURCES a.cpp LIBS lib... [LABELS l...] [TIMEOUT s])
function(traindeck_add_test name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  set_target_properties(${name} PROPERTIES AUTOMOC ON)
  target_link_libraries(${name} PRIVATE Qt6::Test ${T_LIBS})
  target_compile_definitions(${name} PRIVATE QT_NO_KEYWORDS
    TRAINDECK_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    TRAINDECK_BINARY_DIR="${PROJECT_BINARY_DIR}"
    TRAINDECK_CACHE_DIR="${TRAINDECK_CACHE_DIR}")
  add_test(NAME ${name} COMMAND ${name})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "${T_LABELS}"
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endfunction()
