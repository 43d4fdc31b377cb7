// RUN: not dist-opt %s --dist-verify=phase=bogus 2>&1 | FileCheck %s --check-prefix=PHASE
// RUN: not dist-opt %s --pass-pipeline='builtin.module(dist-verify{phase=Global})' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PHASE-CASE

// Tests that an unknown phase is reported (on an unknown location, from
// initialize()) and fails the run; phase names are case-sensitive.
// PHASE: error: dist-verify: unknown phase 'bogus'; expected 'global' or 'partitioned'
// PHASE-CASE: error: dist-verify: unknown phase 'Global'; expected 'global' or 'partitioned'

dist.mesh @mesh_4 [mp = 4]
