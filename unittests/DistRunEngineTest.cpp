//===- DistRunEngineTest.cpp - dist-run's programs and their execution ----===//

#include "dist/InitAllDist.h"
#include "dist/Tools/DistRun/Execution.h"
#include "dist/Tools/DistRun/Program.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"

#include "llvm/Support/TargetSelect.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::dist;
using hostdata::DType;
using hostdata::HostArray;

namespace {

class DistRunEngineTest : public ::testing::Test {
protected:
  DistRunEngineTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    registerAllDistDialects(registry);
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(StringRef text) {
    return parseSourceString<ModuleOp>(text, &context);
  }

  /// The arguments of the training-loop tests: w = 0, 1, 2, 3, x = 1, 1,
  /// 1, 1 and a counter n = 0.
  static std::vector<run::HostValue> makeLoopArguments() {
    HostArray w(DType::F32, {4}), x(DType::F32, {4}), n(DType::I64, {});
    for (int i = 0; i < 4; ++i) {
      w.set(i, i);
      x.set(i, 1);
    }
    return {{w, false}, {x, false}, {n, true}};
  }

  /// Sets result 0 (w's next value) to 100 at index 0 on the host, feeds
  /// it back and calls `step` again: the call must take the host's value.
  static void expectHostChangeFedBack(run::CompiledProgram &step,
                                      run::HostValue &next, double last) {
    next.array.set(0, 100);
    step.setResult(0, next.array);
    step.feedResultToArgument(0, 0);
    step.invoke();
    step.getResult(0, next.array);
    EXPECT_EQ(next.array.get(0), 101);
    EXPECT_EQ(next.array.get(3), last);
  }

  std::string print(Operation *op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    return text;
  }

  MLIRContext context;
};

// Tests that widening rewrites types, constants and block arguments to f64,
// removes the casts that become no-ops, and keeps integers.
TEST_F(DistRunEngineTest, WidenToF64) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%x: tensor<4xf32>, %h: f16, %n: i32) -> (tensor<4xf32>, i32) {
      %c = arith.constant dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>
      %s = arith.constant 0.5 : f32
      %hx = arith.extf %h : f16 to f32
      %e = tensor.empty() : tensor<4xf32>
      %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                           iterator_types = ["parallel"]}
          ins(%x, %c : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
      ^bb0(%a: f32, %b: f32, %o: f32):
        %m = arith.mulf %a, %b : f32
        %t = arith.addf %m, %hx : f32
        %u = arith.mulf %t, %s : f32
        linalg.yield %u : f32
      } -> tensor<4xf32>
      return %r, %n : tensor<4xf32>, i32
    })mlir");
  ASSERT_TRUE(module);
  std::string reason;
  FailureOr<bool> widened = run::widenFloatsToF64(*module, reason);
  ASSERT_TRUE(succeeded(widened)) << reason;
  EXPECT_TRUE(*widened);
  std::string text = print(*module);
  EXPECT_EQ(text.find("f32"), std::string::npos) << text;
  EXPECT_EQ(text.find("f16"), std::string::npos) << text;
  EXPECT_EQ(text.find("arith.extf"), std::string::npos) << text;
  EXPECT_NE(text.find("(%arg0: tensor<4xf64>, %arg1: f64, %arg2: i32) -> (tensor<4xf64>, i32)"),
            std::string::npos)
      << text;
  // 0.1 in f32 is 0.100000001490116..., converted exactly.
  EXPECT_NE(text.find("0.10000000149011612"), std::string::npos) << text;
  EXPECT_NE(text.find("5.000000e-01 : f64"), std::string::npos) << text;
}

