// REQUIRES: cuda-toolkit
// The GPU lowering, compiled without a GPU: the partitioned layernorm of
// test/E2E/layernorm.mlir becomes host code in the LLVM dialect that
// launches kernels compiled to fatbins for sm_90 (ptxas from the CUDA
// toolkit), keeps its buffers on the device and calls the runtime for the
// collectives; it translates to LLVM IR. A generated GPT training step
// (Megatron on 2 ranks, Adam, clipping) compiles too, and `format=isa`
// gives PTX text; both host programs link against the runtime libraries.

// RUN: dist-opt %S/../E2E/layernorm.mlir --dist-auto-partition | dist-opt --dist-lower-to-nvvm | FileCheck %s
// RUN: dist-opt %S/../E2E/layernorm.mlir --dist-auto-partition | dist-opt --dist-lower-to-nvvm | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR
// RUN: dist-opt %S/../E2E/layernorm.mlir --dist-auto-partition | dist-opt --dist-lower-to-nvvm=format=isa | FileCheck %s --check-prefix=PTX
// RUN: dist-opt %S/../E2E/megatron_mlp.mlir --dist-auto-partition | dist-opt --dist-lower-to-nvvm | FileCheck %s --check-prefix=MATMUL
// RUN: dist-opt %S/../E2E/layernorm.mlir --dist-auto-partition | dist-opt --dist-lower-to-nvvm --mlir-print-ir-after=gpu-kernel-outlining 2>&1 >/dev/null | FileCheck %s --check-prefix=KERNELS
// RUN: dist-gen gpt --layers 1 --hidden 16 --heads 2 --seq 4 --vocab 8 --batch 2 --optimizer adam --clip-grad-norm 0.5 --mesh mp=2 --parallel mp | dist-opt --dist-auto-partition | dist-opt --dist-lower-to-nvvm > %t.gpt.mlir
// RUN: FileCheck %s --check-prefix=GPT < %t.gpt.mlir
// With update-in-place (what dist-run --device=gpu sets) the step writes its
// parameters and optimizer state into their argument buffers and returns
// the loss alone (the run wrapper then copies nothing back).
// RUN: dist-gen gpt --layers 1 --hidden 16 --heads 2 --seq 4 --vocab 8 --batch 2 --optimizer adam --clip-grad-norm 0.5 --mesh mp=2 --parallel mp | dist-opt --dist-auto-partition | dist-opt --dist-lower-to-nvvm=update-in-place=true | FileCheck %s --check-prefix=INPLACE
// INPLACE: llvm.func @train_step({{.*}}) -> !llvm.struct<(ptr, ptr, i64)> {
// INPLACE: gpu.binary @dist_kernels
// In bf16 (master weights) every product is cuBLAS with f32 accumulation.
// RUN: dist-gen gpt --layers 1 --hidden 16 --heads 2 --seq 4 --vocab 8 --batch 2 --optimizer adam --dtype bf16 --master-weights --mesh mp=2 --parallel mp | dist-opt --dist-auto-partition | dist-opt --dist-lower-to-nvvm > %t.bf16.mlir
// RUN: FileCheck %s --check-prefix=BF16 < %t.bf16.mlir

// The host programs link against dist's runtime and its CUDA runtime
// library with every symbol resolved (the mgpu* ABI of LLVM 22).
// RUN: dist-opt %S/../E2E/layernorm.mlir --dist-auto-partition | dist-opt --dist-lower-to-nvvm | mlir-translate --mlir-to-llvmir -o %t.ln.ll
// RUN: %clang -c -Wno-override-module %t.ln.ll -o %t.ln.o
// RUN: %clang -shared %t.ln.o -o %t.ln.so -L%dist_lib_dir -ldist_runtime -ldist_cuda_runtime -Wl,--no-undefined
// RUN: mlir-translate --mlir-to-llvmir %t.gpt.mlir -o %t.gpt.ll
// RUN: %clang -c -Wno-override-module %t.gpt.ll -o %t.gpt.o
// RUN: %clang -shared %t.gpt.o -o %t.gpt.so -L%dist_lib_dir -ldist_runtime -ldist_cuda_runtime -lm -Wl,--no-undefined
// RUN: mlir-translate --mlir-to-llvmir %t.bf16.mlir -o %t.bf16.ll
// RUN: %clang -c -Wno-override-module %t.bf16.ll -o %t.bf16.o
// RUN: %clang -shared %t.bf16.o -o %t.bf16.so -L%dist_lib_dir -ldist_runtime -ldist_cuda_runtime -lm -Wl,--no-undefined

