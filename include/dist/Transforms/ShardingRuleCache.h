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
    auto it = indexOf.find(op);
    return it == indexOf.end() || it->second == kNoRule ? nullptr
                                                        : &rules[it->second];
  }

private:
  /// Marks ops without a rule in `indexOf`.
  static constexpr unsigned kNoRule = ~0u;
  /// Op -> index into `rules` (a deque: entries never move).
  OpMap<unsigned> indexOf;
  std::deque<ShardingRule> rules;
  /// Rule hash -> the indices of the rules with that hash.
  DenseMap<unsigned, SmallVector<unsigned, 1>> indicesByHash;
};

} // namespace mlir::dist

#endif // DIST_TRANSFORMS_SHARDINGRULECACHE_H
