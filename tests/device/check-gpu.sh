#!/usr/bin/env bash
# One prepared check of traindeck-trainer's CUDA path on a GPU machine (the device tool's H200; not CI).
#
#   here, once:  bash tests/device/prepare-carry.sh            (fills .devcarry/: .debs, tokenizer, corpus)
#   device call: bash tests/device/check-gpu.sh                with carry [".devcarry"], timeout_s 560
#   dry run:     TRAINDECK_DEVICE_DRYRUN=cpu bash tests/device/check-gpu.sh   (this machine, CPU, small sizes)
#
# Stages (each prints one "check-gpu: PASS|FAIL|SKIP <stage>" line; the script exits 1 if any failed):
#   env, deps (dpkg -x .devcarry/deb/*.deb into /tmp/devdeps), configure and build (scripts/build-trainer.sh,
#   the user's command for GPU nodes: traindeck-trainer alone against the LibTorch inside python3's PyTorch,
#   --cuda on; MPI where there is one), self-check (CUDA, GPU, NVML),
#   train-fp32/-bf16/-fp16 (qwen2-tiny, 30 steps: loss falls, telemetry from NVML, MFU, fp16 loss scale),
#   step-parity (first two steps on cuda:0 vs the CPU), hf-parity (transformers' Qwen2ForCausalLM vs our
#   eval-logits on cuda:0, on a checkpoint the trainer wrote), resume (10 steps with a checkpoint at 5, interrupted at 6,
#   resumed: losses 6-10 vs the uninterrupted run), nccl (--comm nccl at world size 1 with fp16/bf16 wire
#   compression against the single-process communicator; world size 2 where two GPUs and MPI exist),
#   throughput-small (qwen2-small bf16 seq 1024 x 8) and,
#   when time is left, throughput-1.5b (deepseek-r1-distill-qwen-1.5b bf16 seq 1024 x 4) and memory-plan
#   (the 1.5B at seq 2048 with --fused-loss on --recompute layers: the device memory against `plan`).
# Every command runs under `timeout`, and the whole check keeps to TRAINDECK_CHECK_BUDGET_S (default 450 s
# on the GPU) so that results.json is always written. Output under $OUT: check-gpu.log, results.json,
# configure.log, build.log, self-check.json, metrics.tar.gz.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 2
dryrun="${TRAINDECK_DEVICE_DRYRUN:-}"
case "$dryrun" in "" | cpu) ;; *) echo "check-gpu: TRAINDECK_DEVICE_DRYRUN must be 'cpu' or unset" >&2; exit 2 ;; esac
out="${OUT:-/tmp/traindeck-check-out}"
work="${TRAINDECK_CHECK_WORK:-/tmp/traindeck-check}"
deps=/tmp/devdeps
carry="$root/.devcarry"
results="$out/results.json"
helper=(python3 "$root/tests/device/check_gpu.py")
export PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
mkdir -p "$out"
rm -rf "$work" "$results"
mkdir -p "$work"

if [ -n "$dryrun" ]; then
  budget="${TRAINDECK_CHECK_BUDGET_S:-1800}"  # two shared cores here: the first build alone takes minutes
  build_dir="$root/build-device-dryrun"
  device=cpu
  mfu_max=(--mfu-max 1.0)  # the CPU peak is measured in the training dtype (fp32, or bf16 under bf16)
else
  budget="${TRAINDECK_CHECK_BUDGET_S:-450}"
  build_dir="$root/build-device"
  device=cuda:0
  mfu_max=(--mfu-max 1.0)  # against the datasheet peak: above 1 means the FLOPs or the peak are wrong
fi
bin="$build_dir/trainer/traindeck-trainer"
blocked=""  # set when a stage that later ones need has failed
SECONDS=0

log() { echo "check-gpu: $*"; }
remaining() { echo $((budget - SECONDS)); }

