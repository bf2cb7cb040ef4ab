#!/usr/bin/env python3
"""cuBLAS matmul rates through torch.matmul, to set next to bench_vulkan's matmul rows on the same GPU.

Not part of the build or CI (it needs PyTorch with CUDA). For each n, an n x n x n product in f32 with TF32 off
(the rate bench_vulkan's f32 kernels are measured against), f32 with TF32 on, f16 and bf16: three warm-up products,
then the mean of `--reps` timed with CUDA events. Prints one line per size and type, in TFLOP/s.
"""
import argparse

import torch


def rate(n, dtype, reps, tf32):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    a = torch.rand(n, n, device="cuda", dtype=dtype) * 2 - 1
    b = torch.rand(n, n, device="cuda", dtype=dtype) * 2 - 1
    for _ in range(3):
        torch.matmul(a, b)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    start.record()
    for _ in range(reps):
        torch.matmul(a, b)
    end.record()
    torch.cuda.synchronize()
    ms = start.elapsed_time(end) / reps
    return 2.0 * n ** 3 / (ms * 1e-3) / 1e12


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="512,1024,2048,4096,8192")
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()
    print("device:", torch.cuda.get_device_name(0), "torch", torch.__version__)
    for n in (int(s) for s in args.sizes.split(",")):
        rows = [
            ("f32 (TF32 off)", torch.float32, False),
            ("f32 (TF32 on)", torch.float32, True),
            ("f16", torch.float16, False),
            ("bf16", torch.bfloat16, False),
        ]
        for name, dtype, tf32 in rows:
            print(f"torch.matmul n={n} {name}: {rate(n, dtype, args.reps, tf32):.1f} TFLOP/s", flush=True)


if __name__ == "__main__":
    main()
