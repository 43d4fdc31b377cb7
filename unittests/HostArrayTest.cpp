//===- HostArrayTest.cpp - Host arrays: sharding, assembly, verdicts ------===//

#include "dist/Support/HostArray.h"
#include "dist/Support/Verdict.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace hostdata;

namespace {

/// An array whose element i holds i (as its type holds it).
HostArray iota(DType dtype, meshmath::Shape shape) {
  HostArray array(dtype, std::move(shape));
  for (int64_t i = 0, n = array.numElements(); i < n; ++i)
    array.set(i, (double)i);
  return array;
}

meshmath::Layout layout(std::vector<meshmath::AxisList> dims,
                        meshmath::AxisList partial = {}, int kind = 0) {
  meshmath::Layout result;
  result.dims = std::move(dims);
  result.partial = std::move(partial);
  result.partialKind = kind;
  return result;
}

// Tests the element widths and the 16-bit float conversions, including
// rounding to nearest even, subnormals, overflow and NaN.
TEST(HostArrayTest, ElementTypes) {
  EXPECT_EQ(byteWidth(DType::I1), 1);
  EXPECT_EQ(byteWidth(DType::BF16), 2);
  EXPECT_EQ(byteWidth(DType::Index), 8);
  EXPECT_EQ(halfToFloat(floatToHalf(1.0f)), 1.0f);
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(1e6f), 0x7c00);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1).
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
  EXPECT_EQ(floatToBfloat16(1.0f), 0x3f80);
  EXPECT_EQ(bfloat16ToFloat(floatToBfloat16(3.0f)), 3.0f);
  // 1 + 2^-8 ties to 1; 1 + 3 * 2^-9 rounds up to 1 + 2^-7.
  EXPECT_EQ(bfloat16ToFloat(floatToBfloat16(1.0f + std::ldexp(1.0f, -8))),
            1.0f);
  EXPECT_EQ(
      bfloat16ToFloat(floatToBfloat16(1.0f + 3 * std::ldexp(1.0f, -9))),
      1.0f + std::ldexp(1.0f, -7));

  HostArray bits(DType::I1, {3});
  bits.set(0, 0);
  bits.set(1, 5);
  bits.setInt(2, 1);
  EXPECT_EQ(bits.getInt(0), 0);
  EXPECT_EQ(bits.getInt(1), 1);
  EXPECT_EQ(bits.get(2), 1.0);
  HostArray small(DType::I8, {2});
  small.set(0, 300); // clamped
  small.setInt(1, -128);
  EXPECT_EQ(small.getInt(0), 127);
  EXPECT_EQ(small.getInt(1), -128);
  HostArray big(DType::I64, {1});
  big.setInt(0, (int64_t(1) << 62) + 1); // exact, no double on the way
  EXPECT_EQ(big.convertedTo(DType::Index).getInt(0), (int64_t(1) << 62) + 1);
}

// Tests the identities: every kind and type, integer extremes exactly.
TEST(HostArrayTest, Identities) {
  EXPECT_EQ(identity(Reduction::Sum, DType::F32), 0);
  EXPECT_EQ(identity(Reduction::Prod, DType::BF16), 1);
  EXPECT_EQ(identity(Reduction::Max, DType::F16), -INFINITY);
  EXPECT_EQ(identity(Reduction::Min, DType::F64), INFINITY);
  EXPECT_EQ(identityInt(Reduction::Max, DType::I8), -128);
  EXPECT_EQ(identityInt(Reduction::Min, DType::I16), 32767);
  EXPECT_EQ(identityInt(Reduction::Min, DType::I64),
            std::numeric_limits<int64_t>::max());
  EXPECT_EQ(identityInt(Reduction::Max, DType::I1), 0);
  EXPECT_EQ(identityInt(Reduction::Min, DType::I1), 1);
  EXPECT_EQ(combine(Reduction::Max, 1, 2), 2);
  EXPECT_TRUE(std::isnan(combine(Reduction::Min, NAN, 2)));
  EXPECT_EQ(combineInt(Reduction::Prod, 3, -4), -12);
}

