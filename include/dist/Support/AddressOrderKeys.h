//===- AddressOrderKeys.h - Hash maps keyed by IR in address order -*- C++ -*-===//
//
// DenseMap hashes pointers by mixing their bits, which scatters the ops and
// values of a program over the whole table. The passes visit the IR in
// program order, and ops made in program order sit at increasing addresses:
// hashing by address alone (without its low, always-zero bits) makes those
// visits walk the table in order. At tens of thousands of ops the tables no
// longer fit in cache and the scattered probes, not the work, set the pace.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_SUPPORT_ADDRESSORDERKEYS_H
#define DIST_SUPPORT_ADDRESSORDERKEYS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <cstdint>

namespace mlir::dist {

/// Hashes `Operation *` by address.
struct OpAddressInfo : llvm::DenseMapInfo<Operation *> {
  static unsigned getHashValue(const Operation *op) {
    return static_cast<unsigned>(reinterpret_cast<uintptr_t>(op) >> 4);
  }
};

/// Hashes `Value` by the address of its implementation (results live in
/// their op, block arguments in their block).
struct ValueAddressInfo : llvm::DenseMapInfo<Value> {
  static unsigned getHashValue(Value value) {
    return static_cast<unsigned>(
        reinterpret_cast<uintptr_t>(value.getAsOpaquePointer()) >> 3);
  }
};

template <typename T>
using OpMap = llvm::DenseMap<Operation *, T, OpAddressInfo>;
using OpSet = llvm::DenseSet<Operation *, OpAddressInfo>;
template <typename T>
using ValueMap = llvm::DenseMap<Value, T, ValueAddressInfo>;
using ValueSet = llvm::DenseSet<Value, ValueAddressInfo>;

} // namespace mlir::dist

#endif // DIST_SUPPORT_ADDRESSORDERKEYS_H
