// dist-run's generated inputs follow the arguments' declared initial values:
// dist.input_normal draws N(0, std), dist.input_fill repeats a value, and the
// module's dist.input_seed is the default seed (--seed overrides it).

// RUN: rm -rf %t && mkdir -p %t
// RUN: dist-run %s --keep --work-dir %t/module-seed | FileCheck %s
// RUN: dist-run %s --keep --work-dir %t/seed-5 --seed 5 | FileCheck %s
// RUN: dist-run %s --keep --work-dir %t/seed-1 --seed 1 | FileCheck %s
// CHECK: PASS: 2 of 2 result(s) match the serial run
// RUN: %python -c "import array, math, sys; v = array.array('f', open(sys.argv[1], 'rb').read()); m = sum(v) / len(v); s = math.sqrt(sum((x - m) ** 2 for x in v) / len(v)); print('mean %%.3f std %%.3f' %% (m, s)); sys.exit(0 if abs(m) < 0.03 and abs(s - 0.5) < 0.03 else 1)" %t/module-seed/arg0.bin
// RUN: %python %S/../Training/compare_raw.py f32 %t/module-seed/arg1.bin %t/seed-1/arg1.bin | FileCheck %s --check-prefix=FILL
// FILL: PASS: all pairs equal
// The module's seed (5) is the default: the same draw as --seed 5, not as --seed 1.
// RUN: cmp %t/module-seed/arg0.bin %t/seed-5/arg0.bin
// RUN: not cmp %t/module-seed/arg0.bin %t/seed-1/arg0.bin

module attributes {dist.input_seed = 5 : i64} {
  dist.mesh @mesh [dp = 2]
  func.func @init(%w: tensor<64x64xf32> {dist.input_normal = 0.5 : f64},
                  %b: tensor<64xf32> {dist.input_fill = 1.5 : f64}) -> (tensor<64x64xf32>, tensor<64xf32>) {
    return %w, %b : tensor<64x64xf32>, tensor<64xf32>
  }
}
