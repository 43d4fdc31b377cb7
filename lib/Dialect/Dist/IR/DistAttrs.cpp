//===- DistAttrs.cpp - dist dialect attributes ----------------------------===//

#include "dist/Dialect/Dist/IR/DistAttrs.h"
#include "dist/Dialect/Dist/IR/DistDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::dist;

#include "dist/Dialect/Dist/IR/DistEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dist/Dialect/Dist/IR/DistAttrs.cpp.inc"

void DistDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dist/Dialect/Dist/IR/DistAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Axis lists: `{a, b}`
//===----------------------------------------------------------------------===//

static ParseResult parseAxisNames(AsmParser &parser,
                                  SmallVectorImpl<StringAttr> &axes) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Braces, [&]() -> ParseResult {
        std::string name;
        if (parser.parseKeywordOrString(&name))
          return failure();
        axes.push_back(parser.getBuilder().getStringAttr(name));
        return success();
      });
}

static void printAxisNames(AsmPrinter &printer, ArrayRef<StringAttr> axes) {
  printer << '{';
  llvm::interleaveComma(axes, printer, [&](StringAttr axis) {
    printer.printKeywordOrString(axis.getValue());
  });
  printer << '}';
}

/// Checks that no axis is used twice; `describe(i)` says where the i-th axis
/// in `axes` is used ("dim 0", "the partial axes").
static LogicalResult
verifyAxesUsedOnce(function_ref<InFlightDiagnostic()> emitError,
                   ArrayRef<StringAttr> axes,
                   function_ref<std::string(size_t)> describe) {
  llvm::SmallDenseMap<StringAttr, size_t> firstUse;
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis.getValue().empty())
      return emitError() << "empty mesh axis name in " << describe(i);
    auto [it, inserted] = firstUse.try_emplace(axis, i);
    if (inserted)
      continue;
    std::string first = describe(it->second), second = describe(i);
    if (first == second)
      return emitError() << "mesh axis '" << axis.getValue()
                         << "' appears twice in " << first;
    return emitError() << "mesh axis '" << axis.getValue()
                       << "' is used twice: in " << first << " and in "
                       << second;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// DimShardingAttr
//===----------------------------------------------------------------------===//

// `{a, b}`, `{a} halo [1, 2]` or `{a} overlap 2`.
FailureOr<DimShardingAttr> DimShardingAttr::parseBody(AsmParser &parser) {
  SmallVector<StringAttr> axes;
  SMLoc loc = parser.getCurrentLocation();
  if (parseAxisNames(parser, axes))
    return failure();
  int64_t lo = 0, hi = 0, overlap = 0;
  // Both are parsed so that the verifier says why they do not go together.
  if (succeeded(parser.parseOptionalKeyword("halo")) &&
      (parser.parseLSquare() || parser.parseInteger(lo) ||
       parser.parseComma() || parser.parseInteger(hi) || parser.parseRSquare()))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("overlap")) &&
      parser.parseInteger(overlap))
    return failure();
  auto dim = DimShardingAttr::getChecked([&] { return parser.emitError(loc); },
                                         parser.getContext(), axes, lo, hi,
                                         overlap);
  if (!dim)
    return failure();
  return dim;
}

void DimShardingAttr::printBody(AsmPrinter &printer) const {
  printAxisNames(printer, getAxes());
  if (getHaloLo() || getHaloHi())
    printer << " halo [" << getHaloLo() << ", " << getHaloHi() << ']';
  if (getOverlap())
    printer << " overlap " << getOverlap();
}

Attribute DimShardingAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  FailureOr<DimShardingAttr> dim = parseBody(parser);
  if (failed(dim) || parser.parseGreater())
    return {};
  return *dim;
}

void DimShardingAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printBody(printer);
  printer << '>';
}

LogicalResult
DimShardingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        ArrayRef<StringAttr> axes, int64_t haloLo,
                        int64_t haloHi, int64_t overlap) {
  if (haloLo < 0 || haloHi < 0 || overlap < 0)
    return emitError() << "halo sizes and overlaps must be non-negative, got "
                       << "halo [" << haloLo << ", " << haloHi
                       << "] and overlap " << overlap;
  bool halo = haloLo || haloHi;
  if ((halo || overlap) && axes.empty())
    return emitError() << "a " << (halo ? "halo" : "overlap")
                       << " needs a split dim (no mesh axes are given)";
  if (halo && overlap)
    return emitError() << "a dim has a halo or an overlap, not both";
  return verifyAxesUsedOnce(emitError, axes,
                            [](size_t) { return std::string("one dim"); });
}

//===----------------------------------------------------------------------===//
// ShardingAttr
//===----------------------------------------------------------------------===//

bool ShardingAttr::hasHalos() const {
  return llvm::any_of(getDims(), [](DimShardingAttr d) { return d.hasHalo(); });
}

ShardingAttr ShardingAttr::withoutHalos() const {
  if (!hasHalos())
    return *this;
  SmallVector<DimShardingAttr> dims = llvm::map_to_vector(
      getDims(), [](DimShardingAttr d) { return d.withoutHalo(); });
  return get(getMesh(), dims, getPartialAxes(), getPartialKind(),
             getOwnerAxes(), getOwner());
}

bool ShardingAttr::isReplicated() const {
  return !isPartial() && !isOwned() &&
         llvm::none_of(getDims(), [](DimShardingAttr d) { return d.isSplit(); });
}

