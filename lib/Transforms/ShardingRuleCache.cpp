//===- ShardingRuleCache.cpp - Op rules shared across passes --------------===//

#include "dist/Transforms/ShardingRuleCache.h"
#include "dist/Interfaces/ShardingRuleInterface.h"

using namespace mlir;
using namespace mlir::dist;

FailureOr<const ShardingRule *> ShardingRuleCache::lookup(Operation *op) {
  auto [it, inserted] = ruleOf.try_emplace(op, nullptr);
  if (!inserted)
    return it->second;
  auto ruleOp = dyn_cast<ShardingRuleOpInterface>(op);
  if (!ruleOp)
    return nullptr;
  FailureOr<ShardingRule> rule = ruleOp.getShardingRule();
  if (failed(rule))
    return nullptr;
  if (failed(rule->verify(op))) {
    ruleOf.erase(op);
    return failure();
  }
  rule->padsSafely &= computesSafelyOnAnyValues(op);
  auto found = distinct.find_as(*rule);
  if (found == distinct.end()) {
    rules.push_back(std::move(*rule));
    found = distinct.insert(&rules.back()).first;
  }
  // (`it` stays valid: `ruleOf` has not grown since.)
  it->second = *found;
  return *found;
}
