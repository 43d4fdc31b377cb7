// RUN: dist-opt %s --dist-split-reductions='min-threads=1' --verify-diagnostics
// RUN: dist-opt %s --dist-split-reductions='min-chunk=0' --verify-diagnostics

// expected-error @below {{dist-split-reductions: min-threads must be at least 2 and min-chunk at least 1, got}}
module {
}