// Tests that what has no widened meaning is refused with a reason.
TEST_F(DistRunEngineTest, WidenRefuses) {
  std::string reason;
  OwningOpRef<ModuleOp> bitcast = parse(R"mlir(
    func.func @f(%x: f32) -> i32 {
      %b = arith.bitcast %x : f32 to i32
      return %b : i32
    })mlir");
  EXPECT_TRUE(failed(run::widenFloatsToF64(*bitcast, reason)));
  EXPECT_EQ(reason, "'arith.bitcast' reinterprets the bits of a float");
  OwningOpRef<ModuleOp> external = parse(R"mlir(
    func.func private @ext(f32) -> f32
    func.func @f(%x: f32) -> f32 {
      %y = func.call @ext(%x) : (f32) -> f32
      return %y : f32
    })mlir");
  EXPECT_TRUE(failed(run::widenFloatsToF64(*external, reason)));
  EXPECT_EQ(reason, "the external function @ext takes or returns narrow floats");
  OwningOpRef<ModuleOp> integers = parse(R"mlir(
    func.func @f(%x: i32) -> i32 {
      return %x : i32
    })mlir");
  FailureOr<bool> widened = run::widenFloatsToF64(*integers, reason);
  ASSERT_TRUE(succeeded(widened));
  EXPECT_FALSE(*widened);
}

// Tests a program JIT-compiled once and called twice through the run
// wrapper: tensors of rank 2 and 0, a scalar argument, a scalar result.
TEST_F(DistRunEngineTest, CompileAndCall) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%x: tensor<2x3xf32>, %s: f32) -> (tensor<2x3xf32>, i64) {
      %e = tensor.empty() : tensor<2x3xf32>
      %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                           iterator_types = ["parallel", "parallel"]}
          ins(%x : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
      ^bb0(%a: f32, %o: f32):
        %m = arith.mulf %a, %s : f32
        linalg.yield %m : f32
      } -> tensor<2x3xf32>
      %n = arith.constant 42 : i64
      return %r, %n : tensor<2x3xf32>, i64
    })mlir");
  ASSERT_TRUE(module);
  func::FuncOp entry = run::findEntry(*module, "");
  ASSERT_TRUE(entry);
  run::addRunWrapper(*module, entry);
  EXPECT_EQ(run::getWrappedEntry(*module), entry);
  std::string error;
  auto program = run::CompiledProgram::compile(*module, {}, error);
  ASSERT_TRUE(succeeded(program)) << error;

  HostArray x(DType::F32, {2, 3});
  for (int i = 0; i < 6; ++i)
    x.set(i, i);
  HostArray s(DType::F32, {});
  std::vector<run::HostValue> args = {{x, false}, {s, true}};
  std::vector<run::HostValue> results = {{HostArray(DType::F32, {2, 3}), false},
                                         {HostArray(DType::I64, {}), false}};
  for (double factor : {2.0, -0.5}) {
    args[1].array.set(0, factor);
    ASSERT_TRUE(succeeded((*program)->call(args, results, error))) << error;
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(results[0].array.get(i), i * factor);
    EXPECT_EQ(results[1].array.getInt(0), 42);
  }
}

// Tests a training loop's calls on bound buffers: a result fed back to its
// argument in place (tensor and scalar), an argument given again, a result
// overwritten before it is fed back.
TEST_F(DistRunEngineTest, FeedResultsBack) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%w: tensor<4xf32>, %x: tensor<4xf32>, %n: i64) -> (tensor<4xf32>, i64) {
      %e = tensor.empty() : tensor<4xf32>
      %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                           iterator_types = ["parallel"]}
          ins(%w, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
      ^bb0(%a: f32, %b: f32, %o: f32):
        %m = arith.addf %a, %b : f32
        linalg.yield %m : f32
      } -> tensor<4xf32>
      %one = arith.constant 1 : i64
      %m = arith.addi %n, %one : i64
      return %r, %m : tensor<4xf32>, i64
    })mlir");
  ASSERT_TRUE(module);
  func::FuncOp entry = run::findEntry(*module, "");
  ASSERT_TRUE(entry);
  run::addRunWrapper(*module, entry);
  std::string error;
  auto program = run::CompiledProgram::compile(*module, {}, error);
  ASSERT_TRUE(succeeded(program)) << error;
  run::CompiledProgram &step = **program;

  std::vector<run::HostValue> args = makeLoopArguments();
  std::vector<run::HostValue> results = {{HostArray(DType::F32, {4}), false},
                                         {HostArray(DType::I64, {}), false}};
  ASSERT_TRUE(succeeded(step.bind(args, results, error))) << error;
  for (auto [i, arg] : llvm::enumerate(args))
    step.setArgument(i, arg);
  for (int call = 1; call <= 3; ++call) {
    step.invoke();
    step.feedResultToArgument(0, 0);
    step.feedResultToArgument(1, 2);
    step.setArgument(1, args[1]);
  }
  // Three calls added x three times; the counter counted them.
  step.invoke();
  step.getResult(0, results[0].array);
  step.getResult(1, results[1].array);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(results[0].array.get(i), i + 4);
  EXPECT_EQ(results[1].array.getInt(0), 4);
  // A result changed on the host is what the next call takes.
  expectHostChangeFedBack(step, results[0], 8);
}

