//===- ShardingRuleInterface.h - Per-op sharding rules ----------*- C++ -*-===//

#ifndef DIST_INTERFACES_SHARDINGRULEINTERFACE_H
#define DIST_INTERFACES_SHARDINGRULEINTERFACE_H

#include "dist/Interfaces/ShardingRule.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OpDefinition.h"

#include "dist/Interfaces/ShardingRuleInterface.h.inc"

#endif // DIST_INTERFACES_SHARDINGRULEINTERFACE_H
