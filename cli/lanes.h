// How a campaign's jobs become lanes: native lanes for the LibTorch runners,
// PyTorch 2.x lanes for the Python worker's, and the share of a core a native
// lane keeps when it runs beside PyTorch 2.x lanes (cli/campaign.cpp).
#pragma once
#include <algorithm>

namespace dlfuzz {

struct LaneSplit {
  int native = 0, python = 0;
  double native_share = 1;  // the native lane pauses to keep this share of a core
};

// PyTorch 2.x first: with a time budget and runners of both kinds, one native
// lane keeping `share` of a core and every job a PyTorch 2.x lane (native
// programs take milliseconds, a 2.x compile seconds). Otherwise, and with
// share 1, one 2.x lane and the other jobs native, none pausing; all jobs one
// kind when only that kind is chosen. A program budget (no time budget) is
// met by the native lanes: they never pause.
inline LaneSplit split_lanes(bool native, bool python, int jobs, bool time_budget, double share) {
  jobs = std::max(1, jobs);
  LaneSplit s;
  if (native && python && time_budget && share < 1) return {1, jobs, share};
  s.python = python ? (native ? 1 : jobs) : 0;
  s.native = native ? std::max(1, jobs - s.python) : 0;
  return s;
}

// How long a lane keeping `share` of a core waits after `busy` of work, at
// most `cap` seconds: a program that timed out held the lane, not the core
// (30 s of a hung worker would otherwise stop the lane for 90 s).
inline double pause_after(double busy, double share, double cap = 5) {
  return share >= 1 ? 0 : std::min(cap, busy * (1 / share - 1));
}

}  // namespace dlfuzz