// Tests that shardBlock cuts a rank's block of a 2-D split on a 2x2 mesh
// and that assembleBlocks puts the blocks back.
TEST(HostArrayTest, ShardAndAssembleSplit) {
  meshmath::Shape mesh = {2, 2};
  HostArray global = iota(DType::F32, {4, 6});
  meshmath::Layout split = layout({{0}, {1}});
  std::string error;
  std::vector<HostArray> blocks;
  for (int64_t r = 0; r < 4; ++r) {
    std::optional<HostArray> block = shardBlock(global, split, mesh, r, error);
    ASSERT_TRUE(block) << error;
    EXPECT_EQ(block->shape(), (meshmath::Shape{2, 3}));
    blocks.push_back(*block);
  }
  // Rank 3 = (1, 1) holds rows 2-3, columns 3-5: its first element is
  // global (2, 3) = 15.
  EXPECT_EQ(blocks[3].get(0), 15);
  EXPECT_EQ(blocks[1].get(5), 11); // (1, 5)
  auto replicas = assembleBlocks(blocks, {4, 6}, split, mesh, error);
  ASSERT_TRUE(replicas) << error;
  ASSERT_EQ(replicas->size(), 1u);
  for (int64_t i = 0; i < 24; ++i)
    EXPECT_EQ(replicas->front().get(i), i);
}

// Tests replicas: axis 1 neither splits nor reduces, so two replicas come
// back, and a corrupted one differs from the first.
TEST(HostArrayTest, Replicas) {
  meshmath::Shape mesh = {2, 2};
  HostArray global = iota(DType::I32, {4});
  meshmath::Layout rows = layout({{0}});
  std::string error;
  std::vector<HostArray> blocks;
  for (int64_t r = 0; r < 4; ++r)
    blocks.push_back(*shardBlock(global, rows, mesh, r, error));
  blocks[3].setInt(0, 99); // rank (1, 1): replica 1, element 2
  auto replicas = assembleBlocks(blocks, {4}, rows, mesh, error);
  ASSERT_TRUE(replicas) << error;
  ASSERT_EQ(replicas->size(), 2u);
  EXPECT_EQ((*replicas)[0].getInt(2), 2);
  EXPECT_EQ((*replicas)[1].getInt(2), 99);
}

// Tests partial layouts: sharding gives the group's first rank the value and
// the others the identity, so assembling reduces back to the value, for every
// kind; avg gives every rank the value and divides.
TEST(HostArrayTest, PartialRoundTrip) {
  meshmath::Shape mesh = {2, 2};
  for (int kind = 0; kind <= 4; ++kind) {
    for (DType dtype : {DType::F32, DType::I8, DType::I64, DType::BF16}) {
      HostArray global = iota(dtype, {2, 4});
      meshmath::Layout partial = layout({{0}, {}}, {1}, kind);
      std::string error;
      std::vector<HostArray> blocks;
      for (int64_t r = 0; r < 4; ++r)
        blocks.push_back(*shardBlock(global, partial, mesh, r, error));
      if (kind != (int)Reduction::Avg)
        EXPECT_EQ(blocks[1].get(0),
                  isFloat(dtype)
                      ? identity((Reduction)kind, dtype)
                      : (double)identityInt((Reduction)kind, dtype));
      auto replicas = assembleBlocks(blocks, {2, 4}, partial, mesh, error);
      ASSERT_TRUE(replicas) << error;
      for (int64_t i = 0; i < 8; ++i)
        EXPECT_EQ(replicas->front().get(i), global.get(i))
            << "kind " << kind << " type " << name(dtype) << " element " << i;
    }
  }
}

// Tests that a sum over a partial axis adds the ranks' blocks.
TEST(HostArrayTest, PartialSum) {
  meshmath::Shape mesh = {4};
  std::vector<HostArray> blocks;
  for (int r = 0; r < 4; ++r) {
    HostArray block(DType::F64, {2});
    block.set(0, r);
    block.set(1, 10 * r);
    blocks.push_back(block);
  }
  std::string error;
  auto replicas = assembleBlocks(blocks, {2}, layout({{}}, {0}, 0), mesh, error);
  ASSERT_TRUE(replicas) << error;
  EXPECT_EQ(replicas->front().get(0), 6);
  EXPECT_EQ(replicas->front().get(1), 60);
}

