//===- DistPrintShardingRules.cpp - Report every op's sharding rule -------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Interfaces/ShardingRuleInterface.h"
#include "dist/Transforms/Passes.h"

#include "dist/Interfaces/DataFlowSharding.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "dist-print-sharding-rules"

namespace mlir::dist {
#define GEN_PASS_DEF_DISTPRINTSHARDINGRULES
#include "dist/Transforms/Passes.h.inc"
} // namespace mlir::dist

using namespace mlir;
using namespace mlir::dist;

namespace {
struct DistPrintShardingRulesPass
    : public dist::impl::DistPrintShardingRulesBase<DistPrintShardingRulesPass> {
  void runOnOperation() override {
    bool failedRule = false;
    getOperation()->walk([&](Operation *op) {
      // Terminators, data-flow ops (whose values share the layouts of their
      // edges) and dist's own ops are handled by the passes directly.
      if (op == getOperation() || isa<DistDialect>(op->getDialect()) ||
          op->hasTrait<OpTrait::IsTerminator>() ||
          isa<DataFlowShardingOpInterface>(op))
        return;
      auto ruleOp = dyn_cast<ShardingRuleOpInterface>(op);
      bool onTensors =
          llvm::any_of(op->getOperandTypes(), llvm::IsaPred<RankedTensorType>) ||
          llvm::any_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>);
      if (!ruleOp) {
        if (onTensors)
          emitRemark(op->getLoc()) << "no sharding rule for '"
                                   << op->getName() << "'";
        return;
      }
      FailureOr<ShardingRule> rule = ruleOp.getShardingRule();
      if (failed(rule)) {
        if (onTensors)
          emitRemark(op->getLoc()) << "no sharding rule for this form of '"
                                   << op->getName() << "'";
        return;
      }
      if (failed(rule->verify(op))) {
        failedRule = true;
        return;
      }
      std::string text;
      llvm::raw_string_ostream os(text);
      rule->print(os);
      emitRemark(op->getLoc()) << "sharding rule: " << text;
    });
    if (failedRule)
      signalPassFailure();
  }
};
} // namespace
