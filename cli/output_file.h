// Every file a command writes (a report, a reduced program, a dashboard, a
// JUnit file) goes through write_output, so a full disk or an unwritable path
// gives one clear message and exit code kExitCannotWrite, never a silently
// truncated file.
#pragma once
#include <string>

namespace dlfuzz::cli {

// Writes text to path. On failure prints "WHO: cannot write PATH: REASON
// (disk full? not writable?)" to stderr, removes a partly written regular
// file, and returns false.
bool write_output(const std::string& who, const std::string& path, const std::string& text);

}  // namespace dlfuzz::cli
