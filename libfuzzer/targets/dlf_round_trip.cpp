#include "generator/dlf.h"
#include "generator/emit.h"
#include "libfuzzer/targets/fuzz_checks.h"

namespace dlfuzz {

FuzzVerdict fuzz_dlf_round_trip(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  ParseResult first;
  try {
    first = parse_program(text, "fuzz.dlf");
    // What the strict load rejects, the repair load (triage retest) may fix.
    if (!first.ok()) first = parse_program(text, "fuzz.dlf", ParseMode::repair);
  } catch (const std::exception& e) {
    return std::string("parse_program threw instead of returning an error: ") + e.what();
  }
  if (!first.ok()) {
    if (first.error->line < 0 || first.error->column < 0) return "error position is negative: " + first.error->str();
    return std::nullopt;
  }
  // A program the parser accepted (or repaired) is a valid program: the strict
  // parser takes it back, and everything downstream (printer, emitters) too.
  std::string printed = print_program(first.program);
  ParseResult second = parse_program(printed, "printed.dlf");
  if (!second.ok()) return "the printed program does not parse: " + second.error->str() + "\n" + printed;
  if (!(second.program == first.program)) return "parse(print(p)) != p:\n" + printed;
  if (print_program(second.program) != printed) return "print is not stable under parse";
  emit_torchscript(first.program);
  emit_python(first.program);
  return std::nullopt;
}

}  // namespace dlfuzz