ShardingAttr ShardingAttr::get(MLIRContext *context, StringRef mesh,
                               ArrayRef<SmallVector<StringRef>> dims,
                               ArrayRef<StringRef> partialAxes,
                               ReductionKind partialKind) {
  auto toAttrs = [&](ArrayRef<StringRef> names) {
    return llvm::map_to_vector(names, [&](StringRef name) {
      return StringAttr::get(context, name);
    });
  };
  SmallVector<DimShardingAttr> dimAttrs = llvm::map_to_vector(
      dims, [&](const SmallVector<StringRef> &axes) {
        return DimShardingAttr::get(context, toAttrs(axes));
      });
  return get(context, FlatSymbolRefAttr::get(context, mesh), dimAttrs,
             toAttrs(partialAxes), partialKind, ArrayRef<StringAttr>(), 0);
}

// #dist.sharding<@mesh, [{a}, {}], partial = sum{b}, owner = 1 {c}>
Attribute ShardingAttr::parse(AsmParser &parser, Type) {
  FlatSymbolRefAttr mesh;
  SmallVector<DimShardingAttr> dims;
  SmallVector<StringAttr> partialAxes;
  ReductionKind partialKind = ReductionKind::sum;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseAttribute(mesh) || parser.parseComma())
    return {};
  if (parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            FailureOr<DimShardingAttr> dim = DimShardingAttr::parseBody(parser);
            if (failed(dim))
              return failure();
            dims.push_back(*dim);
            return success();
          }))
    return {};
  SmallVector<StringAttr> ownerAxes;
  int64_t owner = 0;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    if (key == "owner" && ownerAxes.empty()) {
      SMLoc ownerLoc = parser.getCurrentLocation();
      if (parser.parseInteger(owner) || parseAxisNames(parser, ownerAxes))
        return {};
      if (ownerAxes.empty()) {
        parser.emitError(ownerLoc) << "'owner' needs at least one mesh axis";
        return {};
      }
      continue;
    }
    if (key != "partial" || !partialAxes.empty() || !ownerAxes.empty()) {
      parser.emitError(keyLoc)
          << "expected 'partial = <kind> {axes}' and then 'owner = <index> "
             "{axes}', each at most once";
      return {};
    }
    std::string kindName;
    SMLoc kindLoc = parser.getCurrentLocation();
    if (parser.parseKeywordOrString(&kindName))
      return {};
    std::optional<ReductionKind> kind = symbolizeReductionKind(kindName);
    if (!kind) {
      parser.emitError(kindLoc) << "unknown reduction kind '" << kindName
                                << "'; expected sum, max, min, prod or avg";
      return {};
    }
    partialKind = *kind;
    if (parseAxisNames(parser, partialAxes))
      return {};
    if (partialAxes.empty()) {
      parser.emitError(kindLoc) << "'partial' needs at least one mesh axis";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return ShardingAttr::getChecked([&] { return parser.emitError(loc); },
                                  parser.getContext(), mesh, dims, partialAxes,
                                  partialKind, ownerAxes, owner);
}

void ShardingAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printAttributeWithoutType(getMesh());
  printer << ", [";
  llvm::interleaveComma(getDims(), printer,
                        [&](DimShardingAttr dim) { dim.printBody(printer); });
  printer << ']';
  if (isPartial()) {
    printer << ", partial = " << stringifyReductionKind(getPartialKind());
    printAxisNames(printer, getPartialAxes());
  }
  if (isOwned()) {
    printer << ", owner = " << getOwner() << ' ';
    printAxisNames(printer, getOwnerAxes());
  }
  printer << '>';
}

LogicalResult
ShardingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     FlatSymbolRefAttr mesh, ArrayRef<DimShardingAttr> dims,
                     ArrayRef<StringAttr> partialAxes,
                     ReductionKind partialKind, ArrayRef<StringAttr> ownerAxes,
                     int64_t owner) {
  if (!mesh)
    return emitError() << "sharding needs a mesh symbol";
  if (owner < 0)
    return emitError() << "owner " << owner << " is negative";
  if (owner != 0 && ownerAxes.empty())
    return emitError() << "owner " << owner << " is given without mesh axes";
  // Every axis, tagged with who uses it, to report double use precisely.
  SmallVector<StringAttr> axes;
  SmallVector<int64_t> users; // dim index, or -1 for partial
  for (auto [d, dim] : llvm::enumerate(dims)) {
    if (!dim)
      return emitError() << "dim " << d << " has no sharding";
    if (dim.hasHalo() && (!partialAxes.empty() || !ownerAxes.empty()))
      return emitError() << "dim " << d << " has a "
                         << (dim.getOverlap() ? "overlap" : "halo")
                         << ", which a partial or owned sharding cannot have";
    for (StringAttr axis : dim.getAxes()) {
      axes.push_back(axis);
      users.push_back(d);
    }
  }
  for (StringAttr axis : partialAxes) {
    axes.push_back(axis);
    users.push_back(-1);
  }
  for (StringAttr axis : ownerAxes) {
    axes.push_back(axis);
    users.push_back(-2);
  }
  return verifyAxesUsedOnce(emitError, axes, [&](size_t i) {
    if (users[i] == -2)
      return std::string("the owner axes");
    return users[i] < 0 ? std::string("the partial axes")
                        : "dim " + std::to_string(users[i]);
  });
}
