//===- Verdict.cpp - Whether a distributed result matches -----------------===//

#include "dist/Support/Verdict.h"

#include <algorithm>
#include <cmath>

namespace hostdata {

bool withinTolerance(double expected, double actual, const Tolerance &tol) {
  if (std::isnan(expected) || std::isnan(actual))
    return std::isnan(expected) && std::isnan(actual);
  if (std::isinf(expected) || std::isinf(actual))
    return expected == actual;
  return std::fabs(actual - expected) <=
         tol.atol + tol.rtol * std::fabs(expected);
}

ElementwiseResult compareElementwise(const HostArray &expected,
                                     const HostArray &actual,
                                     const Tolerance &tol) {
  ElementwiseResult result;
  for (int64_t i = 0, n = expected.numElements(); i < n; ++i) {
    double e = expected.get(i), a = actual.get(i);
    double abs = std::fabs(a - e);
    double rel = abs / std::max(std::fabs(e), 1e-30);
    if (std::isnan(a) != std::isnan(e))
      abs = rel = INFINITY;
    else if (std::isnan(a) || a == e) // NaN in both; equal infinities
      abs = rel = 0;
    result.maxAbs = std::max(result.maxAbs, abs);
    if (abs > 0)
      result.maxRel = std::max(result.maxRel, rel);
    if (!withinTolerance(e, a, tol))
      ++result.mismatches;
  }
  return result;
}

/// Whether two values are the same NaN or infinity (or both finite).
static bool sameSpecial(double a, double b) {
  if (std::isfinite(a) && std::isfinite(b))
    return true;
  if (std::isnan(a) || std::isnan(b))
    return std::isnan(a) && std::isnan(b);
  return a == b;
}

ReferenceRule tf32ProductsRule(DType dtype) {
  ReferenceRule rule;
  if (dtype == DType::F32)
    rule.roundoff = kTf32UnitRoundoff;
  return rule;
}

ReferenceResult judgeAgainstReference(const HostArray &reference,
                                      const HostArray &serial,
                                      const std::vector<HostArray> &distributed,
                                      const PerturbedSample *perturbed,
                                      const ReferenceRule &rule) {
  ReferenceResult result;
  for (int64_t i = 0, n = serial.numElements(); i < n; ++i) {
    double s = serial.get(i), ref = reference.get(i);
    for (const HostArray &replica : distributed)
      if (!sameSpecial(s, replica.get(i)))
        ++result.specialMismatches;
    if (!std::isfinite(s) || !std::isfinite(ref))
      continue;
    result.serialError = std::max(result.serialError, std::fabs(s - ref));
    result.magnitude = std::max(result.magnitude, std::fabs(ref));
    if (perturbed) {
      double p = perturbed->serial.get(i), pRef = perturbed->reference.get(i);
      if (std::isfinite(p) && std::isfinite(pRef))
        result.perturbedError =
            std::max(result.perturbedError, std::fabs(p - pRef));
    }
    for (const HostArray &replica : distributed) {
      double d = replica.get(i);
      if (std::isfinite(d))
        result.distributedError =
            std::max(result.distributedError, std::fabs(d - ref));
    }
  }
  result.allowed =
      std::max(rule.serialFactor *
                   std::max(result.serialError, result.perturbedError),
               rule.roundoffFactor *
                   std::max(rule.roundoff, unitRoundoff(serial.dtype())) *
                   result.magnitude);
  result.pass = result.specialMismatches == 0 &&
                result.distributedError <= result.allowed;
  return result;
}

HostArray perturbByUlp(const HostArray &input) {
  HostArray result = input;
  if (!isFloat(input.dtype()))
    return result;
  // Significand bits (with the implicit one): 2u = 2^(1 - bits).
  int bits = 1 - std::ilogb(2 * unitRoundoff(input.dtype()));
  for (int64_t i = 0, n = input.numElements(); i < n; ++i) {
    double value = input.get(i);
    if (value == 0 || !std::isfinite(value))
      continue;
    // A fixed sign per element (a 64-bit mix of its index): reproducible,
    // and with no pattern that a reduction could cancel.
    uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    double ulp = std::ldexp(1.0, std::ilogb(value) + 1 - bits);
    result.set(i, value + ((h & 1) ? ulp : -ulp));
  }
  return result;
}

} // namespace hostdata
