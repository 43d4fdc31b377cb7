//===- ShardingUtilsTest.cpp - Shardings against meshes and types ---------===//

#include "dist/Dialect/Dist/IR/DistOps.h"
#include "dist/Dialect/Dist/IR/ShardingUtils.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::dist;

namespace {

class ShardingUtilsTest : public ::testing::Test {
protected:
  ShardingUtilsTest() {
    context.loadDialect<DistDialect>();
    module = parseSourceString<ModuleOp>("dist.mesh @mesh_2x4 [dp = 2, mp = 4]",
                                         &context);
    mesh = cast<MeshOp>(&module->getBody()->front());
  }

  ShardingAttr parseSharding(StringRef text) {
    return cast<ShardingAttr>(parseAttribute(text, &context));
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  MeshOp mesh;
};

// Tests the local type of split, multi-axis and replicated shardings.
TEST_F(ShardingUtilsTest, LocalType) {
  auto type = RankedTensorType::get({8, 16}, Float32Type::get(&context));
  auto local = [&](StringRef sharding) {
    return getLocalType(type, parseSharding(sharding), mesh);
  };
  EXPECT_EQ(*local("#dist.sharding<@mesh_2x4, [{dp}, {mp}]>"),
            RankedTensorType::get({4, 4}, Float32Type::get(&context)));
  EXPECT_EQ(*local("#dist.sharding<@mesh_2x4, [{}, {mp, dp}]>"),
            RankedTensorType::get({8, 2}, Float32Type::get(&context)));
  EXPECT_EQ(*local("#dist.sharding<@mesh_2x4, [{}, {}], partial = sum{mp}>"),
            type);
  // 4 rows split 8 ways: blocks of one row, four of them padding.
  auto tall = RankedTensorType::get({4, 16}, Float32Type::get(&context));
  EXPECT_EQ(*getLocalType(
                tall, parseSharding("#dist.sharding<@mesh_2x4, [{dp, mp}, {}]>"), mesh),
            RankedTensorType::get({1, 16}, Float32Type::get(&context)));
  // 10 rows split 4 ways: blocks of 3.
  auto ten = RankedTensorType::get({10, 16}, Float32Type::get(&context));
  EXPECT_EQ(*getLocalType(
                ten, parseSharding("#dist.sharding<@mesh_2x4, [{mp}, {}]>"), mesh),
            RankedTensorType::get({3, 16}, Float32Type::get(&context)));
  // Rank mismatch fails instead of asserting.
  EXPECT_TRUE(failed(getLocalType(
      type, parseSharding("#dist.sharding<@mesh_2x4, [{dp}]>"), mesh)));
}

// Tests that getGlobalType inverts getLocalType.
TEST_F(ShardingUtilsTest, GlobalTypeInvertsLocalType) {
  auto type = RankedTensorType::get({8, 16, 4}, Float32Type::get(&context));
  ShardingAttr sharding =
      parseSharding("#dist.sharding<@mesh_2x4, [{mp}, {}, {dp}]>");
  RankedTensorType local = *getLocalType(type, sharding, mesh);
  EXPECT_EQ(local.getShape(), ArrayRef<int64_t>({2, 16, 2}));
  EXPECT_EQ(getGlobalType(local, sharding, mesh), type);
}

// Tests that verifySharding accepts an uneven split (padded blocks) and still
// names what is wrong with a bad one.
TEST_F(ShardingUtilsTest, VerifyAcceptsUnevenSplit) {
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto type = RankedTensorType::get({10, 16}, Float32Type::get(&context));
  auto verify = [&](StringRef sharding) {
    return verifySharding(parseSharding(sharding), type, mesh,
                          [&] { return emitError(UnknownLoc::get(&context)); });
  };
  EXPECT_TRUE(succeeded(verify("#dist.sharding<@mesh_2x4, [{mp}, {}]>")));
  EXPECT_TRUE(failed(verify("#dist.sharding<@mesh_2x4, [{mp}]>")));
  EXPECT_NE(message.find("sharding has 1 dims but the type"), std::string::npos)
      << message;
}

// Tests axis lookups and group sizes on the mesh op.
TEST_F(ShardingUtilsTest, MeshQueries) {
  EXPECT_EQ(mesh.getNumDevices(), 8);
  Builder b(&context);
  EXPECT_EQ(mesh.getAxisIndex(b.getStringAttr("mp")), 1);
  EXPECT_EQ(mesh.getAxisIndex(b.getStringAttr("pp")), std::nullopt);
  EXPECT_EQ(mesh.getGroupSize({b.getStringAttr("dp"), b.getStringAttr("mp")}), 8);
  ShardingAttr sharding =
      parseSharding("#dist.sharding<@mesh_2x4, [{mp, dp}, {}]>");
  std::vector<meshmath::AxisList> axes = getDimAxisIndices(sharding, mesh);
  EXPECT_EQ(axes[0], (meshmath::AxisList{1, 0}));
  EXPECT_TRUE(axes[1].empty());
}

// Tests the conversion of a sharding to the plain layout of dist/Support,
// and that the host-side block of a rank has the local type's shape.
TEST_F(ShardingUtilsTest, Layout) {
  ShardingAttr sharding = parseSharding(
      "#dist.sharding<@mesh_2x4, [{}, {mp}], partial = max{dp}>");
  meshmath::Layout layout = getLayout(sharding, mesh);
  EXPECT_EQ(layout.dims,
            (std::vector<meshmath::AxisList>{{}, meshmath::AxisList{1}}));
  EXPECT_EQ(layout.partial, (meshmath::AxisList{0}));
  EXPECT_EQ(layout.partialKind, (int)ReductionKind::max);
  auto type = RankedTensorType::get({8, 16}, Float32Type::get(&context));
  std::optional<meshmath::Shape> local =
      meshmath::localShape({8, 16}, layout.dims, getMeshShape(mesh));
  ASSERT_TRUE(local);
  EXPECT_EQ(ArrayRef<int64_t>(*local),
            getLocalType(type, sharding, mesh)->getShape());
}

} // namespace
