// How a campaign's jobs become lanes, and how long a paced lane waits.
#include <gtest/gtest.h>

#include "cli/lanes.h"

namespace dlfuzz {

TEST(Lanes, PyTorch2FirstWithATimeBudgetAndBothKinds) {
  LaneSplit s = split_lanes(true, true, 2, true, 0.25);
  EXPECT_EQ(s.native, 1);
  EXPECT_EQ(s.python, 2);
  EXPECT_DOUBLE_EQ(s.native_share, 0.25);
  EXPECT_DOUBLE_EQ(pause_after(0.1, 0.25), 0.3);  // 0.1 s of work in every 0.4 s
  EXPECT_DOUBLE_EQ(pause_after(30, 0.25), 5) << "a timed-out program does not stop the lane for 90 s";
}

TEST(Lanes, OtherwiseOneLaneOfEachAndNoPause) {
  for (auto s : {split_lanes(true, true, 2, true, 1.0), split_lanes(true, true, 2, false, 0.25)}) {
    EXPECT_EQ(s.native, 1);
    EXPECT_EQ(s.python, 1);
    EXPECT_DOUBLE_EQ(s.native_share, 1);
  }
  EXPECT_EQ(split_lanes(true, true, 4, false, 0.25).native, 3);
  EXPECT_DOUBLE_EQ(pause_after(0.1, 1), 0);
}

TEST(Lanes, OneKindTakesEveryJob) {
  LaneSplit py = split_lanes(false, true, 3, true, 0.25), nat = split_lanes(true, false, 3, true, 0.25);
  EXPECT_EQ(py.python, 3);
  EXPECT_EQ(py.native, 0);
  EXPECT_EQ(nat.native, 3);
  EXPECT_EQ(nat.python, 0);
  EXPECT_DOUBLE_EQ(nat.native_share, 1);
}

}  // namespace dlfuzz