# stage NAME REQUIRED(yes|no) MIN_S FUNCTION: runs FUNCTION unless fewer than MIN_S seconds of the budget
# are left or an earlier stage it needs failed. FUNCTION writes its numbers (one JSON object) as the last
# line of $work/NAME.json and returns 0 (pass), 1 (fail) or 3 (skip, reason in $work/NAME.note).
stage() {
  local name=$1 required=$2 min_s=$3 fn=$4 status rc="" note="" start=$SECONDS
  : >"$work/$name.json"
  : >"$work/$name.note"
  if [ -n "$blocked" ]; then
    status=SKIP note="not run: $blocked"
  elif [ "$(remaining)" -lt "$min_s" ]; then
    status=SKIP note="not run: $(remaining) s of the budget left, needs $min_s"
  else
    log "--- $name (budget left $(remaining) s)"
    "$fn" "$name"
    rc=$?
    note="$(cat "$work/$name.note")"
    case $rc in 0) status=PASS ;; 3) status=SKIP ;; *) status=FAIL ;; esac
  fi
  # A required stage that could not run (no time left, or an earlier stage failed) counts as failed; one
  # that skipped itself by design (return 3: fp16 and the 1.5B run in the dry run) does not.
  local recorded=$status
  if [ "$status" = SKIP ] && [ "$required" = yes ] && [ "${rc:-}" != 3 ]; then recorded=FAIL; fi
  # The later stages need these (and must not run a binary left from an earlier build).
  case "$name" in
    env | deps | configure | build | self-check) [ "$recorded" = FAIL ] && [ -z "$blocked" ] && blocked="$name failed" ;;
  esac
  "${helper[@]}" stage "$results" "$name" "$recorded" "@$work/$name.json" --note "$note" \
    --seconds $((SECONDS - start)) >/dev/null || log "could not write $results"
  local summary
  summary="$(tail -n 1 "$work/$name.json" 2>/dev/null | cut -c1-600)"
  log "$recorded $name ($((SECONDS - start)) s)${note:+: $note}${summary:+ $summary}"
  [ "$recorded" = FAIL ] && failed=$((failed + 1))
  return 0
}

# run SECONDS_CAP LOGFILE CMD...: the command under timeout (capped by the budget left), output to LOGFILE
# and its tail to the console.
run() {
  local cap=$1 logfile=$2 left rc
  shift 2
  left=$(remaining)
  [ "$left" -lt "$cap" ] && cap=$left
  [ "$cap" -lt 5 ] && cap=5
  echo "+ (timeout ${cap}s) $*" >>"$logfile"
  timeout -k 10 "$cap" "$@" >>"$logfile" 2>&1
  rc=$?
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && echo "check-gpu: timed out after ${cap}s: $*" | tee -a "$logfile"
  return $rc
}

note() { echo "$2" >"$work/$1.note"; }

# ---- stages ---------------------------------------------------------------------------------------------

st_env() {
  local name=$1 f="$work/$1.txt"
  {
    date -u
    uname -a
    nproc
    if [ -z "$dryrun" ]; then
      nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
    fi
    python3 -c 'import sys; print("python", sys.version.split()[0], sys.executable)'
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cxx11_abi",
      torch.compiled_with_cxx11_abi(), "cuda_available", torch.cuda.is_available())'
    python3 -c 'import transformers; print("transformers", transformers.__version__)'
    cmake --version | head -n 1
    ninja --version
    c++ --version | head -n 1
    command -v nvcc && nvcc --version | tail -n 2
    ls -d /usr/local/cuda* 2>/dev/null
    command -v dpkg pkg-config ccache
  } >"$f" 2>&1
  cat "$f"
  local torch transformers
  torch="$(python3 -c 'import torch; print(torch.__version__)' 2>/dev/null)"
  transformers="$(python3 -c 'import transformers; print(transformers.__version__)' 2>/dev/null)"
  printf '{"mode": "%s", "torch": "%s", "transformers": "%s", "cores": %s}\n' \
    "${dryrun:-gpu}" "$torch" "$transformers" "$(nproc)" >"$work/$name.json"
  if [ -z "$dryrun" ] && [ -z "$torch" ]; then
    note "$name" "python3 has no torch: cannot build against its LibTorch"
    blocked="no PyTorch"
    return 1
  fi
  return 0
}

