//===- dist-opt.cpp - mlir-opt with dist's dialects and passes ------------===//
//
// A drop-in superset of mlir-opt: every upstream dialect, extension and pass,
// plus dist's.
//
//===----------------------------------------------------------------------===//

#include "dist/InitAllDist.h"
#ifdef DIST_HAVE_TEST_DIALECT
#include "../../test/lib/TestDistDialect.h"
#endif

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::dist::registerAllDistPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::dist::registerAllDistDialects(registry);
#ifdef DIST_HAVE_TEST_DIALECT
  mlir::dist::test::registerTestDistDialect(registry);
#endif

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "dist optimizer driver: mlir-opt with the dist dialect and passes\n",
      registry));
}
