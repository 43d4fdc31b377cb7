//===- InitAllDist.h - Register dist's dialects and passes ------*- C++ -*-===//

#ifndef DIST_INITALLDIST_H
#define DIST_INITALLDIST_H

namespace mlir {
class DialectRegistry;
namespace dist {

/// Adds the dist dialect and the extensions (per-op sharding rules) that
/// dist attaches to other dialects.
void registerAllDistDialects(DialectRegistry &registry);

/// Registers dist's passes and pipelines with the global pass registry.
void registerAllDistPasses();

} // namespace dist
} // namespace mlir

#endif // DIST_INITALLDIST_H
