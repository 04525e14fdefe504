// The first step of Gen9's IEEE double-precision divide and square-root macros: math.invm (a / b) and math.rsqtm
// (sqrt(a)), which IGC follows with ten madm steps (fused multiply-adds) refining a reciprocal, resp. reciprocal
// square root, approximation (Markstein's iterations). Operands with special values, or whose exponents would take the
// refinement's intermediates out of the normal range, "exit early": the macro instruction sets the channel's flag and
// writes the final result, and the compiler predicates the madm steps off for that channel.
//
// What is modelled: the hardware keeps extra exponent bits of the intermediates in the extended accumulators mme0-mme7
// (acc2-acc9), so that only special operands need the early exit. This model does not keep them (a madm is a plain
// binary64 fused multiply-add); instead its early exit also covers the operands whose intermediates could overflow or
// become denormal without those bits, and for every other operand the approximation is the correctly rounded 1/b,
// resp. 1/sqrt(a), with which IGC's sequence ends with the correctly rounded quotient, resp. square root (checked
// bit-exactly against host arithmetic in tests/test_eu_exec.cpp, round to nearest even). Which channels exit early
// therefore differs from the hardware for operands near the ends of the exponent range; the results do not.
#pragma once

namespace gpuvp::gen::eu {

struct MacroStart {
  bool early_out = false;  // the flag the instruction's (eo) condition sets
  double value = 0;        // the final result when early_out, else the approximation the madm steps refine
};

// math.invm: a / b.
MacroStart divide_macro_start(double a, double b);
// math.rsqtm: sqrt(a).
MacroStart sqrt_macro_start(double a);

// The correctly rounded (to nearest) 1/b and 1/sqrt(a) of positive normal numbers whose results are normal, whatever
// the host's rounding mode (exact integer checks of the rounding boundaries).
double correctly_rounded_reciprocal(double b);
double correctly_rounded_reciprocal_sqrt(double a);

}  // namespace gpuvp::gen::eu
