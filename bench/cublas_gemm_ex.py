#!/usr/bin/python3
"""cuBLAS's own rate for the GPT block's product shapes on this GPU.

cublasGemmEx called through ctypes as dist's CUDA runtime calls it (bf16
inputs, f32 compute, f32 or bf16 output, row-major C = A B as column-major
C^T = B^T A^T), timed with CUDA events over back-to-back calls, beside
PyTorch's bf16 product: the ceiling for dist's products, against which
DIST_CUDA_PROFILE's per-call times are read. Needs a
GPU and PyTorch with its CUDA wheels: python3 bench/cublas_gemm_ex.py
"""
import ctypes, os, sys, torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "Training"))
from check_against_torch import torch_library_path
lib = None
for d in torch_library_path():
    p = os.path.join(d, "libcublas.so.13")
    if os.path.exists(p):
        lib = ctypes.CDLL(p); break
h = ctypes.c_void_p()
assert lib.cublasCreate_v2(ctypes.byref(h)) == 0
lib.cublasSetStream_v2(h, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
R_32F, R_16BF, COMPUTE_32F = 0, 14, 68
def run(m, n, k, out_dtype, transA=False, transB=False, reps=20):
    a = torch.randn((k, m) if transA else (m, k), device="cuda").to(torch.bfloat16)
    b = torch.randn((n, k) if transB else (k, n), device="cuda").to(torch.bfloat16)
    c = torch.zeros(m, n, device="cuda", dtype=out_dtype)
    alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
    lda = a.shape[1]; ldb = b.shape[1]
    def call():
        st = lib.cublasGemmEx(h, int(transB), int(transA), n, m, k, ctypes.byref(alpha),
            ctypes.c_void_p(b.data_ptr()), R_16BF, ldb, ctypes.c_void_p(a.data_ptr()), R_16BF, lda,
            ctypes.byref(beta), ctypes.c_void_p(c.data_ptr()),
            R_32F if out_dtype == torch.float32 else R_16BF, n, COMPUTE_32F, -1)
        assert st == 0, st
    for _ in range(3): call()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize(); s.record()
    for _ in range(reps): call()
    e.record(); torch.cuda.synchronize()
    ms = s.elapsed_time(e) / reps
    return ms, 2 * m * n * k / ms / 1e9
for shape in [(8192, 1024, 1024), (8192, 4096, 1024), (1024, 1024, 8192)]:
    for out in (torch.float32, torch.bfloat16):
        for ta, tb in ((False, False), (False, True), (True, False)):
            ms, tf = run(*shape, out, ta, tb)
            print("m=%d n=%d k=%d out=%s %s%s: %.3f ms, %.0f TFLOP/s" % (*shape, str(out)[6:], "T" if ta else "N", "T" if tb else "N", ms, tf))
x = torch.randn(8192, 1024, device="cuda", dtype=torch.bfloat16); w = torch.randn(1024, 1024, device="cuda", dtype=torch.bfloat16)
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
for _ in range(3): x @ w
torch.cuda.synchronize(); s.record()
for _ in range(20): x @ w
e.record(); torch.cuda.synchronize(); print("torch bf16 x@w 8192x1024x1024: %.3f ms" % (s.elapsed_time(e) / 20))