// Tests owned layouts: every rank gets the value; assembling reads only the
// owners (index 1 along axis 1), one replica per index along axis 0.
TEST(HostArrayTest, OwnedReadsTheOwners) {
  meshmath::Shape mesh = {2, 2};
  HostArray global = iota(DType::F32, {2, 4});
  meshmath::Layout owned = layout({{}, {}});
  owned.owned = {1};
  owned.owner = 1;
  std::string error;
  std::vector<HostArray> blocks;
  for (int64_t r = 0; r < 4; ++r)
    blocks.push_back(*shardBlock(global, owned, mesh, r, error));
  EXPECT_EQ(blocks[0].get(5), 5);
  blocks[0].set(5, 99); // rank (0, 0) does not own it
  blocks[2].set(5, 99);
  auto replicas = assembleBlocks(blocks, {2, 4}, owned, mesh, error);
  ASSERT_TRUE(replicas) << error;
  ASSERT_EQ(replicas->size(), 2u);
  for (const HostArray &replica : *replicas)
    EXPECT_EQ(replica.get(5), 5);
  owned.owner = 2;
  EXPECT_FALSE(shardBlock(global, owned, mesh, 0, error));
  EXPECT_EQ(error, "owner 2 is not an index of its group");
}

// Tests padded blocks: 6 elements split 4 ways are blocks of 2, the last all
// padding (zeros); assembling drops the padding whatever it holds.
TEST(HostArrayTest, UnevenSplitsArePadded) {
  std::string error;
  HostArray global = iota(DType::F32, {6});
  std::vector<HostArray> blocks;
  for (int64_t rank = 0; rank < 4; ++rank) {
    std::optional<HostArray> block = shardBlock(global, layout({{0}}), {4}, rank, error);
    ASSERT_TRUE(block) << error;
    ASSERT_EQ(block->shape(), (meshmath::Shape{2}));
    blocks.push_back(*block);
  }
  EXPECT_EQ(blocks[2].get(1), 5);
  EXPECT_EQ(blocks[3].get(0), 0);
  EXPECT_EQ(blocks[3].get(1), 0);
  blocks[3].set(0, 99);
  auto replicas = assembleBlocks(blocks, {6}, layout({{0}}), {4}, error);
  ASSERT_TRUE(replicas) << error;
  for (int64_t i = 0; i < 6; ++i)
    EXPECT_EQ(replicas->front().get(i), i);
}

// Tests halos (ghost rows of zeros at the ends) and overlapping blocks: each
// rank's block holds its neighbours' rows, and assembling reads them back.
TEST(HostArrayTest, HalosAndOverlaps) {
  std::string error;
  HostArray global = iota(DType::F32, {8});
  meshmath::Layout ghost = layout({{0}}), window = layout({{0}});
  ghost.halos = {{1, 2, 0}};
  window.halos = {{0, 0, 2}};
  // 8 rows in 4 blocks of 2 with a halo [1, 2]: rank r holds rows
  // 2r - 1 .. 2r + 3, zeros outside.
  std::vector<HostArray> blocks;
  for (int64_t rank = 0; rank < 4; ++rank) {
    std::optional<HostArray> block = shardBlock(global, ghost, {4}, rank, error);
    ASSERT_TRUE(block) << error;
    ASSERT_EQ(block->shape(), (meshmath::Shape{5}));
    for (int64_t i = 0; i < 5; ++i) {
      int64_t row = 2 * rank - 1 + i;
      EXPECT_EQ(block->get(i), row >= 0 && row < 8 ? row : 0) << rank << " " << i;
    }
    blocks.push_back(*block);
  }
  auto replicas = assembleBlocks(blocks, {8}, ghost, {4}, error);
  ASSERT_TRUE(replicas) << error;
  for (int64_t i = 0; i < 8; ++i)
    EXPECT_EQ(replicas->front().get(i), i);
  // Every copy of a row must agree: a wrong halo row (rank 1's last, a copy
  // of rank 2's second row) or a nonzero ghost row (rank 0's first) fails.
  std::vector<HostArray> wrong = blocks;
  wrong[1].set(4, 99);
  EXPECT_FALSE(assembleBlocks(wrong, {8}, ghost, {4}, error));
  EXPECT_NE(error.find("halo row that differs"), std::string::npos) << error;
  wrong = blocks;
  wrong[0].set(0, 5);
  EXPECT_FALSE(assembleBlocks(wrong, {8}, ghost, {4}, error));
  EXPECT_NE(error.find("ghost row"), std::string::npos) << error;
  // 8 rows with an overlap of 2 in 2 blocks of 3: rows 0..4 and 3..7.
  std::optional<HostArray> last = shardBlock(global, window, {2}, 1, error);
  ASSERT_TRUE(last) << error;
  ASSERT_EQ(last->shape(), (meshmath::Shape{5}));
  EXPECT_EQ(last->get(0), 3);
  EXPECT_EQ(last->get(4), 7);
  // A halo wider than the block does not fit.
  ghost.halos = {{3, 0, 0}};
  EXPECT_FALSE(shardBlock(global, ghost, {4}, 0, error));
  EXPECT_NE(error.find("halo"), std::string::npos) << error;
}