// CHECK: module attributes {gpu.container_module}
// CHECK: llvm.func @layernorm(
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: gpu.launch_func {{.*}}@dist_kernels::@layernorm_kernel
// CHECK: llvm.call @dist_all_reduce
// CHECK: llvm.call @mgpuMemFree
// All kernels are in one binary (dist-gpu-merge-kernels).
// CHECK: gpu.binary @dist_kernels  [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, {{.*}}"P\ED{{.*}}"
// CHECK-NOT: gpu.binary
// CHECK-NOT: memref.alloc
// CHECK-NOT: @malloc

// Loop bounds and steps are constants inside each kernel (an index divided
// by a kernel argument would be a 64-bit division per element), and the
// launch sizes are known to the kernel.
// KERNELS: gpu.func @layernorm_kernel(%arg0: memref<16xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>}
// KERNELS-NOT: gpu.func @{{.*}}: index

// LLVMIR: @dist_kernels_binary = internal constant
// LLVMIR-DAG: call void @mgpuLaunchKernel(
// LLVMIR-DAG: call void @dist_all_reduce(
// LLVMIR-DAG: call ptr @mgpuModuleLoad(ptr @dist_kernels_binary

// PTX: gpu.binary @dist_kernels  [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, {{.*}}assembly = "
// PTX-SAME: .target sm_90

// The Megatron MLP's two matmuls are cuBLAS calls, not kernels. The step
// runs on one stream (dist-gpu-streams): allocations, products, kernels,
// frees and the all_reduce are queued there, and the host waits only before
// it returns.
// MATMUL: %[[S:.*]] = llvm.call @mgpuStreamCreate()
// MATMUL-NOT: mgpuStreamSynchronize
// MATMUL: llvm.call @mgpuMemAlloc(%{{.*}}, %[[S]], %{{.*}})
// MATMUL-NOT: mgpuStreamSynchronize
// MATMUL: llvm.call @dist_cublas_sgemm({{.*}}, %[[S]])
// MATMUL-NOT: mgpuStreamSynchronize
// MATMUL: gpu.launch_func <%[[S]] : !llvm.ptr>
// MATMUL-NOT: mgpuStreamSynchronize
// MATMUL: llvm.call @dist_cublas_sgemm({{.*}}, %[[S]])
// MATMUL-NOT: mgpuStreamSynchronize
// MATMUL: llvm.call @mgpuMemFree(%{{.*}}, %[[S]])
// MATMUL-NOT: mgpuStreamSynchronize
// MATMUL: llvm.call @dist_all_reduce({{.*}}, %[[S]])
// MATMUL-NOT: mgpuStreamSynchronize
// MATMUL: gpu.launch_func <%[[S]] : !llvm.ptr>
// MATMUL: llvm.call @mgpuStreamSynchronize(%[[S]])
// MATMUL-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
// MATMUL-NEXT: llvm.return
// MATMUL-NOT: llvm.call @dist_cublas_sgemm

// The 28 products of the bf16 step (forward, both backward products of each
// matmul, attention's) are dist_cublas_gemm_ex calls with bf16 inputs (3),
// attention's batched over the heads (_strided_batched: strides and a
// count after the leading dimensions); none is left to a kernel.
// BF16-COUNT-28: llvm.call @dist_cublas_gemm_ex{{(_strided_batched)?}}({{.*}}) : (i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, {{(i64, )?}}!llvm.ptr, i32, {{(i64, )?}}f32, !llvm.ptr, i32, {{(i64, i32, )?}}i32, i32, !llvm.ptr) -> ()
// BF16-NOT: llvm.call @dist_cublas_gemm_ex
// BF16-NOT: llvm.call @dist_cublas_sgemm
// BF16: gpu.binary @dist_kernels

// GPT: llvm.call @dist_cublas_sgemm
// GPT: gpu.binary @dist_kernels
// GPT-NOT: gpu.binary
// GPT-NOT: memref.alloc
