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

ReferenceResult judgeAgainstReference(const HostArray &reference,
                                      const HostArray &serial,
                                      const std::vector<HostArray> &distributed,
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
    for (const HostArray &replica : distributed) {
      double d = replica.get(i);
      if (std::isfinite(d))
        result.distributedError =
            std::max(result.distributedError, std::fabs(d - ref));
    }
  }
  result.allowed = std::max(rule.serialFactor * result.serialError,
                            rule.roundoffFactor *
                                unitRoundoff(serial.dtype()) *
                                result.magnitude);
  result.pass = result.specialMismatches == 0 &&
                result.distributedError <= result.allowed;
  return result;
}

} // namespace hostdata