// Tests that layouts that do not fit are reported, not asserted.
TEST(HostArrayTest, Errors) {
  std::string error;
  HostArray global = iota(DType::F32, {6});
  EXPECT_FALSE(shardBlock(global, layout({{0}, {}}), {2}, 0, error));
  EXPECT_FALSE(shardBlock(global, layout({{3}}), {2}, 0, error));
  EXPECT_FALSE(shardBlock(global, layout({{0}}), {2}, 2, error));
  std::vector<HostArray> blocks(2, HostArray(DType::F32, {2}));
  EXPECT_FALSE(assembleBlocks(blocks, {6}, layout({{0}}), {2}, error));
}

// Tests the reference rule: a result as accurate as the serial one passes,
// even when it is not elementwise close to it; a corrupted element fails;
// exact serial results allow a few units of roundoff; NaN must match.
TEST(VerdictTest, ReferenceRule) {
  HostArray reference(DType::F64, {3}), serial(DType::F32, {3});
  HostArray distributed(DType::F32, {3});
  for (int i = 0; i < 3; ++i) {
    reference.set(i, 2000.0 + i);
    serial.set(i, 2000.0 + i + 9e-4);
    distributed.set(i, 2000.0 + i - 5e-4);
  }
  // The runs differ by 1.4e-3: beyond a tight elementwise tolerance.
  Tolerance tight{1e-7, 1e-5};
  EXPECT_EQ(compareElementwise(serial, distributed, tight).mismatches, 3);
  ReferenceResult verdict =
      judgeAgainstReference(reference, serial, {distributed});
  EXPECT_TRUE(verdict.pass);
  EXPECT_NEAR(verdict.serialError, 9e-4, 1e-4);
  EXPECT_NEAR(verdict.distributedError, 5e-4, 1e-4);

  HostArray corrupted = distributed;
  corrupted.set(1, corrupted.get(1) + 1.0);
  verdict = judgeAgainstReference(reference, serial, {distributed, corrupted});
  EXPECT_FALSE(verdict.pass);
  EXPECT_GT(verdict.distributedError, 0.9);

  // The serial run is exact: one ulp off passes, 100 ulps fail.
  HostArray exact(DType::F32, {1}), ref1(DType::F64, {1});
  exact.set(0, 1.0);
  ref1.set(0, 1.0);
  HostArray ulp(DType::F32, {1}), far(DType::F32, {1});
  ulp.set(0, 1.0 + std::ldexp(1.0, -23));
  far.set(0, 1.0 + 100 * std::ldexp(1.0, -23));
  EXPECT_TRUE(judgeAgainstReference(ref1, exact, {ulp}).pass);
  EXPECT_FALSE(judgeAgainstReference(ref1, exact, {far}).pass);
  // A run with TF32 products (u = 2^-11) may be 100 f32 ulps off, not 2^-4.
  ReferenceRule tf32 = tf32ProductsRule(DType::F32);
  EXPECT_EQ(tf32ProductsRule(DType::F64).roundoff, 0);
  EXPECT_TRUE(judgeAgainstReference(ref1, exact, {far}, nullptr, tf32).pass);
  HostArray tooFar(DType::F32, {1});
  tooFar.set(0, 1.0 + std::ldexp(1.0, -4));
  EXPECT_FALSE(
      judgeAgainstReference(ref1, exact, {tooFar}, nullptr, tf32).pass);

  HostArray nan(DType::F32, {1});
  nan.set(0, NAN);
  EXPECT_FALSE(judgeAgainstReference(ref1, exact, {nan}).pass);
  EXPECT_EQ(judgeAgainstReference(ref1, exact, {nan}).specialMismatches, 1);
  EXPECT_TRUE(judgeAgainstReference(ref1, nan, {nan}).pass);
}

