//===- ShardingRuleCache.h - Op rules shared across passes ------*- C++ -*-===//
//
// The sharding rules of a module's ops, computed once per op. It is an MLIR
// analysis: dist-propagate marks it preserved (it only adds attributes and
// new ops), so dist-partition, run right after it, reuses the rules instead
// of deriving them again from indexing maps. Any other pass in between
// invalidates it.
//
// Equal rules are stored once: a model repeats its layers, so a program of
// 80,000 ops has a handful of distinct rules. Keeping one record per op made
// the cache larger than the IR itself, and its memory traffic made compile
// time grow faster than the program.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_TRANSFORMS_SHARDINGRULECACHE_H
#define DIST_TRANSFORMS_SHARDINGRULECACHE_H

#include "dist/Interfaces/ShardingRule.h"
#include "dist/Support/AddressOrderKeys.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <deque>

namespace mlir::dist {

class ShardingRuleCache {
public:
  explicit ShardingRuleCache(Operation *) {}

  /// The rule of `op` (computed on first use): null if `op` has no rule (no
  /// `ShardingRuleOpInterface`, or its rule does not describe this form of
  /// the op). Fails, with an error on `op`, if the rule is inconsistent with
  /// the op. The rule must be read before `op`'s types change.
  FailureOr<const ShardingRule *> lookup(Operation *op);

  /// The rule `lookup` found for `op`; null if it has none or was not looked
  /// up.
  const ShardingRule *getIfLookedUp(Operation *op) const {
    return ruleOf.lookup(op);
  }

private:
  /// Compares rules by value, so that equal rules are found as one.
  struct RuleInfo : llvm::DenseMapInfo<const ShardingRule *> {
    static bool isKey(const ShardingRule *rule) {
      return rule != getEmptyKey() && rule != getTombstoneKey();
    }
    static unsigned getHashValue(const ShardingRule *rule) {
      return static_cast<unsigned>(hash_value(*rule));
    }
    static unsigned getHashValue(const ShardingRule &rule) {
      return static_cast<unsigned>(hash_value(rule));
    }
    static bool isEqual(const ShardingRule *a, const ShardingRule *b) {
      return a == b || (isKey(a) && isKey(b) && *a == *b);
    }
    static bool isEqual(const ShardingRule &a, const ShardingRule *b) {
      return isKey(b) && a == *b;
    }
  };

  /// Op -> its rule (null: none).
  OpMap<const ShardingRule *> ruleOf;
  /// The distinct rules (a deque: entries never move), found by value.
  std::deque<ShardingRule> rules;
  llvm::DenseSet<const ShardingRule *, RuleInfo> distinct;
};

} // namespace mlir::dist

#endif // DIST_TRANSFORMS_SHARDINGRULECACHE_H
