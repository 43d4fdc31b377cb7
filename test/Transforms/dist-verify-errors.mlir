// RUN: split-file --leading-lines %s %t
// RUN: dist-opt %t/global.mlir -split-input-file -verify-diagnostics --dist-verify
// RUN: dist-opt %t/global.mlir -split-input-file -verify-diagnostics --dist-verify=phase=global
// RUN: dist-opt %t/partitioned.mlir -split-input-file -verify-diagnostics \
// RUN:   --dist-verify=phase=partitioned
// RUN: dist-opt %t/partitioned.mlir -split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(dist-verify{phase=partitioned})'
//
// An unknown phase is tested in dist-verify-bad-phase.mlir.

//--- global.mlir
// Errors of phase=global: collectives and dist.process_index have a meaning
// only in a per-rank program.

// Tests that dist.all_reduce is rejected in a global program.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'dist.all_reduce' op is a collective in a global program; collectives appear only after dist-partition}}
  %0 = dist.all_reduce %x on @mesh_4 [mp] sum : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that dist.all_gather is rejected in a global program.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%x: tensor<8xf32>) -> tensor<32xf32> {
  // expected-error@+1 {{'dist.all_gather' op is a collective in a global program; collectives appear only after dist-partition}}
  %0 = dist.all_gather %x on @mesh_4 [mp] dim = 0 : tensor<8xf32> -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

// Tests that dist.reduce_scatter is rejected in a global program.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%x: tensor<8xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{'dist.reduce_scatter' op is a collective in a global program; collectives appear only after dist-partition}}
  %0 = dist.reduce_scatter %x on @mesh_4 [mp] sum dim = 0 : tensor<8xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Tests that dist.all_to_all is rejected in a global program.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%x: tensor<8x8xf32>) -> tensor<32x2xf32> {
  // expected-error@+1 {{'dist.all_to_all' op is a collective in a global program; collectives appear only after dist-partition}}
  %0 = dist.all_to_all %x on @mesh_4 [mp] split_dim = 1 concat_dim = 0 : tensor<8x8xf32> -> tensor<32x2xf32>
  return %0 : tensor<32x2xf32>
}

// -----

// Tests that dist.reduce is rejected in a global program.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'dist.reduce' op is a collective in a global program; collectives appear only after dist-partition}}
  %0 = dist.reduce %x on @mesh_4 [mp] max root = 3 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that dist.broadcast is rejected in a global program.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'dist.broadcast' op is a collective in a global program; collectives appear only after dist-partition}}
  %0 = dist.broadcast %x on @mesh_4 [mp] root = 0 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that dist.permute is rejected in a global program, even with no
// pairs.
dist.mesh @mesh_4 [mp = 4]
func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'dist.permute' op is a collective in a global program; collectives appear only after dist-partition}}
  %0 = dist.permute %x on @mesh_4 [mp] pairs = [] : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Tests that dist.process_index is rejected in a global program.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f() -> index {
  // expected-error@+1 {{'dist.process_index' op asks for a process index in a global program; it has a meaning only in a per-rank program}}
  %0 = dist.process_index on @mesh_2x4 [dp, mp] : index
  return %0 : index
}

// -----

// Tests that every offending op is reported, not only the first, also inside
// nested regions and functions, and next to a valid annotation.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<8xf32>, %n: index) -> tensor<8xf32> {
  %a = dist.annotate %x as <@mesh_2x4, [{dp}]> : tensor<8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> tensor<8xf32> {
    // expected-error@+1 {{'dist.all_reduce' op is a collective in a global program}}
    %s = dist.all_reduce %acc on @mesh_2x4 [mp] sum : tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  }
  // expected-error@+1 {{'dist.process_index' op asks for a process index in a global program}}
  %p = dist.process_index on @mesh_2x4 [mp] : index
  return %r : tensor<8xf32>
}
func.func @g(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error@+1 {{'dist.broadcast' op is a collective in a global program}}
  %0 = dist.broadcast %x on @mesh_2x4 [dp] root = 1 : tensor<8xf32>
  return %0 : tensor<8xf32>
}

//--- partitioned.mlir
// Errors of phase=partitioned: dist-partition replaces every annotation.

// Tests that dist.annotate is rejected in a partitioned program.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{'dist.annotate' op remains in a partitioned program; dist-partition replaces every annotation}}
  %0 = dist.annotate %x as <@mesh_2x4, [{dp}, {}]> : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Tests that boundary shardings are rejected in a partitioned program
// (dist-partition renames them dist.partitioned_as).
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
// expected-error@+1 {{'func.func' op argument 1 has a dist.sharding (a global program's annotation) in a partitioned program; partition it first (dist-auto-partition)}}
func.func @boundary(%x: tensor<4x16xf32> {dist.partitioned_as = #dist.sharding<@mesh_2x4, [{dp}, {}]>},
                    %y: tensor<8x16xf32> {dist.sharding = #dist.sharding<@mesh_2x4, [{dp}, {}]>}) -> tensor<4x16xf32> {
  return %x : tensor<4x16xf32>
}

// -----

// Tests that every remaining annotation is reported, next to valid
// collectives, also in a nested region.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%x: tensor<4x16xf32>, %n: index) -> tensor<4x16xf32> {
  %s = dist.all_reduce %x on @mesh_2x4 [mp] sum : tensor<4x16xf32>
  // expected-error@+1 {{'dist.annotate' op remains in a partitioned program}}
  %a = dist.annotate %s as <@mesh_2x4, [{dp}, {}]> : tensor<4x16xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> tensor<4x16xf32> {
    // expected-error@+1 {{'dist.annotate' op remains in a partitioned program}}
    %b = dist.annotate %acc as <@mesh_2x4, [{}, {}], partial = sum{mp}> : tensor<4x16xf32>
    scf.yield %b : tensor<4x16xf32>
  }
  return %r : tensor<4x16xf32>
}

// -----

// Tests that a buffer of an async collective is not touched before its wait
// (here through a view of it).
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func @f(%a: memref<8xf32>, %v: f32) {
  // expected-note@+1 {{the collective started here}}
  %t = dist.buffer.all_reduce async %a on @mesh_2x4 [dp] sum : memref<8xf32>
  %view = memref.subview %a[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  %c0 = arith.constant 0 : index
  // expected-error@+1 {{'memref.store' op touches a buffer of an async dist.buffer.all_reduce before its dist.wait}}
  memref.store %v, %view[%c0] : memref<4xf32, strided<[1], offset: 2>>
  // expected-note@+1 {{and completes here}}
  dist.wait %t, %a : memref<8xf32>
  return
}

// -----

// Tests that a call taking a buffer in flight is rejected.
dist.mesh @mesh_2x4 [dp = 2, mp = 4]
func.func private @use(memref<8xf32>)
func.func @f(%a: memref<8xf32>, %out: memref<32xf32>) {
  // expected-note@+1 {{the collective started here}}
  %t = dist.buffer.all_gather async %a into %out on @mesh_2x4 [mp] dim = 0 : memref<8xf32>, memref<32xf32>
  // expected-error@+1 {{'func.call' op touches a buffer of an async dist.buffer.all_gather before its dist.wait}}
  func.call @use(%a) : (memref<8xf32>) -> ()
  // expected-note@+1 {{and completes here}}
  dist.wait %t, %a, %out : memref<8xf32>, memref<32xf32>
  return
}

