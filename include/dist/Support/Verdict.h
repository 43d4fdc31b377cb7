//===- Verdict.h - Whether a distributed result matches ---------*- C++ -*-===//
//
// The two ways dist-run judges a distributed result: elementwise against the
// serial run (|d - s| <= atol + rtol * |s|), and against a reference
// computed in higher precision, which models that a distributed program sums
// in another order than the serial one (see judgeAgainstReference). Plain
// C++ on HostArrays.
//
//===----------------------------------------------------------------------===//

#ifndef DIST_SUPPORT_VERDICT_H
#define DIST_SUPPORT_VERDICT_H

#include "dist/Support/HostArray.h"

namespace hostdata {

struct Tolerance {
  double rtol = 1e-4;
  double atol = 1e-5;
};

/// |actual - expected| <= atol + rtol * |expected|; NaN matches NaN and an
/// infinity the same infinity.
bool withinTolerance(double expected, double actual, const Tolerance &tol);

struct ElementwiseResult {
  double maxAbs = 0, maxRel = 0;
  /// Elements outside the tolerance.
  int64_t mismatches = 0;
};

/// Compares `actual` with `expected` (same shape) element by element.
ElementwiseResult compareElementwise(const HostArray &expected,
                                     const HostArray &actual,
                                     const Tolerance &tol);

/// The reference rule. With `ref` the result of the program evaluated in
/// higher precision, `s` the serial run's and `d` the distributed run's
/// (every replica), over the elements where the serial run is finite:
///
///   serial error       E_s = max |s - ref|
///   distributed error  E_d = max |d - ref|
///   magnitude          M   = max |ref|
///   second sample      E_p = max |p - ref_p| (when given: `p` the serial
///                                              program and `ref_p` the
///                                              reference on inputs moved by
///                                              one ulp)
///   PASS  iff  E_d <= max(serialFactor * max(E_s, E_p), roundoffFactor * u * M)
///
/// and the distributed run has NaN and infinities exactly where the serial
/// run has them. u is the unit roundoff of the result's element type (or
/// the rule's, when coarser). The
/// first term accepts a distributed result as accurate as the serial one up
/// to a small factor: summing in another order changes which rounding errors
/// are made, not their size. One serial run is one sample of those errors,
/// and a lucky one where a result cancels to almost nothing (an Adam update
/// of a near-zero gradient sum): the serial program on inputs moved by one
/// ulp, whose roundings all fall differently, judged against the reference
/// on the same moved inputs, is a second sample (of rounding only: what the
/// move itself changes, as a floor of an integral input, is in both). The second
/// term accepts the last bits of results that the serial run happens to
/// compute exactly. A wrong value (a corrupted block, a missing reduction) is
/// off by far more than either.
struct ReferenceRule {
  double serialFactor = 4;
  double roundoffFactor = 32;
  /// u when the distributed run computes more coarsely than the result's
  /// type (f32 products on TF32 tensor cores: 2^-11); 0: the type's own.
  double roundoff = 0;
};

/// TF32's unit roundoff (10 stored significand bits): what f32 products on
/// tensor cores keep of their inputs.
constexpr double kTf32UnitRoundoff = 1.0 / 2048;

/// The rule for a result of type `dtype` of a run whose f32 products may
/// round their inputs to TF32 (the f32 results take TF32's roundoff).
ReferenceRule tf32ProductsRule(DType dtype);

struct ReferenceResult {
  double distributedError = 0;
  double serialError = 0;
  /// E_p: the perturbed serial run's error (0 without one).
  double perturbedError = 0;
  double magnitude = 0;
  double allowed = 0;
  /// Elements where the distributed run has a NaN or an infinity that the
  /// serial run does not have, or the reverse.
  int64_t specialMismatches = 0;
  bool pass = false;
};

/// The serial program and the reference on inputs moved by one ulp.
struct PerturbedSample {
  HostArray serial;
  HostArray reference;
};

/// Judges `distributed` (one array per replica) against `reference`, with
/// `serial` and, if given, `perturbed` as the yardstick. All arrays have one
/// shape; `serial` gives the element type whose unit roundoff is used.
ReferenceResult judgeAgainstReference(const HostArray &reference,
                                      const HostArray &serial,
                                      const std::vector<HostArray> &distributed,
                                      const PerturbedSample *perturbed = nullptr,
                                      const ReferenceRule &rule = {});

/// `input` with every float element moved by one ulp of its own type (up or
/// down by a fixed pseudo-random sign per element, the same for every call;
/// zeros stay). Integers are returned unchanged.
HostArray perturbByUlp(const HostArray &input);

} // namespace hostdata

#endif // DIST_SUPPORT_VERDICT_H
