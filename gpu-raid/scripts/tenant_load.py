#!/usr/bin/env python3
"""A stand-in for a GPU tenant (training or inference) for the GPU self-check.

Runs a bf16 matrix-multiply loop on the GPU with PyTorch for a fixed time and prints one JSON line:
{"iterations": N, "seconds": S, "iter_per_s": R, "tflops": T, "device": NAME}, or
{"error": WHY} with exit status 2 (no PyTorch, no CUDA device, a CUDA error). The self-check
(GpuSelfCheck) runs it once alone and once while the parity codec works at its default share;
the drop in iter_per_s is the tenant's slowdown.

Usage: tenant_load.py [--seconds 20] [--size 8192] [--ready FILE]
  --ready FILE  touch FILE once warmed up, so the caller can start its own load in step.
"""
import argparse
import json
import pathlib
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--size", type=int, default=8192)
    parser.add_argument("--ready", type=pathlib.Path)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print(json.dumps({"error": "PyTorch is not installed"}))
        return 2
    if not torch.cuda.is_available():
        print(json.dumps({"error": "PyTorch sees no CUDA device"}))
        return 2
    try:
        result = run(torch, args.size, args.seconds, args.ready)
    except Exception as e:  # a CUDA error, out of memory: say so in the one line the caller reads
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
        return 2
    print(json.dumps(result))
    return 0


def run(torch, n, seconds, ready):
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(10):  # warm-up: cuBLAS heuristics, clocks
        a @ b
    torch.cuda.synchronize()
    if ready:
        ready.touch()
    iterations = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(10):
            a @ b
        torch.cuda.synchronize()
        iterations += 10
    elapsed = time.perf_counter() - start
    rate = iterations / elapsed
    return {
        "iterations": iterations,
        "seconds": round(elapsed, 3),
        "iter_per_s": round(rate, 3),
        "tflops": round(2 * n ** 3 * rate / 1e12, 1),
        "device": torch.cuda.get_device_name(),
    }

if __name__ == "__main__":
    sys.exit(main())
