// RUN: dist-opt %s --dist-comm-report=json=%t.missing/dir/report.json -verify-diagnostics -o /dev/null

// Tests that an unwritable JSON path is an error, after the remarks.
// expected-error@below {{dist-comm-report: cannot write}}
// expected-remark@below {{dist-comm-report: 1 collective; each rank sends 768 B; [mp]: 1 collective, 768 B}}
module {
  dist.mesh @mesh_4 [mp = 4]
  func.func @f(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
    // expected-remark@+1 {{dist.all_reduce over [mp] (4 ranks): 128 x f32 = 512 B; each rank sends 768 B}}
    %0 = dist.all_reduce %x on @mesh_4 [mp] sum : tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
}
