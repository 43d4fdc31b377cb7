//===- ShardingRuleTest.cpp - Equality and hashing of sharding rules ------===//
//
// The rule cache stores equal rules once, so equality must see every field:
// two rules that differ anywhere must not share a record.
//
//===----------------------------------------------------------------------===//

#include "dist/Interfaces/ShardingRule.h"

#include "gtest/gtest.h"

using namespace mlir::dist;

namespace {

/// ([i, k], [k, j], [i, j]) -> ([i, j]) with k a sum: a matmul.
ShardingRule matmulRule() {
  ShardingRule rule;
  int64_t i = rule.addFactor(8, FactorKind::Parallel);
  int64_t j = rule.addFactor(32, FactorKind::Parallel);
  int64_t k = rule.addFactor(16, FactorKind::Reduction);
  rule.operandDims = {{i, k}, {k, j}, {i, j}};
  rule.resultDims = {{i, j}};
  rule.operandIsInitOnly = {false, false, false};
  rule.operandIsAccumulator = {false, false, true};
  rule.partialPolicy = PartialPolicy::Multilinear;
  return rule;
}

TEST(ShardingRuleTest, EqualRulesAreEqualAndHashEqual) {
  ShardingRule a = matmulRule(), b = matmulRule();
  EXPECT_EQ(a, b);
  EXPECT_EQ(hash_value(a), hash_value(b));
}

TEST(ShardingRuleTest, EveryFieldCounts) {
  ShardingRule base = matmulRule();
  auto differs = [&](auto change) {
    ShardingRule other = matmulRule();
    change(other);
    return other != base;
  };
  EXPECT_TRUE(differs([](ShardingRule &r) { r.factors[2].size = 4; }));
  EXPECT_TRUE(differs([](ShardingRule &r) { r.factors[2].kind = FactorKind::Unsplittable; }));
  EXPECT_TRUE(differs([](ShardingRule &r) { r.factors[2].reduction = ReductionKind::max; }));
  EXPECT_TRUE(differs([](ShardingRule &r) { r.operandDims[1][0] = 1; }));
  EXPECT_TRUE(differs([](ShardingRule &r) { r.resultDims[0].pop_back(); }));
  EXPECT_TRUE(differs([](ShardingRule &r) { r.operandIsInitOnly[2] = true; }));
  EXPECT_TRUE(differs([](ShardingRule &r) { r.operandIsAccumulator[2] = false; }));
  EXPECT_TRUE(differs([](ShardingRule &r) { r.operandIsLinear = {true, false, true}; }));
  EXPECT_TRUE(differs([](ShardingRule &r) { r.partialPolicy = PartialPolicy::None; }));
}

TEST(ShardingRuleTest, DimListsAreNotConcatenated) {
  // ([0], [1]) and ([0, 1], []) have the same dims in a row.
  ShardingRule a, b;
  a.addFactor(4, FactorKind::Parallel);
  a.addFactor(4, FactorKind::Parallel);
  b = a;
  a.operandDims = {{0}, {1}};
  b.operandDims = {{0, 1}, {}};
  EXPECT_NE(a, b);
  EXPECT_NE(hash_value(a), hash_value(b));
}

} // namespace
