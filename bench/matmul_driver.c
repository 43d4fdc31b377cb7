/* Times the matmul dist-lower-to-llvm generates (linked in as
 * _mlir_ciface_matmul) against OpenBLAS's cblas_sgemm called directly, on
 * the same N^3 problem (1024^3 unless -DMATMUL_N=...) in one run, and checks they agree. */
#include <cblas.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef MATMUL_N
#define MATMUL_N 1024
#endif
#define N MATMUL_N

typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} Memref2D;

void _mlir_ciface_matmul(Memref2D *result, Memref2D *a, Memref2D *b);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static Memref2D wrap(float *data) {
  Memref2D m = {data, data, 0, {N, N}, {N, 1}};
  return m;
}

int main(int argc, char **argv) {
  int repeat = argc > 1 ? atoi(argv[1]) : 5;
  float *a = malloc(sizeof(float) * N * N), *b = malloc(sizeof(float) * N * N);
  float *c = malloc(sizeof(float) * N * N);
  for (int i = 0; i < N * N; ++i) {
    a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    b[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
  }
  Memref2D ma = wrap(a), mb = wrap(b), result;
  double flops = 2.0 * N * N * N, best_gen = 1e30, best_blas = 1e30;
  for (int r = 0; r < repeat; ++r) {
    double t0 = now();
    _mlir_ciface_matmul(&result, &ma, &mb);
    double t1 = now();
    if (t1 - t0 < best_gen)
      best_gen = t1 - t0;
    if (r + 1 < repeat)
      free(result.allocated);
    t0 = now();
    for (int i = 0; i < N * N; ++i)
      c[i] = 0.0f;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, a, N,
                b, N, 1.0f, c, N);
    t1 = now();
    if (t1 - t0 < best_blas)
      best_blas = t1 - t0;
  }
  double max_err = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      double e = fabs(result.aligned[result.offset + i * result.strides[0] +
                                     j * result.strides[1]] -
                      c[i * N + j]);
      if (e > max_err)
        max_err = e;
    }
  printf("matmul %dx%dx%d f32, best of %d: generated %.3f s (%.1f GFLOP/s), "
         "OpenBLAS %.3f s (%.1f GFLOP/s), ratio %.2f, max abs diff %.2e\n",
         N, N, N, repeat, best_gen, flops / best_gen * 1e-9, best_blas,
         flops / best_blas * 1e-9, best_gen / best_blas, max_err);
  return max_err < 1e-2 ? 0 : 1;
}
