// Renders `triage html`'s page in headless Chromium (Debian's chromium, which
// set-up installs) and checks what a person would see: the rendered DOM has
// the bug table and three charts, and the screenshot shows the chart lines in
// their colours above the table.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "triage/html_report.h"
#include "triage/store.h"

namespace dlfuzz {

namespace {
namespace fs = std::filesystem;

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // row-major, 3 bytes per pixel
  const uint8_t* at(int x, int y) const { return &rgb[3 * (size_t(y) * width + x)]; }
};

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

// Just enough PNG to read Chromium's screenshots: 8-bit RGB or RGBA, not interlaced.
Image read_png(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), {});
  const auto* b = reinterpret_cast<const uint8_t*>(data.data());
  Image img;
  int channels = 0;
  std::string idat;
  for (size_t pos = 8; pos + 8 <= data.size();) {
    uint32_t len = be32(b + pos);
    std::string type(data, pos + 4, 4);
    if (type == "IHDR") {
      img.width = int(be32(b + pos + 8));
      img.height = int(be32(b + pos + 12));
      if (b[pos + 16] != 8 || b[pos + 20] != 0) return {};
      channels = b[pos + 17] == 6 ? 4 : b[pos + 17] == 2 ? 3 : 0;
    } else if (type == "IDAT") {
      idat.append(data, pos + 8, len);
    }
    pos += 12 + len;
  }
  if (!channels) return {};
  size_t stride = size_t(img.width) * channels;
  std::vector<uint8_t> raw((stride + 1) * img.height);
  uLongf raw_len = raw.size();
  if (uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK) return {};
  std::vector<uint8_t> prev(stride, 0), cur(stride);
  img.rgb.resize(size_t(img.width) * img.height * 3);
  for (int y = 0; y < img.height; ++y) {
    const uint8_t* line = &raw[y * (stride + 1)];
    for (size_t i = 0; i < stride; ++i) {
      int a = i >= size_t(channels) ? cur[i - channels] : 0, up = prev[i],
          c = i >= size_t(channels) ? prev[i - channels] : 0;
      int p = a + up - c, pa = std::abs(p - a), pb = std::abs(p - up), pc = std::abs(p - c);
      int pred[] = {0, a, up, (a + up) / 2, pa <= pb && pa <= pc ? a : pb <= pc ? up : c};
      cur[i] = uint8_t(line[1 + i] + pred[line[0] % 5]);
    }
    for (int x = 0; x < img.width; ++x)
      for (int k = 0; k < 3; ++k) img.rgb[3 * (size_t(y) * img.width + x) + k] = cur[x * channels + k];
    std::swap(prev, cur);
  }
  return img;
}

// Rows (top to bottom) of the pixels within `tol` of a colour.
std::vector<int> rows_with(const Image& img, int r, int g, int b, int tol = 24) {
  std::vector<int> rows;
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) {
      const uint8_t* p = img.at(x, y);
      if (std::abs(p[0] - r) <= tol && std::abs(p[1] - g) <= tol && std::abs(p[2] - b) <= tol) rows.push_back(y);
    }
  return rows;
}

// The first row holding a horizontal run of at least `run` pixels of a colour
// (the table header's background), or -1.
int first_row_with_run(const Image& img, int r, int g, int b, int run) {
  for (int y = 0; y < img.height; ++y) {
    int len = 0;
    for (int x = 0; x < img.width; ++x) {
      const uint8_t* p = img.at(x, y);
      len = (p[0] == r && p[1] == g && p[2] == b) ? len + 1 : 0;
      if (len >= run) return y;
    }
  }
  return -1;
}

std::string chromium() {
  for (const char* c : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (fs::exists(c)) return c;
  return "";
}
}  // namespace

