// Parses a sharded program with the installed dist library, runs a dist pass
// on it, and prints the local type of a sharded tensor.
#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/ShardingUtils.h"
#include "dist/InitAllDist.h"
#include "dist/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  mlir::DialectRegistry registry;
  mlir::dist::registerAllDistDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(
      "dist.mesh @mesh_2x4 [dp = 2, mp = 4]", &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  pm.addPass(mlir::dist::createDistVerify());
  if (mlir::failed(pm.run(*module)))
    return 1;
  auto mesh = llvm::cast<mlir::dist::MeshOp>(&module->getBody()->front());
  auto sharding = llvm::cast<mlir::dist::ShardingAttr>(mlir::parseAttribute(
      "#dist.sharding<@mesh_2x4, [{dp}, {mp}]>", &context));
  auto type = mlir::RankedTensorType::get({8, 8}, mlir::Float32Type::get(&context));
  auto local = mlir::dist::getLocalType(type, sharding, mesh);
  if (mlir::failed(local))
    return 1;
  llvm::outs() << "local type: " << *local << "\n";
  return 0;
}
