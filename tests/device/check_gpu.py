#!/usr/bin/env python3
"""Helpers of tests/device/check-gpu.sh: read the trainer's telemetry and outputs, judge each stage and
keep the results JSON. Standard library only, except `hf-parity` (torch + transformers, GPU machine).

Every judging command prints one JSON object (the stage's numbers and `problems`) and exits 0 when
there are no problems, 1 otherwise.
"""
import argparse
import array
import json
import math
import os
import statistics
import sys


def records(path, kind=None):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            if kind is None or r.get("type") == kind:
                out.append(r)
    return out


def number(v):
    """Telemetry writes non-finite floats as strings ("NaN", "Infinity")."""
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return None
    return None


def emit(obj, problems):
    obj["problems"] = problems
    print(json.dumps(obj))
    return 0 if not problems else 1


def median(values):
    return statistics.median(values) if values else None


def cmd_train(a):
    problems = []
    hello = records(a.metrics, "hello")
    steps = records(a.metrics, "step")
    out = {"metrics": os.path.basename(a.metrics), "steps": len(steps)}
    if not hello:
        problems.append("no hello record")
    else:
        rank0 = hello[0].get("ranks", [{}])[0]
        out["device"] = rank0.get("device")
        out["device_name"] = rank0.get("device_name")
        out["peak_flops_source"] = hello[0].get("hparams", {}).get("peak_flops_source")
        out["precision"] = hello[0].get("hparams", {}).get("precision")
        if a.expect_device and not str(rank0.get("device", "")).startswith(a.expect_device):
            problems.append(f"device is {rank0.get('device')!r}, expected {a.expect_device}")
        if a.expect_device == "cuda" and not rank0.get("device_name"):
            problems.append("hello names no GPU (device_name empty)")
    if len(steps) < a.min_steps:
        problems.append(f"{len(steps)} step records, expected at least {a.min_steps}")
    if not steps:
        return emit(out, problems)

    losses = [number(s.get("loss")) for s in steps]
    finite = [x for x in losses if x is not None and math.isfinite(x)]
    out["loss_first"] = losses[0]
    out["loss_last"] = losses[-1]
    k = min(5, max(1, len(losses) // 3))
    if len(finite) == len(losses):
        head, tail = statistics.fmean(losses[:k]), statistics.fmean(losses[-k:])
        out["loss_mean_first"] = round(head, 4)
        out["loss_mean_last"] = round(tail, 4)
        if a.loss_drop is not None and not (tail < head - a.loss_drop):
            problems.append(f"loss did not fall by {a.loss_drop}: mean of the first {k} {head:.4f}, last {k} {tail:.4f}")
    elif not a.fp16:
        problems.append(f"non-finite losses: {losses}")
    else:
        # fp16 may skip a step on overflow (loss reported non-finite) while the scaler backs off.
        out["nonfinite_steps"] = [s["step"] for s, x in zip(steps, losses) if x is None or not math.isfinite(x)]
        good = [x for x in losses if x is not None and math.isfinite(x)]
        if len(good) < len(losses) // 2:
            problems.append(f"most fp16 losses are non-finite: {losses}")
        elif a.loss_drop is not None and not (statistics.fmean(good[-k:]) < statistics.fmean(good[:k]) - a.loss_drop):
            problems.append("fp16 loss did not fall")

    scales = [s.get("loss_scale") for s in steps]
    if a.fp16:
        if any(v is None for v in scales):
            problems.append("fp16 step records without loss_scale")
        else:
            out["loss_scale_first"], out["loss_scale_last"] = scales[0], scales[-1]
            out["loss_scale_min"], out["loss_scale_max"] = min(scales), max(scales)
    elif any(v is not None for v in scales):
        problems.append("loss_scale set without fp16")

    utils = [number(u) for s in steps for u in s.get("util", [])]
    mems = [number(m) for s in steps for m in s.get("mem_mb", [])]
    mfus = [number(s.get("mfu")) for s in steps]
    tps = [number(s.get("tokens_per_s")) for s in steps]
    step_ms = [number(s.get("step_ms", [None])[0]) for s in steps]
    if utils and None not in utils:
        out["util_min"], out["util_max"] = min(utils), max(utils)
        out["util_median"] = median(utils)
        if min(utils) < 0 or max(utils) > a.util_max:
            problems.append(f"util outside 0..{a.util_max}: {min(utils)}..{max(utils)}")
    else:
        problems.append("step records without util")
    if mems and None not in mems:
        out["mem_mb_max"] = max(mems)
        if min(mems) <= 0:
            problems.append(f"mem_mb not positive: min {min(mems)}")
    else:
        problems.append("step records without mem_mb")
    if any(m is None for m in mfus):
        problems.append("mfu is null in some step records")
    elif a.mfu_max is not None and not all(0 < m <= a.mfu_max for m in mfus):
        problems.append(f"mfu outside (0, {a.mfu_max}]: {min(mfus)}..{max(mfus)}")
    warm = slice(min(a.warmup_steps, max(0, len(steps) - 1)), None)
    steady_tps = [x for x in tps[warm] if x is not None]
    steady_mfu = [x for x in mfus[warm] if x is not None]
    steady_ms = [x for x in step_ms[warm] if x is not None]
    out["tokens_per_step"] = steps[-1].get("tokens")
    out["tokens_per_s_median"] = round(median(steady_tps), 1) if steady_tps else None
    out["mfu_median"] = round(median(steady_mfu), 4) if steady_mfu else None
    out["step_ms_median"] = round(median(steady_ms), 2) if steady_ms else None
    out["steps_in_median"] = len(steady_tps)
    return emit(out, problems)


def cmd_selfcheck(a):
    problems = []
    with open(a.json, encoding="utf-8") as f:
        j = json.load(f)
    gpus = j.get("gpus") or []
    out = {
        "libtorch": j.get("libtorch"),
        "cuda_available": j.get("cuda", {}).get("available"),
        "cuda_devices": j.get("cuda", {}).get("devices"),
        "cuda_driver": j.get("cuda_driver"),
        "gpu": gpus[0].get("name") if gpus else None,
        "gpu_memory_mb": gpus[0].get("memory_total_mb") if gpus else None,
        "peak_bf16_tflops": gpus[0].get("peak_bf16_tflops") if gpus else None,
        "nvml": j.get("nvml", {}).get("available"),
        "nccl": j.get("nccl"),
        "nccl_communicator": j.get("nccl_communicator"),
        "mpi": j.get("mpi"),
        "allocator": j.get("allocator", {}).get("name"),
    }
    if a.expect_cuda:
        if not out["cuda_available"]:
            problems.append("LibTorch sees no CUDA device")
        if not out["gpu"]:
            problems.append(f"no GPU named (gpus_error: {j.get('gpus_error')})")
        if not out["nvml"]:
            problems.append(f"NVML not available ({j.get('nvml', {}).get('error')})")
        if out["peak_bf16_tflops"] is None:
            problems.append("no datasheet peak for this GPU (MFU would be null)")
    elif out["cuda_available"]:
        problems.append("dry run expected no CUDA")
    if a.expect_no_mpi and out["mpi"] != "none (built without MPI)":
        problems.append(f"mpi is {out['mpi']!r}, expected 'none (built without MPI)'")
    return emit(out, problems)


def read_logprobs(path, vocab):
    data = array.array("f")
    with open(path, "rb") as f:
        data.frombytes(f.read())
    if sys.byteorder != "little":
        data.byteswap()
    if len(data) % vocab:
        raise SystemExit(f"{path}: {len(data)} floats is not a multiple of the vocabulary {vocab}")
    return data, len(data) // vocab


def cmd_logits(a):
    """Our eval-logits output alone: shape, finiteness, every row a distribution (logsumexp 0)."""
    problems = []
    data, rows = read_logprobs(a.file, a.vocab)
    out = {"rows": rows, "vocab": a.vocab}
    if rows != a.tokens:
        problems.append(f"{rows} rows, expected {a.tokens}")
    worst = 0.0
    for r in range(rows):
        row = data[r * a.vocab:(r + 1) * a.vocab]
        m = max(row)
        if not all(math.isfinite(x) for x in (m, min(row))):
            problems.append(f"row {r} not finite")
            break
        lse = m + math.log(math.fsum(math.exp(x - m) for x in row))
        worst = max(worst, abs(lse))
    out["max_abs_logsumexp"] = worst
    if worst > 1e-3:
        problems.append(f"rows are not log-probabilities: |logsumexp| up to {worst}")
    return emit(out, problems)


def cmd_hf_parity(a):
    """Hugging Face transformers' Qwen2ForCausalLM (fp32) on the same ids vs our eval-logits."""
    import numpy as np  # GPU machine only (PyTorch's Python)
    import torch
    import transformers

    problems = []
    ids = [int(x) for x in a.ids.split()]
    flat = np.fromfile(a.file, dtype="<f4")
    if flat.size != len(ids) * a.vocab:
        problems.append(f"{a.file}: {flat.size} floats, expected {len(ids)} x {a.vocab}")
        return emit({}, problems)
    ours = torch.from_numpy(flat.astype(np.float32).reshape(len(ids), a.vocab))
    out = {"transformers": transformers.__version__, "torch": torch.__version__, "tokens": len(ids)}
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    kwargs = {"attn_implementation": "eager", "output_loading_info": True}
    try:
        model, info = transformers.Qwen2ForCausalLM.from_pretrained(a.model, dtype=torch.float32, **kwargs)
    except TypeError:  # transformers < 4.56 names it torch_dtype
        model, info = transformers.Qwen2ForCausalLM.from_pretrained(a.model, torch_dtype=torch.float32, **kwargs)
    missing = [k for k in info.get("missing_keys", []) if k != "lm_head.weight"]  # tied to the embeddings
    out["missing_keys"] = missing[:10]
    out["unexpected_keys"] = list(info.get("unexpected_keys", []))[:10]
    if missing or out["unexpected_keys"]:
        problems.append("checkpoint tensor names do not match transformers' Qwen2ForCausalLM")
    model.eval()
    for device in a.devices.split(","):
        if device.startswith("cuda") and not torch.cuda.is_available():
            problems.append("torch sees no CUDA device")
            continue
        m = model.to(device)
        with torch.no_grad():
            logits = m(torch.tensor([ids], device=device)).logits[0].float()
        ref = torch.log_softmax(logits, dim=-1).cpu()
        diff = (ref - ours).abs()
        key = device.split(":")[0]
        out[f"max_abs_diff_logprob_{key}"] = diff.max().item()
        out[f"mean_abs_diff_logprob_{key}"] = diff.mean().item()
        out[f"argmax_agree_{key}"] = float((ref.argmax(-1) == ours.argmax(-1)).float().mean().item())
        if diff.max().item() > a.tolerance:
            problems.append(f"{device}: max |log p - log p_hf| {diff.max().item():.3g} > {a.tolerance}")
    return emit(out, problems)


def step_map(path):
    return {s["step"]: s for s in records(path, "step")}


def cmd_resume(a):
    problems = []
    ref, resumed = step_map(a.reference), step_map(a.resumed)
    lo, hi = (int(x) for x in a.steps.split("-"))
    wanted = list(range(lo, hi + 1))
    out = {"steps": f"{lo}-{hi}", "resumed_steps": sorted(resumed)}
    missing = [s for s in wanted if s not in ref or s not in resumed]
    if missing:
        problems.append(f"steps missing: {missing}")
        return emit(out, problems)
    if any(s < lo for s in resumed):
        problems.append(f"the resumed run repeated steps before {lo}: {sorted(resumed)}")
    diffs = [abs(number(ref[s]["loss"]) - number(resumed[s]["loss"])) for s in wanted]
    out["loss_reference"] = [number(ref[s]["loss"]) for s in wanted]
    out["loss_resumed"] = [number(resumed[s]["loss"]) for s in wanted]
    out["max_abs_loss_diff"] = max(diffs)
    out["bit_exact"] = all(d == 0 for d in diffs)
    if max(diffs) > a.tolerance:
        problems.append(f"resumed losses differ by up to {max(diffs):.3g} (> {a.tolerance})")
    return emit(out, problems)


def cmd_step_parity(a):
    """The first steps of two runs with the same seed and data on different devices (CUDA vs CPU)."""
    problems = []
    x, y = step_map(a.a), step_map(a.b)
    out = {}
    worst = 0.0
    for s in range(1, a.steps + 1):
        if s not in x or s not in y:
            problems.append(f"step {s} missing")
            continue
        for field in ("loss", "grad_norm"):
            u, v = number(x[s].get(field)), number(y[s].get(field))
            out[f"step{s}_{field}"] = [u, v]
            if u is None or v is None:
                problems.append(f"step {s} {field} missing")
                continue
            rel = abs(u - v) / max(abs(v), 1e-12)
            worst = max(worst, rel)
    out["max_rel_diff"] = worst
    if worst > a.tolerance:
        problems.append(f"first steps differ by {worst:.3g} relative (> {a.tolerance})")
    return emit(out, problems)


def cmd_stage(a):
    """Adds one stage to the results JSON (rewritten whole, so it is valid after every stage)."""
    results = {}
    if os.path.exists(a.results):
        with open(a.results, encoding="utf-8") as f:
            results = json.load(f)
    details = {}
    if a.details:
        text = a.details
        if text.startswith("@"):
            text = open(text[1:], encoding="utf-8").read().strip()
            text = text.splitlines()[-1] if text else ""
        try:
            details = json.loads(text) if text else {}
        except json.JSONDecodeError:
            details = {"output": text[-500:]}
    if a.note:
        details["note"] = a.note
    details["status"] = a.status
    if a.seconds is not None:
        details["seconds"] = a.seconds
    results.setdefault("stages", {})[a.name] = details
    results["failed"] = sorted(n for n, s in results["stages"].items() if s["status"] == "FAIL")
    results["passed"] = not results["failed"]
    if a.set:
        for kv in a.set:
            k, v = kv.split("=", 1)
            results[k] = v
    tmp = a.results + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    os.replace(tmp, a.results)
    return 0


def cmd_headline(a):
    """The numbers a report needs, one line per stage, from the results JSON."""
    with open(a.results, encoding="utf-8") as f:
        stages = json.load(f).get("stages", {})
    keys = {
        "self-check": ["gpu", "cuda_driver", "libtorch", "nvml", "peak_bf16_tflops", "mpi"],
        "train-fp32": ["loss_mean_first", "loss_mean_last", "util_median", "mem_mb_max", "mfu_median", "tokens_per_s_median"],
        "train-bf16": ["loss_mean_first", "loss_mean_last", "util_median", "mem_mb_max", "mfu_median", "tokens_per_s_median"],
        "train-fp16": ["loss_mean_first", "loss_mean_last", "loss_scale_first", "loss_scale_last", "mfu_median"],
        "step-parity": ["max_rel_diff"],
        "hf-parity": ["max_abs_diff_logprob_cuda", "max_abs_diff_logprob_cpu", "max_abs_logsumexp"],
        "resume": ["max_abs_loss_diff", "bit_exact"],
        "throughput-small": ["tokens_per_s_median", "step_ms_median", "mfu_median", "mem_mb_max"],
        "throughput-1.5b": ["tokens_per_s_median", "step_ms_median", "mfu_median", "mem_mb_max"],
        "memory-plan": ["plan_total_mib", "measured_mem_mb_max", "plan_error"],
    }
    for name, st in stages.items():
        if name == "summary":
            continue
        shown = ", ".join(f"{k}={st[k]:.4g}" if isinstance(st[k], float) else f"{k}={st[k]}"
                          for k in keys.get(name, []) if k in st)
        extra = f" ({st['note']})" if st.get("note") else ""
        print(f"{st.get('status', '?'):4} {name:17} {st.get('seconds', '?'):>4} s  {shown}{extra}")
    return 0


def cmd_comm(a):
    """Which library a run's gradient collectives used (hello), and its steps against a reference run."""
    problems = []
    hello = records(a.metrics, "hello")
    if not hello:
        return emit({}, ["no hello record"])
    h = hello[0]
    used = h.get("hparams", {}).get("comm")
    nccl = h.get("versions", {}).get("nccl")
    out = {"comm": used, "nccl": nccl, "world_size": h.get("world_size")}
    if used != a.expect:
        problems.append(f"the run used {used!r} for its collectives, expected {a.expect!r}")
    if a.expect == "nccl" and not nccl:
        problems.append("hello.versions.nccl is empty under NCCL")
    steps = step_map(a.metrics)
    out["steps"] = len(steps)
    if len(steps) < a.min_steps:
        problems.append(f"{len(steps)} steps, expected {a.min_steps}")
    if a.against:
        ref = step_map(a.against)
        worst = 0.0
        for s in sorted(set(steps) & set(ref)):
            u, v = number(steps[s].get("loss")), number(ref[s].get("loss"))
            if u is None or v is None:
                problems.append(f"step {s}: loss missing")
                continue
            worst = max(worst, abs(u - v) / max(abs(v), 1e-12))
        out["max_rel_loss_diff_vs_reference"] = worst
        if worst > a.tolerance:
            problems.append(f"losses differ from the reference run by {worst:.3g} relative (> {a.tolerance})")
    return emit(out, problems)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train")
    t.add_argument("metrics")
    t.add_argument("--expect-device", default=None)
    t.add_argument("--fp16", action="store_true")
    t.add_argument("--loss-drop", type=float, default=None)
    t.add_argument("--min-steps", type=int, default=1)
    t.add_argument("--util-max", type=float, default=100.0)
    t.add_argument("--warmup-steps", type=int, default=3)
    t.add_argument("--mfu-max", type=float, default=None)
    t.set_defaults(fn=cmd_train)
    s = sub.add_parser("selfcheck")
    s.add_argument("json")
    s.add_argument("--expect-cuda", action="store_true")
    s.add_argument("--expect-no-mpi", action="store_true")
    s.set_defaults(fn=cmd_selfcheck)
    lg = sub.add_parser("logits")
    lg.add_argument("file")
    lg.add_argument("--tokens", type=int, required=True)
    lg.add_argument("--vocab", type=int, default=151936)
    lg.set_defaults(fn=cmd_logits)
    h = sub.add_parser("hf-parity")
    h.add_argument("model")
    h.add_argument("file")
    h.add_argument("--ids", required=True)
    h.add_argument("--vocab", type=int, default=151936)
    h.add_argument("--devices", default="cuda,cpu")
    h.add_argument("--tolerance", type=float, default=1e-3)
    h.set_defaults(fn=cmd_hf_parity)
    r = sub.add_parser("resume")
    r.add_argument("reference")
    r.add_argument("resumed")
    r.add_argument("--steps", default="6-10")
    r.add_argument("--tolerance", type=float, default=0.05)
    r.set_defaults(fn=cmd_resume)
    sp = sub.add_parser("step-parity")
    sp.add_argument("a")
    sp.add_argument("b")
    sp.add_argument("--steps", type=int, default=2)
    sp.add_argument("--tolerance", type=float, default=1e-3)
    sp.set_defaults(fn=cmd_step_parity)
    cm = sub.add_parser("comm")
    cm.add_argument("metrics")
    cm.add_argument("--expect", choices=["mpi", "nccl"], required=True)
    cm.add_argument("--against", default=None)
    cm.add_argument("--min-steps", type=int, default=1)
    cm.add_argument("--tolerance", type=float, default=1e-3)
    cm.set_defaults(fn=cmd_comm)
    hl = sub.add_parser("headline")
    hl.add_argument("results")
    hl.set_defaults(fn=cmd_headline)
    st = sub.add_parser("stage")
    st.add_argument("results")
    st.add_argument("name")
    st.add_argument("status", choices=["PASS", "FAIL", "SKIP"])
    st.add_argument("details", nargs="?", default="")
    st.add_argument("--note", default="")
    st.add_argument("--seconds", type=int, default=None)
    st.add_argument("--set", action="append", help="top-level KEY=VALUE")
    st.set_defaults(fn=cmd_stage)
    a = p.parse_args()
    try:
        rc = a.fn(a)
    except Exception as e:  # one JSON line for the results, whatever went wrong
        import traceback

        traceback.print_exc()
        rc = emit({"error": f"{type(e).__name__}: {e}"[:400]}, [f"{a.cmd} raised {type(e).__name__}"])
    sys.exit(rc)


if __name__ == "__main__":
    main()
