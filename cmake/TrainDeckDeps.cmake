# Finds every third-party dependency once, as imported targets.
#
# TRAINDECK_TRAINER_ONLY (top-level option) finds only what traindeck-trainer needs: no Qt, QCustomPlot,
# libssh or pkg-config, MPI optional. nlohmann-json, utf8proc and jemalloc are then looked up in
# CMAKE_PREFIX_PATH (and the system), so the contents of their .deb files unpacked with `dpkg -x` into a
# folder work (tests/device/check-gpu.sh does this on a GPU machine that has none of them).
if(TRAINDECK_TRAINER_ONLY)
  find_package(Threads REQUIRED)
  find_package(nlohmann_json 3.10 QUIET)
  if(NOT TARGET nlohmann_json::nlohmann_json)
    # Header-only: the header is enough when the package's CMake config is missing.
    find_path(TRAINDECK_NLOHMANN_JSON_INCLUDE_DIR nlohmann/json.hpp)
    if(NOT TRAINDECK_NLOHMANN_JSON_INCLUDE_DIR)
      message(FATAL_ERROR "nlohmann-json not found: install nlohmann-json3-dev or add its prefix to CMAKE_PREFIX_PATH")
    endif()
    add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
    set_target_properties(nlohmann_json::nlohmann_json PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${TRAINDECK_NLOHMANN_JSON_INCLUDE_DIR}")
  endif()
  # The same target names as pkg_check_modules(... IMPORTED_TARGET) gives in the full build.
  find_path(TRAINDECK_UTF8PROC_INCLUDE_DIR utf8proc.h)
  find_library(TRAINDECK_UTF8PROC_LIBRARY utf8proc)
  if(NOT TRAINDECK_UTF8PROC_INCLUDE_DIR OR NOT TRAINDECK_UTF8PROC_LIBRARY)
    message(FATAL_ERROR "utf8proc not found: install libutf8proc-dev or add its prefix to CMAKE_PREFIX_PATH")
  endif()
  # UTF8PROC_EXPORTS as libutf8proc.pc's Cflags give the full build (it means something on Windows only):
  # the trainer's compile lines are then the full build's, and ccache serves a trainer-only build
  # (scripts/build-trainer.sh) the full build's objects.
  add_library(PkgConfig::UTF8PROC UNKNOWN IMPORTED)
  set_target_properties(PkgConfig::UTF8PROC PROPERTIES
    IMPORTED_LOCATION "${TRAINDECK_UTF8PROC_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${TRAINDECK_UTF8PROC_INCLUDE_DIR}"
    INTERFACE_COMPILE_OPTIONS -DUTF8PROC_EXPORTS)
  set(UTF8PROC_FOUND TRUE)
  message(STATUS "utf8proc: ${TRAINDECK_UTF8PROC_LIBRARY}")

  # MPI: optional here. Without it the trainer runs single-process only (see dist/communicator.cpp).
  if(TRAINDECK_WITH_MPI)
    find_package(MPI COMPONENTS C)
    if(NOT MPI_C_FOUND)
      message(STATUS "MPI not found: traindeck-trainer is built without MPI (single process only; "
                     "TRAINDECK_WITH_MPI is off for this configuration)")
      set(TRAINDECK_WITH_MPI OFF)  # a normal variable: the cache keeps ON, so a later configure looks again
    endif()
  endif()
else()
  find_package(PkgConfig REQUIRED)
  find_package(Threads REQUIRED)
  find_package(nlohmann_json 3.10 REQUIRED)
  pkg_check_modules(UTF8PROC REQUIRED IMPORTED_TARGET libutf8proc)
  if(NOT TRAINDECK_WITH_MPI)
    message(FATAL_ERROR "TRAINDECK_WITH_MPI=OFF needs TRAINDECK_TRAINER_ONLY=ON "
                        "(the full build's tests run the trainer under mpirun)")
  endif()
  find_package(MPI REQUIRED COMPONENTS C)
  find_package(Qt6 6.4 REQUIRED COMPONENTS Core Network Test Widgets PrintSupport LinguistTools)
  find_package(QCustomPlotQt6 REQUIRED)
  pkg_check_modules(LIBSSH REQUIRED IMPORTED_TARGET libssh>=0.10.6)
endif()

# LibTorch: Debian's libtorch-dev (1.13, CPU), or the one inside a PyTorch install (2.x, maybe CUDA)
# when TRAINDECK_TORCH_PREFIX or CMAKE_PREFIX_PATH points at it.
if(DEFINED ENV{TRAINDECK_TORCH_PREFIX})
  list(PREPEND CMAKE_PREFIX_PATH "$ENV{TRAINDECK_TORCH_PREFIX}")
endif()
find_package(Torch REQUIRED)
message(STATUS "LibTorch ${Torch_VERSION}")

# jemalloc for traindeck-trainer (see trainer/main.cpp); optional so a trainer-only build on a bare GPU
# machine still configures. Sanitizer builds turn it off: ASan and TSan must own malloc themselves.
option(TRAINDECK_WITH_JEMALLOC "Link traindeck-trainer with jemalloc when it is found" ON)
if(NOT TRAINDECK_WITH_JEMALLOC)
  set(JEMALLOC_FOUND FALSE)
elseif(TRAINDECK_TRAINER_ONLY)
  find_path(TRAINDECK_JEMALLOC_INCLUDE_DIR jemalloc/jemalloc.h)
  find_library(TRAINDECK_JEMALLOC_LIBRARY jemalloc)
  if(TRAINDECK_JEMALLOC_INCLUDE_DIR AND TRAINDECK_JEMALLOC_LIBRARY)
    add_library(PkgConfig::JEMALLOC UNKNOWN IMPORTED)
    set_target_properties(PkgConfig::JEMALLOC PROPERTIES
      IMPORTED_LOCATION "${TRAINDECK_JEMALLOC_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${TRAINDECK_JEMALLOC_INCLUDE_DIR}")
    set(JEMALLOC_FOUND TRUE)
    message(STATUS "jemalloc: ${TRAINDECK_JEMALLOC_LIBRARY}")
  else()
    set(JEMALLOC_FOUND FALSE)
  endif()
else()
  pkg_check_modules(JEMALLOC IMPORTED_TARGET jemalloc)
endif()

# NCCL for the trainer's collectives on CUDA tensors (trainer/dist/nccl_communicator.cpp): NCCL and the
# CUDA runtime from the CUDA toolkit (/usr/local/cuda, CUDAToolkit_ROOT or CUDA_HOME) when both are there.
# The CUDA runtime is linked statically, so libnccl.so.2 is the only new library a node needs; nothing
# of it runs until --comm picks NCCL for a CUDA device.
option(TRAINDECK_WITH_NCCL "Build the trainer's NCCL communicator when NCCL and the CUDA toolkit are found" ON)
set(TRAINDECK_NCCL_FOUND FALSE)
if(TRAINDECK_WITH_NCCL)
  if(NOT CUDAToolkit_ROOT AND DEFINED ENV{CUDA_HOME})
    set(CUDAToolkit_ROOT "$ENV{CUDA_HOME}")
  endif()
  if(NOT CUDAToolkit_ROOT AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CUDAToolkit_ROOT /usr/local/cuda)
  endif()
  find_package(CUDAToolkit QUIET)
  if(CUDAToolkit_FOUND)
    find_path(TRAINDECK_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
    find_library(TRAINDECK_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
  endif()
  if(CUDAToolkit_FOUND AND TARGET CUDA::cudart_static AND TRAINDECK_NCCL_INCLUDE_DIR AND TRAINDECK_NCCL_LIBRARY)
    add_library(TrainDeck::NCCL UNKNOWN IMPORTED)
    set_target_properties(TrainDeck::NCCL PROPERTIES
      IMPORTED_LOCATION "${TRAINDECK_NCCL_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${TRAINDECK_NCCL_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES CUDA::cudart_static)
    set(TRAINDECK_NCCL_FOUND TRUE)
    message(STATUS "NCCL: ${TRAINDECK_NCCL_LIBRARY} (CUDA ${CUDAToolkit_VERSION})")
  else()
    message(STATUS "NCCL: not found (no CUDA toolkit with nccl.h and libnccl): the trainer's collectives are MPI's")
  endif()
endif()
