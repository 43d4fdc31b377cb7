//===- WorkDir.cpp - The files of a dist-run work directory ---------------===//

#include "dist/Tools/DistRun/WorkDir.h"


#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstring>

using namespace mlir;
using namespace mlir::dist;
using namespace mlir::dist::run;

std::string WorkDir::runName(int run) {
  if (run == kSerialRun)
    return "serial";
  if (run == kReferenceRun)
    return "reference";
  if (run == kPerturbedRun)
    return "perturbed";
  if (run == kPerturbedReferenceRun)
    return "perturbed-reference";
  return "rank" + std::to_string(run);
}

std::string WorkDir::program(int run) const {
  if (run == kPerturbedRun)
    run = kSerialRun;
  if (run == kPerturbedReferenceRun)
    run = kReferenceRun;
  return path + "/" + (run < 0 ? runName(run) : "partitioned") + ".mlir";
}

std::string WorkDir::arg(int64_t index, int run) const {
  bool ownInputs = run == kReferenceRun || run == kPerturbedRun ||
                   run == kPerturbedReferenceRun;
  return path + "/arg" + std::to_string(index) +
         (ownInputs ? "." + runName(run) : "") + ".bin";
}

std::string WorkDir::result(int64_t index, int step, int run) const {
  return path + "/result" + std::to_string(index) + ".step" +
         std::to_string(step) + "." + runName(run) + ".bin";
}

std::string WorkDir::block(int64_t index, int run) const {
  return path + "/arg" + std::to_string(index) + "." + runName(run) + ".bin";
}

std::string WorkDir::times(int run) const {
  return path + "/times." + runName(run) + ".txt";
}

static llvm::Error writeOutput(StringRef path,
                               function_ref<void(raw_ostream &)> write) {
  // No MLIR library here: dist-step links this file without one.
  std::error_code ec;
  llvm::ToolOutputFile file(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError("cannot open " + path + ": " +
                                   ec.message());
  write(file.os());
  file.keep();
  return llvm::Error::success();
}

llvm::Error run::writeArray(StringRef path, const hostdata::HostArray &array) {
  return writeOutput(path, [&](raw_ostream &os) {
    os.write(array.data(), array.numBytes());
  });
}

llvm::Error run::readArray(StringRef path, hostdata::HostArray &array) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return llvm::createStringError("cannot read " + path + ": " +
                                   buffer.getError().message());
  if ((int64_t)(*buffer)->getBufferSize() != array.numBytes())
    return llvm::createStringError(
        path + " has " + Twine((*buffer)->getBufferSize()) +
        " bytes, expected " + Twine(array.numBytes()));
  std::memcpy(array.data(), (*buffer)->getBufferStart(), array.numBytes());
  return llvm::Error::success();
}

llvm::Error run::writeArrays(StringRef path,
                             ArrayRef<hostdata::HostArray> arrays) {
  return writeOutput(path, [&](raw_ostream &os) {
    for (const hostdata::HostArray &array : arrays)
      os.write(array.data(), array.numBytes());
  });
}

llvm::Error run::readArrays(StringRef path, const hostdata::HostArray &like,
                            std::vector<hostdata::HostArray> &arrays) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return llvm::createStringError("cannot read " + path + ": " +
                                   buffer.getError().message());
  int64_t size = (*buffer)->getBufferSize(), each = like.numBytes();
  arrays.clear();
  if (each == 0 && size == 0) {
    arrays.push_back(like);
    return llvm::Error::success();
  }
  if (each == 0 || size == 0 || size % each != 0)
    return llvm::createStringError(
        path + " has " + Twine(size) + " bytes, expected a multiple of " +
        Twine(each) + " (one or more values of the argument)");
  for (int64_t offset = 0; offset < size; offset += each) {
    arrays.push_back(like);
    std::memcpy(arrays.back().data(), (*buffer)->getBufferStart() + offset,
                each);
  }
  return llvm::Error::success();
}

llvm::Error run::writeTimes(StringRef path, ArrayRef<double> seconds) {
  return writeOutput(path, [&](raw_ostream &os) {
    for (double s : seconds)
      os << llvm::formatv("{0:e9}\n", s);
  });
}

std::vector<double> run::readTimes(StringRef path) {
  std::vector<double> times;
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return times;
  SmallVector<StringRef> lines;
  (*buffer)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines) {
    double value;
    if (!line.trim().getAsDouble(value))
      times.push_back(value);
  }
  return times;
}
