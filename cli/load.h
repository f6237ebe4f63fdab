// Loading .dlf files for subcommands: errors printed as file:line:col.
#pragma once
#include <iostream>
#include <optional>

#include "generator/dlf.h"

namespace dlfuzz::cli {

inline std::optional<Program> load_or_report(const std::string& path) {
  ParseResult r = load_program(path);
  if (!r.ok()) {
    std::cerr << "dlfuzz: " << r.error->str() << "\n";
    return std::nullopt;
  }
  return std::move(r.program);
}

}  // namespace dlfuzz::cli
