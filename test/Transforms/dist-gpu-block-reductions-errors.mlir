// RUN: dist-opt %s --dist-gpu-block-reductions='max-threads=48' --verify-diagnostics
// RUN: dist-opt %s --dist-gpu-block-reductions='max-threads=2048' --verify-diagnostics
// RUN: dist-opt %s --dist-gpu-block-reductions='min-extent=0' --verify-diagnostics
// RUN: dist-opt %s --dist-gpu-block-reductions='min-outputs=0' --verify-diagnostics

// Options out of range are refused: a block is a power of two of at most
// 1024 threads and at least a warp; every row has an element and an output.
// expected-error @below {{dist-gpu-block-reductions: min-extent and min-outputs must be at least 1 and max-threads a power of two from 32 to 1024, got}}
module {
}
