// view(dtype)'s type rule: to larger elements, ATen wants the last dim and
// every other dim's stride divisible by the ratio of the element sizes.
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "generator/verify.h"

namespace dlfuzz {

namespace {
std::string verify_view(const std::string& from, const std::string& to) {
  std::string text =
      "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x0 : " + from + " zeros\n"
      "%1 : " + to + " = view_dtype %x0, dtype=" + to.substr(0, to.find('[')) + "\n"
      "return %1\n";
  ParseResult r = parse_program(text, "view.dlf");
  return r.ok() ? verify(r.program) : r.error->str();
}
}  // namespace

// A campaign's program 9125: f32[1,0] read as i64, which PyTorch 2.x rejects
// ("self.stride(0) must be divisible by 2 ... but got 1": a contiguous
// tensor's strides count the size-0 dim as 1).
TEST(ViewDtype, LargerElementsNeedEveryStrideToDivide) {
  EXPECT_EQ(verify_view("f32[2,4]", "i64[2,2]"), "");
  EXPECT_EQ(verify_view("f32[3,0,2]", "i64[3,0,1]"), "") << "strides 2, 2, 1";
  EXPECT_EQ(verify_view("f16[2,4]", "u8[2,8]"), "") << "smaller elements always fit";
  EXPECT_NE(verify_view("f32[1,0]", "i64[1,0]"), "");
  EXPECT_NE(verify_view("f16[2,0]", "f64[2,0]"), "");
  EXPECT_NE(verify_view("f32[2,3]", "i64[2,1]"), "") << "the last dim must divide";
}

}  // namespace dlfuzz
