//===- ShardingRuleCache.cpp - Op rules shared across passes --------------===//

#include "dist/Transforms/ShardingRuleCache.h"
#include "dist/Interfaces/ShardingRuleInterface.h"

using namespace mlir;
using namespace mlir::dist;

FailureOr<const ShardingRule *> ShardingRuleCache::lookup(Operation *op) {
  auto [it, inserted] = indexOf.try_emplace(op, kNoRule);
  if (!inserted)
    return it->second == kNoRule ? nullptr : &rules[it->second];
  auto ruleOp = dyn_cast<ShardingRuleOpInterface>(op);
  if (!ruleOp)
    return nullptr;
  FailureOr<ShardingRule> rule = ruleOp.getShardingRule();
  if (failed(rule))
    return nullptr;
  if (failed(rule->verify(op))) {
    indexOf.erase(op);
    return failure();
  }
  // The top bit is cleared: DenseMap reserves ~0u and ~0u - 1 as keys.
  // (`it` stays valid: `indexOf` has not grown since.)
  SmallVector<unsigned, 1> &sameHash =
      indicesByHash[static_cast<unsigned>(hash_value(*rule)) & 0x7fffffffu];
  for (unsigned index : sameHash)
    if (rules[index] == *rule) {
      it->second = index;
      return &rules[index];
    }
  it->second = rules.size();
  sameHash.push_back(rules.size());
  rules.push_back(std::move(*rule));
  return &rules.back();
}
