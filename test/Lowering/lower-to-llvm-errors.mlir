// RUN: dist-opt %s --dist-lower-to-llvm -verify-diagnostics

// Tests that dist-lower-to-llvm reports a global (annotated, unpartitioned)
// program before lowering it: the first step checks for a per-rank program.
dist.mesh @m [a = 2]
// expected-error@+1 {{'func.func' op argument 0 has a dist.sharding (a global program's annotation) in a partitioned program; partition it first (dist-auto-partition)}}
func.func @global(%x: tensor<8xf32> {dist.sharding = #dist.sharding<@m, [{a}]>}) -> tensor<8xf32> {
  %y = math.exp %x : tensor<8xf32>
  return %y : tensor<8xf32>
}