// Tests results kept in their arguments' buffers: a next value of its
// argument's type (dist.updates) is written into the argument, which the
// lowering updates in place; a scalar next value and a result that reads
// the old value after the update is made keep their own buffers.
TEST_F(DistRunEngineTest, KeepResultsInArguments) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%w: tensor<4xf32>, %x: tensor<4xf32>, %n: i64)
        -> (tensor<4xf32> {dist.updates = 0 : i64}, i64 {dist.updates = 2 : i64},
            tensor<4xf32>) {
      %e = tensor.empty() : tensor<4xf32>
      %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                           iterator_types = ["parallel"]}
          ins(%w, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
      ^bb0(%a: f32, %b: f32, %o: f32):
        %m = arith.addf %a, %b : f32
        linalg.yield %m : f32
      } -> tensor<4xf32>
      %old = arith.mulf %w, %w : tensor<4xf32>
      %one = arith.constant 1 : i64
      %m = arith.addi %n, %one : i64
      return %r, %m, %old : tensor<4xf32>, i64, tensor<4xf32>
    })mlir");
  ASSERT_TRUE(module);
  func::FuncOp entry = run::findEntry(*module, "");
  ASSERT_TRUE(entry);
  EXPECT_EQ(run::getResultsKeptInArguments(*module, entry),
            SmallVector<int64_t>({0, -1, -1}));
  run::addRunWrapper(*module, entry);
  EXPECT_EQ(run::getWrappedEntry(*module), entry);
  EXPECT_EQ(run::getWrapperResultsInArguments(*module),
            SmallVector<int64_t>({0, -1, -1}));
  std::string error;
  auto program = run::CompiledProgram::compile(*module, {}, error);
  ASSERT_TRUE(succeeded(program)) << error;
  run::CompiledProgram &step = **program;

  std::vector<run::HostValue> args = makeLoopArguments();
  std::vector<run::HostValue> results = {{HostArray(DType::F32, {4}), false},
                                         {HostArray(DType::I64, {}), false},
                                         {HostArray(DType::F32, {4}), false}};
  ASSERT_TRUE(succeeded(step.bind(args, results, error))) << error;
  for (auto [i, arg] : llvm::enumerate(args))
    step.setArgument(i, arg);
  for (int call = 1; call <= 3; ++call) {
    step.invoke();
    step.feedResultToArgument(0, 0);
    step.feedResultToArgument(1, 2);
  }
  // w went i -> i + 3; the third call squared the w it read (i + 2).
  for (auto [i, result] : llvm::enumerate(results))
    step.getResult(i, result.array);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(results[0].array.get(i), i + 3);
    EXPECT_EQ(results[2].array.get(i), (i + 2) * (i + 2));
  }
  EXPECT_EQ(results[1].array.getInt(0), 3);
  // A kept result changed on the host is what the next call takes.
  expectHostChangeFedBack(step, results[0], 7);
}

} // namespace
