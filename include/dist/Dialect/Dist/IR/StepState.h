//===- StepState.h - The state a step function updates ----------*- C++ -*-===//
//
// A function that computes one step of a loop (a training step) says which of
// its results are the next values of which arguments: `dist.updates = <arg
// index>` on a result, or a result and an argument with the same
// `dist.name`. The dialect verifies the marking; drivers (dist-run --steps)
// and passes ask this one function.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_DIALECT_DIST_IR_STEPSTATE_H
#define DIST_DIALECT_DIST_IR_STEPSTATE_H

#include "mlir/Interfaces/FunctionInterfaces.h"

#include <optional>

namespace mlir::dist {

/// The argument whose next value result `result` of `fn` is: the one its
/// `dist.updates` names, or else the argument with the result's `dist.name`;
/// std::nullopt if none (or an index out of range).
std::optional<unsigned> getUpdatedArgument(FunctionOpInterface fn,
                                           unsigned result);

} // namespace mlir::dist

#endif // DIST_DIALECT_DIST_IR_STEPSTATE_H