st_deps() {
  local name=$1 f
  if ! ls "$carry"/deb/*.deb >/dev/null 2>&1 || [ ! -s "$carry/tokenizer.json" ] || [ ! -s "$carry/corpus.jsonl" ]; then
    note "$name" ".devcarry/ is missing or incomplete: run tests/device/prepare-carry.sh here and name .devcarry in carry"
    blocked="no .devcarry"
    return 1
  fi
  rm -rf "$deps"
  mkdir -p "$deps"
  for f in "$carry"/deb/*.deb; do
    if command -v dpkg >/dev/null; then
      dpkg -x "$f" "$deps" || return 1
    else  # no dpkg: a .deb is an ar archive holding data.tar.*
      local t
      t="$(mktemp -d)"
      (cd "$t" && ar x "$f" && tar -xf data.tar.* -C "$deps") || return 1
      rm -rf "$t"
    fi
  done
  local missing=()
  for f in usr/include/nlohmann/json.hpp usr/include/utf8proc.h usr/include/jemalloc/jemalloc.h \
    usr/lib/x86_64-linux-gnu/libutf8proc.so usr/lib/x86_64-linux-gnu/libjemalloc.so; do
    [ -e "$deps/$f" ] || missing+=("$f")
  done
  printf '{"debs": %s, "prefix": "%s/usr"}\n' "$(ls "$carry"/deb/*.deb | wc -l)" "$deps" >"$work/$name.json"
  if [ ${#missing[@]} -gt 0 ]; then
    note "$name" "missing after unpacking: ${missing[*]}"
    blocked="dependencies incomplete"
    return 1
  fi
  return 0
}

# The trainer is built by scripts/build-trainer.sh, the command a user runs on a GPU node: against the
# LibTorch inside python3's PyTorch with the CUDA toolkit (--cuda on: a CPU-only LibTorch fails the
# configure stage), MPI where the machine has it (world size 2 of the nccl stage), else single-process.
# The dry run keeps its CPU build: the system's LibTorch (or Debian's python3-torch, the same), no MPI.
# with_mpi is what the configure stage found (the self-check stage expects it).
with_mpi=OFF
build_args=(--build-dir "$build_dir" --build-type Release --jobs "$(nproc)")
if [ -n "$dryrun" ]; then
  build_args+=(--cuda auto --with-mpi off)
else
  build_args+=(--cuda on --with-mpi auto)
fi
build_args+=(-- -DCMAKE_PREFIX_PATH="$deps/usr")

# The reason scripts/build-trainer.sh gave for stopping, for the stage's note.
build_error() { grep -E "^build-trainer: error: " "$1" | tail -n 1 | cut -c1-400; }

st_configure() {
  local name=$1 logf="$out/configure.log"
  : >"$logf"
  run 180 "$logf" bash "$root/scripts/build-trainer.sh" --configure-only "${build_args[@]}"
  local rc=$?
  grep -E "^build-trainer: |^-- (LibTorch|utf8proc|jemalloc|Trainer-only|Caffe2: CUDA|Found CUDA|NCCL|MPI)" "$logf"
  local torch_version
  torch_version="$(sed -n 's/^-- LibTorch //p' "$logf" | tail -n 1)"
  with_mpi="$(sed -n 's/^-- Trainer-only build (MPI: \(ON\|OFF\)).*/\1/p' "$logf" | tail -n 1)"
  with_mpi="${with_mpi:-OFF}"
  printf '{"libtorch": "%s", "utf8proc": "%s", "jemalloc": "%s", "mpi": "%s"}\n' "$torch_version" \
    "$(sed -n 's/^-- utf8proc: //p' "$logf" | tail -n 1)" "$(sed -n 's/^-- jemalloc: //p' "$logf" | tail -n 1)" \
    "$with_mpi" >"$work/$name.json"
  if [ $rc -ne 0 ]; then
    tail -n 40 "$logf"
    [ -f "$build_dir/CMakeFiles/CMakeError.log" ] && tail -n 30 "$build_dir/CMakeFiles/CMakeError.log"
    local why
    why="$(build_error "$logf")"
    note "$name" "scripts/build-trainer.sh --configure-only failed (rc $rc)${why:+: ${why#build-trainer: error: }}; see configure.log"
    blocked="configure failed"
    return 1
  fi
  if ! grep -q "^-- utf8proc: $deps/" "$logf"; then
    note "$name" "utf8proc was not taken from the unpacked .debs ($deps)"
  fi
  return 0
}

