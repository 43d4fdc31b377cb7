//===- Builtins.cpp - Compiler builtins a compiled step may call ----------===//
//
// A step compiled ahead of time (dist-run --export-ranks) targets x86-64-v3,
// where LLVM lowers an f32 -> bf16 conversion to a call of compiler-rt's
// __truncsfbf2; Debian 12 ships neither compiler-rt's builtins nor a libgcc
// that has it (13 does), so the runtime every step links provides it. (The
// JIT compiles for the host, whose CPU may convert in one instruction.)
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstring>

/// f32 -> bf16, rounded to nearest even; NaNs stay (quiet) NaNs.
extern "C" __attribute__((visibility("default"))) __bf16
__truncsfbf2(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t result;
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    result = static_cast<uint16_t>((bits >> 16) | 0x40u);
  else
    result = static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  __bf16 converted;
  std::memcpy(&converted, &result, sizeof(converted));
  return converted;
}
