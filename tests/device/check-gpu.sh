#!/usr/bin/env bash
# Prepared check for a GPU machine (run through the device tool; not part of CI): builds the trainer
# against the LibTorch 2.x inside that machine's PyTorch (so version-guarded code such as
# scaled_dot_product_attention is compiled), runs the trainer's model and checkpoint tests, and prints
# self-check. Results go to $OUT when set.
set -uo pipefail
out="${OUT:-/tmp/traindeck-device}"
mkdir -p "$out"
prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')" || { echo "no PyTorch here"; exit 1; }
export TRAINDECK_TORCH_PREFIX="$prefix"
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
  cmake -S . -B build-device -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRAINDECK_WITH_GUI=OFF &&
  cmake --build build-device -j "$(nproc)" --target traindeck-trainer tst_qwen2_model tst_safetensors &&
  build-device/trainer/traindeck-trainer self-check &&
  build-device/tests/unit/trainer/tst_qwen2_model &&
  build-device/tests/unit/trainer/tst_safetensors
} 2>&1 | tee "$out/check-gpu.log"