TEST(HtmlReport, RendersTableAndChartsInHeadlessChromium) {
  std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it)";
  fs::path dir = fs::temp_directory_path() / "dlfuzz_html_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string html = (dir / "report.html").string();
  {
    Store s((dir / "store.db").string());
    int64_t c = s.begin_campaign("{}", "v");
    std::string prog = s.add_program("p\n", 1, 1);
    for (int i = 0; i < 12; ++i) {
      Finding f;
      f.oracle = "status";
      f.ref_runner = "eager";
      f.test_runner = i % 3 ? "static" : "frozen";
      f.stage = "run";
      f.error_text = "exception: bug number " + std::string(1, char('a' + i % 4));
      s.add_finding(c, prog, f, "v");
      ResourceUsage usage;
      usage.campaign_rss_kb = 200000 + 1000 * i;
      usage.workers_rss_kb = 900000 + 20000 * (i % 3);
      usage.workers = 2 + i % 2;
      usage.open_fds = 20 + i % 4;
      usage.store_bytes = 100000 * (i + 1);
      s.sample_throughput(c, 100 * (i + 1) + 37 * (i % 2), i + 1, std::min(i + 1, 7), usage);
    }
    std::ofstream(html) << html_report(s);
  }
  std::string flags = "--headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir='" +
                      (dir / "profile").string() + "' --window-size=1400,1000";
  std::string dom_file = (dir / "dom.html").string(), png = (dir / "shot.png").string();
  ASSERT_EQ(
      std::system(("'" + browser + "' " + flags + " --dump-dom 'file://" + html + "' > '" + dom_file + "' 2>/dev/null")
                      .c_str()),
      0);
  std::ifstream din(dom_file);
  std::string dom((std::istreambuf_iterator<char>(din)), {});
  EXPECT_NE(dom.find("<table"), std::string::npos);
  size_t svgs = 0;
  for (size_t p = dom.find("<svg"); p != std::string::npos; p = dom.find("<svg", p + 1)) ++svgs;
  EXPECT_EQ(svgs, 6u) << "findings, unique bugs, throughput, memory, open files, store size";
  EXPECT_NE(dom.find("exception: bug number d"), std::string::npos) << "each bug's title is in the table";
  EXPECT_EQ(dom.find("http"), std::string::npos) << "no network references";

  ASSERT_EQ(
      std::system(
          ("'" + browser + "' " + flags + " --screenshot='" + png + "' 'file://" + html + "' >/dev/null 2>&1").c_str()),
      0);
  Image img = read_png(png);
  ASSERT_EQ(img.width, 1400) << "could not decode " << png;
  auto findings_line = rows_with(img, 0xc0, 0x39, 0x2b), bugs_line = rows_with(img, 0x2c, 0x3e, 0x50),
       rate_line = rows_with(img, 0x27, 0xae, 0x60), memory_line = rows_with(img, 0x8e, 0x44, 0xad);
  int header = first_row_with_run(img, 0xee, 0xee, 0xee, 300);
  EXPECT_GT(findings_line.size(), 100u) << "the findings line is drawn";
  EXPECT_GT(bugs_line.size(), 100u) << "the unique-bugs line is drawn";
  EXPECT_GT(rate_line.size(), 100u) << "the throughput line is drawn";
  EXPECT_GT(memory_line.size(), 100u) << "the campaign's memory line is drawn";
  ASSERT_GE(header, 0) << "the table header is drawn";
  EXPECT_LT(findings_line.back(), header) << "the charts sit above the table";
  // The findings line rises: its topmost pixels are further right than its lowest ones.
  auto column_of_row = [&](int row) {
    for (int x = 0; x < img.width; ++x) {
      const uint8_t* p = img.at(x, row);
      if (std::abs(p[0] - 0xc0) <= 24 && std::abs(p[1] - 0x39) <= 24 && std::abs(p[2] - 0x2b) <= 24) return x;
    }
    return -1;
  };
  int low = findings_line.back(), high = findings_line.front();
  // the legend text sits below the plot in the same colour: skip to the line's rows
  for (int y : findings_line)
    if (y > high + 150) break;
    else low = y;
  EXPECT_LT(column_of_row(low), column_of_row(high)) << "findings grow over time";
}

}  // namespace dlfuzz
