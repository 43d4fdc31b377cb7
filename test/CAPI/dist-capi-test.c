/* Tests that the C API registers the dist dialect and round-trips a program.
 *
 * RUN: dist-capi-test 2>&1 | FileCheck %s
 */

#include "dist-c/Dialects.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"

#include <stdio.h>
#include <stdlib.h>

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  distRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  MlirDialectHandle handle = mlirGetDialectHandle__dist__();
  mlirDialectHandleLoadDialect(handle, ctx);
  distRegisterPasses();

  MlirModule module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(
               "dist.mesh @mesh_2x4 [dp = 2, mp = 4]\n"));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "failed to parse\n");
    return 1;
  }
  // CHECK: dist.mesh @mesh_2x4 [dp = 2, mp = 4]
  mlirOperationPrint(mlirModuleGetOperation(module), printToStdout, NULL);
  printf("\n");

  MlirAttribute sharding = mlirAttributeParseGet(
      ctx, mlirStringRefCreateFromCString(
               "#dist.sharding<@mesh_2x4, [{}, {mp}], partial = sum{dp}>"));
  // CHECK: is sharding: 1
  printf("is sharding: %d\n", distAttributeIsASharding(sharding));
  // CHECK: #dist.sharding<@mesh_2x4, [{}, {mp}], partial = sum{dp}>
  mlirAttributePrint(sharding, printToStdout, NULL);
  printf("\n");
  // CHECK: integer is sharding: 0
  printf("integer is sharding: %d\n",
         distAttributeIsASharding(mlirIntegerAttrGet(
             mlirIntegerTypeGet(ctx, 32), 7)));

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