// Tests the second serial sample: a result that cancels to almost nothing,
// whose serial run happened to be close to the reference, is judged by the
// worse of the serial run's error and the serial program's error on
// perturbed inputs (against the reference on the same inputs): without that
// sample it fails, with it it passes; a wrong value still fails, also when
// the perturbation moves the result a lot.
TEST(VerdictTest, PerturbedSample) {
  HostArray reference(DType::F64, {1}), serial(DType::F32, {1});
  HostArray distributed(DType::F32, {1});
  reference.set(0, 1e-9);
  serial.set(0, 1.1e-9);
  distributed.set(0, 1.6e-9);
  // The moved inputs move the reference too (to 2e-9); the serial program
  // on them is 3e-10 off it.
  PerturbedSample perturbed{HostArray(DType::F32, {1}),
                            HostArray(DType::F64, {1})};
  perturbed.reference.set(0, 2e-9);
  perturbed.serial.set(0, 2.3e-9);
  ReferenceResult without =
      judgeAgainstReference(reference, serial, {distributed});
  EXPECT_FALSE(without.pass);
  ReferenceResult with =
      judgeAgainstReference(reference, serial, {distributed}, &perturbed);
  EXPECT_TRUE(with.pass);
  EXPECT_NEAR(with.perturbedError, 3e-10, 1e-15);
  EXPECT_NEAR(with.allowed, 1.2e-9, 1e-15);
  HostArray wrong = distributed;
  wrong.set(0, 1e-8);
  EXPECT_FALSE(
      judgeAgainstReference(reference, serial, {wrong}, &perturbed).pass);
  // A discontinuity (a floor of an integral input) moves both perturbed
  // runs alike: it does not widen the bound.
  PerturbedSample jump{HostArray(DType::F32, {1}), HostArray(DType::F64, {1})};
  jump.reference.set(0, 1.0);
  jump.serial.set(0, 1.0);
  EXPECT_FALSE(
      judgeAgainstReference(reference, serial, {wrong}, &jump).pass);
}

// Tests that perturbByUlp moves every float element by one ulp, up or down,
// and leaves integers.
TEST(VerdictTest, PerturbByUlp) {
  HostArray input(DType::F32, {64});
  for (int i = 0; i < 64; ++i)
    input.set(i, 1.0 + i);
  HostArray moved = perturbByUlp(input);
  int up = 0;
  for (int i = 0; i < 64; ++i) {
    float before = (float)input.get(i), after = (float)moved.get(i);
    EXPECT_NE(before, after);
    // One ulp of f32: at most 2^-23 relative.
    EXPECT_LE(std::fabs(after - before), std::ldexp(std::fabs(before), -23));
    up += after > before;
  }
  // Both directions occur.
  EXPECT_GT(up, 8);
  EXPECT_LT(up, 56);
  HostArray ints(DType::I32, {4});
  for (int i = 0; i < 4; ++i)
    ints.setInt(i, i);
  HostArray same = perturbByUlp(ints);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(same.get(i), i);
}

} // namespace
