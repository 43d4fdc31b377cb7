/*===- dist-c/Dialects.h - C API for the dist dialect -------------*- C -*-===*/

#ifndef DIST_C_DIALECTS_H
#define DIST_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Dist, dist);

/// Adds the dist dialect and dist's extensions (the sharding rules it attaches
/// to upstream ops) to `registry`. The dialect handle alone registers only the
/// dialect.
MLIR_CAPI_EXPORTED void distRegisterAllDialects(MlirDialectRegistry registry);

/// Registers dist's passes and pipelines with the global pass registry.
MLIR_CAPI_EXPORTED void distRegisterPasses(void);

/// True if `attr` is a #dist.sharding.
MLIR_CAPI_EXPORTED bool distAttributeIsASharding(MlirAttribute attr);

#ifdef __cplusplus
}
#endif

#endif /* DIST_C_DIALECTS_H */
