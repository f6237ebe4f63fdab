// The .dlf text format: one declaration or node per line, a versioned header
// with seed and policy hash, exact round trip (parse(print(p)) == p).
//
//   dlfuzz 1 seed=42 policy=00ab12cd34ef5678 mode=train device=cpu world=1 plan=none
//   input  %x0 : f32[8,16] range(-2,2)
//   param  %w0 : f32[32,16] range(-0.5,0.5)
//   target %y0 : f32[8,32] range(-1,1)
//   %1 : f32[8,32] = linear %x0, %w0
//   %2 : f32[8,32] = gelu %1, approximate="tanh"
//   %3 : f32[8,32] = loop n=3, carry=[%2] (%c4 : f32[8,32]) {
//     %5 : f32[8,32] = mul %c4, 0.5
//     yield %5
//   }
//   %6 : f32[] = mse_loss %3, %y0
//   return %3
//   loss %6
//   step adam lr=0.001 momentum=0.0 weight_decay=0.0 steps=2
#pragma once
#include <string>

#include "generator/program.h"

namespace dlfuzz {

std::string print_program(const Program& p);
// Literal spelling of an argument value in .dlf (shared with the emitters' tests).
std::string print_arg_value(const Program& p, const ArgValue& v);

struct ParseError {
  std::string file;
  int line = 0, column = 0;
  std::string message;
  std::string str() const;  // "file:line:col: message"
};

struct ParseResult {
  Program program;
  std::optional<ParseError> error;
  bool repaired = false;  // ParseMode::repair recomputed the types, and then the program verified
  bool ok() const { return !error.has_value(); }
};

// Strict: every type annotation must match the type rules; the program must
// verify. Repair, for stored programs written under older type rules
// (syzkaller's non-strict load): a program that parses but does not verify
// gets its types recomputed by today's rules (infer_types) and is accepted
// when it then verifies, with `repaired` set and `error` cleared. Errors name
// file, line and column.
enum class ParseMode { strict, repair };
ParseResult parse_program(const std::string& text, const std::string& file = "<input>",
                          ParseMode mode = ParseMode::strict);
ParseResult load_program(const std::string& path);

}  // namespace dlfuzz