# The same script again (its configure step finds the build folder configured) builds traindeck-trainer
# alone and prints what it linked from its self-check.
st_build() {
  local name=$1 logf="$out/build.log"
  : >"$logf"
  local start=$SECONDS
  rm -f "$bin"  # relinked: later stages must run this build, not an earlier one
  run 420 "$logf" bash "$root/scripts/build-trainer.sh" "${build_args[@]}"
  local rc=$?
  printf '{"seconds": %s, "jobs": %s}\n' $((SECONDS - start)) "$(nproc)" >"$work/$name.json"
  if [ $rc -ne 0 ] || [ ! -x "$bin" ]; then
    grep -m 40 -E "error|Error" "$logf"
    tail -n 15 "$logf"
    local why
    why="$(build_error "$logf")"
    note "$name" "scripts/build-trainer.sh failed (rc $rc)${why:+: ${why#build-trainer: error: }}; see build.log"
    blocked="build failed"
    return 1
  fi
  grep -E "^build-trainer: |^  [A-Za-z]" "$logf" | tail -n 12
  return 0
}

st_selfcheck() {
  local name=$1 flags=()
  [ "$with_mpi" = OFF ] && flags+=(--expect-no-mpi)
  timeout -k 10 60 "$bin" self-check >"$out/self-check.json" 2>"$work/self-check.err" || {
    cat "$work/self-check.err"
    note "$name" "self-check failed"
    blocked="self-check failed"
    return 1
  }
  cat "$out/self-check.json"
  [ -z "$dryrun" ] && flags+=(--expect-cuda)
  "${helper[@]}" selfcheck "$out/self-check.json" "${flags[@]}" >"$work/$name.json"
  local rc=$?
  if [ "$dryrun" = "" ] && [ $rc -ne 0 ]; then blocked="CUDA not usable (self-check)"; fi
  return $rc
}

# Common training flags: the carried tokenizer and corpus, one token cache for every run.
train_flags() {
  echo --tokenizer "$carry/tokenizer.json" --data "$carry/corpus.jsonl" --cache-dir "$work/tokens" --seed 1234 \
    --log-every 5
}

# The qwen2-tiny runs of stage a: 30 steps, learning rate high enough for the loss to fall visibly.
tiny_flags() {
  if [ -n "$dryrun" ]; then echo --seq-len 64 --micro-batch 4; else echo --seq-len 256 --micro-batch 8; fi
  echo --preset qwen2-tiny --lr 2e-3 --warmup 5 --max-steps 30
}

train_stage() {
  local name=$1 precision=$2 extra=()
  local dir="$work/$name" metrics="$work/$name.jsonl"
  # shellcheck disable=SC2046
  run 120 "$work/$name.log" "$bin" train $(train_flags) $(tiny_flags) --device "$device" --precision "$precision" \
    --out "$dir" --metrics-out "$metrics"
  local rc=$?
  grep -E "^(step|training|checkpoint|traindeck-trainer)" "$work/$name.log" | tail -n 8
  [ "$precision" = fp16 ] && extra+=(--fp16)
  "${helper[@]}" train "$metrics" --expect-device "${device%%:*}" --loss-drop 1.0 --min-steps 30 "${extra[@]}" \
    "${mfu_max[@]}" >"$work/$name.json"
  local judged=$?
  if [ $rc -ne 0 ]; then
    tail -n 20 "$work/$name.log"
    note "$name" "train exited with $rc"
    return 1
  fi
  return $judged
}
st_fp32() { train_stage "$1" fp32; }
st_bf16() { train_stage "$1" bf16; }
st_fp16() {
  if [ -n "$dryrun" ]; then
    note "$1" "fp16 needs CUDA (dry run on the CPU)"
    return 3
  fi
  train_stage "$1" fp16
}

# Our CUDA forward/backward against our CPU one: the first two steps of the fp32 run again on the CPU
# (same seed, data and schedule; --inject-exit stops it before step 3 without a checkpoint).
st_step_parity() {
  local name=$1 metrics="$work/$1.jsonl"
  [ -s "$work/train-fp32.jsonl" ] || { note "$name" "no fp32 run to compare with"; return 1; }
  # shellcheck disable=SC2046
  run 120 "$work/$name.log" "$bin" train $(train_flags) $(tiny_flags) --device cpu --precision fp32 \
    --inject-exit 0:3 --out "$work/$name" --metrics-out "$metrics"
  local rc=$?
  if [ $rc -ne 3 ]; then
    tail -n 20 "$work/$name.log"
    note "$name" "CPU run exited with $rc (expected 3, the injected exit)"
    return 1
  fi
  "${helper[@]}" step-parity "$work/train-fp32.jsonl" "$metrics" --steps 2 --tolerance 1e-3 >"$work/$name.json"
}

