// End-to-end: a vocabulary-parallel embedding and softmax cross-entropy
// over a vocabulary of 1000 that the mesh does not divide (3 and 8 ranks:
// blocks of 334 and 125 rows, the last ones padded). The table is split by
// vocabulary rows and the output weight by vocabulary columns, as in
// vocab_parallel_gather.mlir. Ids never name a padded row; the max, the
// exp-sum and the target logit skip the padded columns (their generics yield
// the accumulator there), so padding never reaches the loss. Must match the
// serial run.

// RUN: dist-run %s --mesh 3 | FileCheck %s -DN=3
// RUN: dist-run %s --mesh mesh=8 | FileCheck %s -DN=8
// RUN: dist-opt %s --dist-auto-partition | FileCheck %s --check-prefix=IR

// CHECK: dist-run: @vocab_parallel_uneven on [[N]] rank(s), mesh @mesh [mp = [[N]]]
// CHECK-NEXT: result #0 tensor<16xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: result #1 tensor<16x32xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: result #2 tensor<16x1000xf32> {{.*}}: PASS{{$}}
// CHECK-NEXT: PASS: 3 of 3 result(s) match the serial run
// CHECK-NOT: FAIL

// On 3 ranks: blocks of 334 rows; this rank's rows inside the vocabulary
// are 1000 - 334 * index; each reduction over the vocabulary keeps its
// accumulator past them.
// IR-LABEL: func.func @vocab_parallel_uneven
// IR-SAME: tensor<334x32xf32> {dist.global_shape = array<i64: 1000, 32>, dist.partitioned_as = #dist.sharding<@mesh, [{mp}, {}]>}
// IR-SAME: -> (tensor<16xf32> {{.*}}, tensor<16x32xf32> {{.*}}, tensor<16x334xf32> {dist.global_shape = array<i64: 16, 1000>, dist.partitioned_as = #dist.sharding<@mesh, [{}, {mp}]>})
// IR: %[[INDEX:.*]] = dist.process_index on @mesh [mp] : index
// IR-NEXT: %[[OFFSET:.*]] = arith.muli %[[INDEX]], %c334 : index
// IR: %[[INSIDE:.*]] = arith.subi %c1000, %[[OFFSET]] : index
// IR: arith.maximumf
// IR-NEXT: %[[I:.*]] = linalg.index 1 : index
// IR-NEXT: %[[OK:.*]] = arith.cmpi slt, %[[I]], %[[INSIDE]] : index
// IR-NEXT: arith.select %[[OK]]
// IR: dist.all_reduce {{.*}} max
// IR: math.exp
// IR: arith.cmpi slt, %{{.*}}, %[[INSIDE]] : index

dist.mesh @mesh [mp = 3]

#bv = affine_map<(b, v) -> (b, v)>
#b = affine_map<(b, v) -> (b)>
#id1 = affine_map<(b) -> (b)>

func.func @vocab_parallel_uneven(
    %ids: tensor<16x1xindex> {dist.input_range = array<i64: 0, 1000>},
    %labels: tensor<16xindex> {dist.input_range = array<i64: 0, 1000>},
    %table: tensor<1000x32xf32> {dist.sharding = #dist.sharding<@mesh, [{mp}, {}]>},
    %w_out: tensor<32x1000xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {mp}]>})
    -> (tensor<16xf32>, tensor<16x32xf32>,
        tensor<16x1000xf32> {dist.sharding = #dist.sharding<@mesh, [{}, {mp}]>}) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  // Embedding lookup.
  %emb = tensor.gather %table[%ids] gather_dims([0])
      : (tensor<1000x32xf32>, tensor<16x1xindex>) -> tensor<16x32xf32>
  // Logits over the vocabulary.
  %e_bv = tensor.empty() : tensor<16x1000xf32>
  %z_bv = linalg.fill ins(%zero : f32) outs(%e_bv : tensor<16x1000xf32>) -> tensor<16x1000xf32>
  %logits = linalg.matmul ins(%emb, %w_out : tensor<16x32xf32>, tensor<32x1000xf32>)
      outs(%z_bv : tensor<16x1000xf32>) -> tensor<16x1000xf32>
  // Softmax cross-entropy: loss_b = logsumexp(logits_b) - logits_b[label_b].
  %e_b = tensor.empty() : tensor<16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e_b : tensor<16xf32>) -> tensor<16xf32>
  %max = linalg.generic {indexing_maps = [#bv, #b], iterator_types = ["parallel", "reduction"]}
      ins(%logits : tensor<16x1000xf32>) outs(%m0 : tensor<16xf32>) {
  ^bb0(%l: f32, %acc: f32):
    %m = arith.maximumf %l, %acc : f32
    linalg.yield %m : f32
  } -> tensor<16xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e_b : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#bv, #b, #b], iterator_types = ["parallel", "reduction"]}
      ins(%logits, %max : tensor<16x1000xf32>, tensor<16xf32>) outs(%s0 : tensor<16xf32>) {
  ^bb0(%l: f32, %m: f32, %acc: f32):
    %d = arith.subf %l, %m : f32
    %x = math.exp %d : f32
    %a = arith.addf %acc, %x : f32
    linalg.yield %a : f32
  } -> tensor<16xf32>
  %t0 = linalg.fill ins(%zero : f32) outs(%e_b : tensor<16xf32>) -> tensor<16xf32>
  %target = linalg.generic {indexing_maps = [#bv, #b, #b], iterator_types = ["parallel", "reduction"]}
      ins(%logits, %labels : tensor<16x1000xf32>, tensor<16xindex>) outs(%t0 : tensor<16xf32>) {
  ^bb0(%l: f32, %lab: index, %acc: f32):
    %v = linalg.index 1 : index
    %eq = arith.cmpi eq, %lab, %v : index
    %x = arith.select %eq, %l, %zero : f32
    %a = arith.addf %acc, %x : f32
    linalg.yield %a : f32
  } -> tensor<16xf32>
  %loss = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%sum, %max, %target : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) outs(%e_b : tensor<16xf32>) {
  ^bb0(%s: f32, %m: f32, %t: f32, %o: f32):
    %lg = math.log %s : f32
    %lse = arith.addf %lg, %m : f32
    %r = arith.subf %lse, %t : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  return %loss, %emb, %logits : tensor<16xf32>, tensor<16x32xf32>, tensor<16x1000xf32>
}
