//===- BufferizableOpInterfaceImpl.h - Bufferizing dist ops -----*- C++ -*-===//
//
// BufferizableOpInterface external models for dist's collectives: one-shot
// bufferization turns each tensor collective into its `dist.buffer.*` form.
// all_reduce, reduce and broadcast update their operand's buffer in place
// (bufferization copies it first only when the tensor is still read later);
// the other collectives write a freshly allocated buffer.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_DIALECT_DIST_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
#define DIST_DIALECT_DIST_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
namespace dist {
void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);
} // namespace dist
} // namespace mlir

#endif // DIST_DIALECT_DIST_TRANSFORMS_BUFFERIZABLEOPINTERFACEIMPL_H