# Hugging Face transformers' Qwen2ForCausalLM (fp32; on the GPU and the CPU) against our eval-logits run on
# the check's device (our CUDA forward pass on the GPU), on the checkpoint the fp32 run wrote (a Hugging
# Face model directory).
st_hf_parity() {
  local name=$1 ckpt ids
  local latest="$work/train-fp32/checkpoints/latest"
  [ -f "$latest" ] || { note "$name" "the fp32 run wrote no checkpoint"; return 1; }
  ckpt="$work/train-fp32/checkpoints/$(cat "$latest")"
  ids="$(echo "The quick brown fox jumps over the lazy dog. TrainDeck checks the CUDA path of its trainer on an H200." |
    "$bin" tokenize --tokenizer "$carry/tokenizer.json")"
  local n
  n=$(wc -w <<<"$ids")
  [ "$n" -gt 4 ] || { note "$name" "tokenize gave no ids"; return 1; }
  run 120 "$work/$name.log" "$bin" eval-logits --model "$ckpt" --ids "$ids" --out "$work/ours.f32" --device "$device" || {
    tail -n 10 "$work/$name.log"
    note "$name" "eval-logits failed"
    return 1
  }
  if python3 -c 'import torch, transformers' 2>/dev/null; then
    local devices=cpu
    [ -z "$dryrun" ] && devices=cuda,cpu
    run 240 "$work/$name.log" "${helper[@]}" hf-parity "$ckpt" "$work/ours.f32" --ids "$ids" --devices "$devices" \
      --tolerance 1e-3
    local rc=$?
    grep -v '^+ ' "$work/$name.log" | tail -n 1 >"$work/$name.json"
    [ $rc -eq 0 ] || tail -n 20 "$work/$name.log"
    return $rc
  fi
  # No transformers here (the dry run): check our output alone.
  "${helper[@]}" logits "$work/ours.f32" --tokens "$n" >"$work/$name.json" || return 1
  note "$name" "transformers not importable: eval-logits output checked alone (shape, log-probabilities)"
  [ -n "$dryrun" ] && return 0
  return 1
}

# Resume on the device: 10 steps with a checkpoint at 5 uninterrupted, the same run killed at step 6
# (--inject-exit) and resumed from latest; losses of steps 6-10 compared (reported; GPU kernels need not be
# bit-exact).
st_resume() {
  local name=$1 size=(--seq-len 128 --micro-batch 4)
  [ -n "$dryrun" ] && size=(--seq-len 64 --micro-batch 2)
  # shellcheck disable=SC2207
  local common=($(train_flags) --preset qwen2-tiny --lr 2e-3 --warmup 3 --max-steps 10 --checkpoint-every 5
    --device "$device" "${size[@]}")
  run 90 "$work/$name.log" "$bin" train "${common[@]}" --out "$work/resume-ref" --metrics-out "$work/resume-ref.jsonl" ||
    { tail -n 10 "$work/$name.log"; note "$name" "uninterrupted run failed"; return 1; }
  run 90 "$work/$name.log" "$bin" train "${common[@]}" --out "$work/resume-run" --metrics-out "$work/resume-a.jsonl" \
    --inject-exit 0:6
  local rc=$?
  [ $rc -eq 3 ] || { tail -n 10 "$work/$name.log"; note "$name" "interrupted run exited with $rc, expected 3"; return 1; }
  run 90 "$work/$name.log" "$bin" train "${common[@]}" --out "$work/resume-run" --metrics-out "$work/resume-b.jsonl" \
    --resume latest ||
    { tail -n 10 "$work/$name.log"; note "$name" "resumed run failed"; return 1; }
  local tol=1e-2
  [ -n "$dryrun" ] && tol=0  # CPU, same threads: bit for bit (docs/reference/trainer.md)
  "${helper[@]}" resume "$work/resume-ref.jsonl" "$work/resume-b.jsonl" --steps 6-10 --tolerance "$tol" >"$work/$name.json"
}

