//===- MeshMathTest.cpp - Rank, coordinate and shard arithmetic -----------===//

#include "dist/Support/MeshMath.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace meshmath;

namespace {

// Tests that linearize and delinearize are inverse, row-major.
TEST(MeshMath, LinearizeDelinearizeRoundTrip) {
  Shape mesh = {2, 3, 4};
  EXPECT_EQ(numDevices(mesh), 24);
  for (int64_t rank = 0; rank < 24; ++rank)
    EXPECT_EQ(linearize(delinearize(rank, mesh), mesh), rank);
  EXPECT_EQ(delinearize(23, mesh), (Shape{1, 2, 3}));
  EXPECT_EQ(delinearize(5, mesh), (Shape{0, 1, 1}));
  EXPECT_EQ(linearize({1, 0, 2}, mesh), 14);
}

// Tests that a 0-d mesh is a single device.
TEST(MeshMath, EmptyMeshIsOneDevice) {
  EXPECT_EQ(numDevices({}), 1);
  EXPECT_EQ(linearize({}, {}), 0);
  EXPECT_TRUE(delinearize(0, {}).empty());
  EXPECT_EQ(groupRanks(0, {}, {}), (std::vector<int64_t>{0}));
}

// Tests the groups of a 2x4 mesh along each axis and both.
TEST(MeshMath, GroupsOf2x4) {
  Shape mesh = {2, 4};
  EXPECT_EQ(groupSize(mesh, {1}), 4);
  EXPECT_EQ(groupSize(mesh, {0, 1}), 8);
  EXPECT_EQ(groupSize(mesh, {}), 1);
  // Rank 6 = (1, 2).
  EXPECT_EQ(groupRanks(6, mesh, {1}), (std::vector<int64_t>{4, 5, 6, 7}));
  EXPECT_EQ(groupRanks(6, mesh, {0}), (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(groupRanks(6, mesh, {}), (std::vector<int64_t>{6}));
  // Axis order in the group decides the numbering inside it.
  EXPECT_EQ(groupRanks(6, mesh, {1, 0}),
            (std::vector<int64_t>{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_EQ(indexInGroup(delinearize(6, mesh), mesh, {1, 0}), 5);
  EXPECT_EQ(indexInGroup(delinearize(6, mesh), mesh, {0, 1}), 6);
  EXPECT_EQ(groupColor(6, mesh, {1}), 1);
  EXPECT_EQ(groupColor(6, mesh, {0}), 2);
}

// Tests that the groups along some axes partition the mesh and agree with
// groupRanks and indexInGroup for every member.
TEST(MeshMath, GroupsPartitionTheMesh) {
  Shape mesh = {2, 3, 2};
  for (AxisList axes : {AxisList{0}, AxisList{1}, AxisList{2}, AxisList{0, 2},
                        AxisList{2, 0}, AxisList{0, 1, 2}}) {
    std::vector<std::vector<int64_t>> groups = allGroups(mesh, axes);
    std::vector<int64_t> seen;
    for (size_t color = 0; color < groups.size(); ++color) {
      const std::vector<int64_t> &group = groups[color];
      EXPECT_EQ((int64_t)group.size(), groupSize(mesh, axes));
      for (size_t i = 0; i < group.size(); ++i) {
        EXPECT_EQ(groupColor(group[i], mesh, axes), (int64_t)color);
        EXPECT_EQ(groupRanks(group[i], mesh, axes), group);
        EXPECT_EQ(indexInGroup(delinearize(group[i], mesh), mesh, axes),
                  (int64_t)i);
        seen.push_back(group[i]);
      }
    }
    std::sort(seen.begin(), seen.end());
    for (int64_t rank = 0; rank < 12; ++rank)
      EXPECT_EQ(seen[rank], rank);
  }
}

// Tests local shapes, padded blocks of uneven splits included.
TEST(MeshMath, LocalShape) {
  Shape mesh = {2, 4};
  EXPECT_EQ(*localShape({8, 16}, {{0}, {1}}, mesh), (Shape{4, 4}));
  EXPECT_EQ(*localShape({8, 16}, {{0, 1}, {}}, mesh), (Shape{1, 16}));
  EXPECT_EQ(*localShape({8, 16}, {{}, {}}, mesh), (Shape{8, 16}));
  // 10 rows in 4 blocks of 3: the last block holds 1 row and 2 of padding.
  EXPECT_EQ(*localShape({10, 16}, {{1}, {}}, mesh), (Shape{3, 16}));
  EXPECT_EQ(localOffsets({10, 16}, {{1}, {}}, mesh, {0, 3}), (Shape{9, 0}));
  // 3 rows in 8 blocks of 1: ranks 3 to 7 hold padding only.
  EXPECT_EQ(*localShape({3}, {{0, 1}}, mesh), (Shape{1}));
  // Dynamic dims stay dynamic.
  EXPECT_EQ(*localShape({-1, 16}, {{1}, {0}}, mesh), (Shape{-1, 8}));
  EXPECT_EQ(localDimSize(10, 4), 3);
  EXPECT_EQ(localDimSize(12, 4), 3);
  EXPECT_EQ(localDimSize(12, 0), std::nullopt);
  EXPECT_TRUE(isPaddedSplit(10, 4));
  EXPECT_FALSE(isPaddedSplit(12, 4));
  EXPECT_FALSE(isPaddedSplit(-1, 4));
}

// Tests that the blocks of all ranks tile the global tensor exactly once.
TEST(MeshMath, LocalOffsetsTileTheTensor) {
  Shape mesh = {2, 4};
  Shape global = {8, 16};
  std::vector<AxisList> dims = {{1, 0}, {}};
  std::vector<int> covered(8, 0);
  for (int64_t rank = 0; rank < 8; ++rank) {
    Shape offsets = localOffsets(global, dims, mesh, delinearize(rank, mesh));
    EXPECT_EQ(offsets[1], 0);
    ++covered[offsets[0]];
  }
  for (int count : covered)
    EXPECT_EQ(count, 1);
  // Rank 6 = (1, 2): index in group [mp, dp] = 2 * 2 + 1 = 5.
  EXPECT_EQ(localOffsets(global, dims, mesh, {1, 2}), (Shape{5, 0}));
}

} // namespace
