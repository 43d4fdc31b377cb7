//===- TestDistDialect.h - Ops for testing dist's error paths ---*- C++ -*-===//

#ifndef DIST_TEST_LIB_TESTDISTDIALECT_H
#define DIST_TEST_LIB_TESTDISTDIALECT_H

namespace mlir {
class DialectRegistry;
namespace dist::test {
/// Registers the `test_dist` dialect (test-only ops with broken rules).
void registerTestDistDialect(DialectRegistry &registry);
} // namespace dist::test
} // namespace mlir

#endif // DIST_TEST_LIB_TESTDISTDIALECT_H