# Throughput runs stop with --inject-exit after their last step, so no multi-GB final checkpoint is written.
throughput() {
  local name=$1 preset=$2 seq=$3 mb=$4 steps=$5 cap=$6 warm=$7
  local metrics="$work/$name.jsonl"
  # shellcheck disable=SC2046
  run "$cap" "$work/$name.log" "$bin" train $(train_flags) --preset "$preset" --precision bf16 --device "$device" \
    --seq-len "$seq" --micro-batch "$mb" --lr 3e-4 --warmup 2 --max-steps $((steps + 1)) --inject-exit 0:$((steps + 1)) \
    --out "$work/$name" --metrics-out "$metrics"
  local rc=$?
  grep -E "^(step|training|traindeck-trainer)" "$work/$name.log" | tail -n 4
  "${helper[@]}" train "$metrics" --expect-device "${device%%:*}" --min-steps "$steps" --warmup-steps "$warm" \
    "${mfu_max[@]}" >"$work/$name.json"
  local judged=$?
  if [ $rc -ne 3 ]; then
    tail -n 20 "$work/$name.log"
    note "$name" "train exited with $rc (expected 3, the injected exit after step $steps)"
    return 1
  fi
  return $judged
}
st_throughput_small() {
  if [ -n "$dryrun" ]; then throughput "$1" qwen2-small 128 2 4 300 1; else throughput "$1" qwen2-small 1024 8 20 150 3; fi
}
st_throughput_15b() {
  if [ -n "$dryrun" ]; then
    note "$1" "1.5B parameters: GPU only"
    return 3
  fi
  throughput "$1" deepseek-r1-distill-qwen-1.5b 1024 4 10 200 3
}

# The memory plan (`traindeck-trainer plan`) against the device: DeepSeek-R1-Distill-Qwen-1.5B at seq 2048
# with the fused loss and recomputation (bf16), a few steps; the device's memory in use at each step end
# (NVML: the CUDA context and the caching allocator's pool included, as the plan's workspace assumes)
# against the plan's total. Reported, not judged: the plan's GPU workspace has never been measured.
# Dry run: qwen2-small at 1024 tokens on the CPU, the resident memory against the plan.
st_memory_plan() {
  local name=$1 preset=deepseek-r1-distill-qwen-1.5b seq=2048 precision=bf16 steps=4
  [ -n "$dryrun" ] && preset=qwen2-small seq=1024 precision=fp32 steps=3
  local flags=(--preset "$preset" --precision "$precision" --device "$device" --seq-len "$seq" --micro-batch 1
    --fused-loss on --recompute layers)
  "$bin" plan "${flags[@]}" --json >"$work/$name.plan" 2>>"$work/$name.log" ||
    { note "$name" "traindeck-trainer plan failed"; return 1; }
  # shellcheck disable=SC2046
  run 200 "$work/$name.log" "$bin" train $(train_flags) "${flags[@]}" --lr 3e-4 --warmup 2 --max-steps "$steps" \
    --out "$work/$name" --metrics-out "$work/$name.jsonl" ||
    { tail -n 20 "$work/$name.log"; note "$name" "train failed"; return 1; }
  python3 - "$work/$name.plan" "$work/$name.jsonl" >"$work/$name.json" <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))["plan"]["mib"]
steps = [r for r in map(json.loads, open(sys.argv[2])) if r.get("type") == "step"]
measured = max(max(s["mem_mb"]) for s in steps)
print(json.dumps({"plan_total_mib": plan["total"], "measured_mem_mb_max": measured,
                  "plan_error": plan["total"] / measured - 1, "plan": plan, "steps": len(steps)}))
PY
  tail -n 1 "$work/$name.json"
}

