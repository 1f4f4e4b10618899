# Finds every third-party dependency once, as imported targets.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
pkg_check_modules(UTF8PROC REQUIRED IMPORTED_TARGET libutf8proc)
find_package(MPI REQUIRED COMPONENTS C)
find_package(Qt6 6.4 REQUIRED COMPONENTS Core Network Test Widgets PrintSupport LinguistTools)
find_package(QCustomPlotQt6 REQUIRED)
pkg_check_modules(LIBSSH REQUIRED IMPORTED_TARGET libssh>=0.10.6)

# LibTorch: Debian's libtorch-dev (1.13, CPU), or the one inside a PyTorch install (2.x, maybe CUDA)
# when TRAINDECK_TORCH_PREFIX or CMAKE_PREFIX_PATH points at it.
if(DEFINED ENV{TRAINDECK_TORCH_PREFIX})
  list(PREPEND CMAKE_PREFIX_PATH "$ENV{TRAINDECK_TORCH_PREFIX}")
endif()
find_package(Torch REQUIRED)
message(STATUS "LibTorch ${Torch_VERSION}")

# jemalloc for traindeck-trainer (see trainer/main.cpp); optional so a trainer-only build on a bare GPU
# machine still configures.
pkg_check_modules(JEMALLOC IMPORTED_TARGET jemalloc)

# Optional CUDA + NCCL (GPU machines); detected, never required.
set(TRAINDECK_HAVE_NCCL OFF)
find_path(NCCL_INCLUDE_DIR nccl.h HINTS /usr/local/cuda/include /usr/local/cuda/targets/x86_64-linux/include)
find_library(NCCL_LIBRARY nccl HINTS /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib)
if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
  set(TRAINDECK_HAVE_NCCL ON)
  message(STATUS "NCCL found: ${NCCL_LIBRARY}")
endif()