# NCCL (--comm nccl). World size 1: wire compression sends every gradient bucket through ncclAllReduce
# (fp16 also through its max allreduce); the losses must match the same run with the single-process
# communicator's identical numerics. World size 2: two GPUs and MPI on this machine (mpirun, and a build
# with MPI), else reported as not run.
st_nccl() {
  local name=$1 wire steps=8 rc summary=()
  if [ -n "$dryrun" ]; then
    note "$name" "NCCL needs CUDA (dry run on the CPU)"
    return 3
  fi
  for wire in bf16 fp16; do
    for comm in mpi nccl; do
      # shellcheck disable=SC2046
      run 90 "$work/$name.log" "$bin" train $(train_flags) --preset qwen2-tiny --seq-len 128 --micro-batch 4 \
        --max-steps $steps --lr 2e-3 --warmup 2 --device cuda:0 --compression "$wire" --comm "$comm" \
        --out "$work/$name-$wire-$comm" --metrics-out "$work/$name-$wire-$comm.jsonl" ||
        { tail -n 20 "$work/$name.log"; note "$name" "--comm $comm --compression $wire failed"; return 1; }
    done
    "${helper[@]}" comm "$work/$name-$wire-nccl.jsonl" --expect nccl --against "$work/$name-$wire-mpi.jsonl" \
      --min-steps $steps --tolerance 1e-3 >"$work/$name-$wire.json"
    rc=$?
    summary+=("\"$wire\": $(tail -n 1 "$work/$name-$wire.json")")
    [ $rc -eq 0 ] || { cat "$work/$name-$wire.json"; note "$name" "world size 1, $wire: see $name-$wire.json"; return 1; }
  done
  local gpus
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  if [ "$gpus" -lt 2 ]; then
    note "$name" "world size 1 only: $gpus GPU(s) here, world size 2 needs two"
  elif [ "$with_mpi" = OFF ] || ! command -v mpirun >/dev/null; then
    note "$name" "world size 1 only: $gpus GPUs, but no mpirun or a trainer built without MPI"
  else
    # shellcheck disable=SC2046
    run 120 "$work/$name.log" mpirun --allow-run-as-root -np 2 "$bin" train $(train_flags) --preset qwen2-tiny \
      --seq-len 128 --micro-batch 4 --max-steps $steps --lr 2e-3 --warmup 2 --comm nccl \
      --out "$work/$name-2" --metrics-out "$work/$name-2.jsonl" --verify-sync ||
      { tail -n 20 "$work/$name.log"; note "$name" "world size 2 failed"; return 1; }
    "${helper[@]}" comm "$work/$name-2.jsonl" --expect nccl --min-steps $steps >"$work/$name-2.json" ||
      { cat "$work/$name-2.json"; note "$name" "world size 2: see $name-2.json"; return 1; }
    summary+=("\"world2\": $(tail -n 1 "$work/$name-2.json")")
  fi
  local IFS=,
  echo "{${summary[*]}}" >"$work/$name.json"
  return 0
}

main() {
  failed=0
  log "mode ${dryrun:-gpu}, budget ${budget} s, build $build_dir, work $work, out $out"
  stage env yes 0 st_env
  stage deps yes 0 st_deps
  export CMAKE_PREFIX_PATH="$deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  export PKG_CONFIG_PATH="$deps/usr/lib/x86_64-linux-gnu/pkgconfig:$deps/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export CPATH="$deps/usr/include${CPATH:+:$CPATH}"
  export LD_LIBRARY_PATH="$deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  stage configure yes 30 st_configure
  stage build yes 60 st_build
  stage self-check yes 10 st_selfcheck
  stage train-fp32 yes 20 st_fp32
  stage train-bf16 yes 20 st_bf16
  stage train-fp16 yes 20 st_fp16
  stage step-parity yes 20 st_step_parity
  stage hf-parity yes 30 st_hf_parity
  stage resume yes 30 st_resume
  stage nccl yes 30 st_nccl
  stage throughput-small yes 30 st_throughput_small
  stage throughput-1.5b no 100 st_throughput_15b
  stage memory-plan no 100 st_memory_plan
  (cd "$work" && tar -czf "$out/metrics.tar.gz" ./*.jsonl 2>/dev/null)
  "${helper[@]}" stage "$results" summary "$([ $failed -eq 0 ] && echo PASS || echo FAIL)" \
    "{\"failed_stages\": $failed, \"seconds\": $SECONDS}" --set "mode=${dryrun:-gpu}" >/dev/null
  log "results: $results"
  "${helper[@]}" headline "$results"
  if [ $failed -eq 0 ]; then
    log "ALL PASSED in $SECONDS s"
    return 0
  fi
  log "$failed stage(s) FAILED ($SECONDS s)"
  return 1
}

main 2>&1 | tee "$out/check-gpu.log"
exit "${PIPESTATUS[0]}"
