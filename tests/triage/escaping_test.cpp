// What a compiler printed (error texts, paths, runner names from a foreign
// store) shows as text in every report: Markdown, HTML and JUnit XML.
#include <gtest/gtest.h>

#include <filesystem>

#include "triage/escape.h"
#include "triage/html_report.h"
#include "triage/junit.h"
#include "triage/report.h"
#include "triage/store.h"

namespace fs = std::filesystem;

namespace dlfuzz {
namespace {

// HTML, Markdown and XML control characters, a backtick run, a newline, a
// control character and bytes that are not UTF-8.
const std::string kHostile =
    "<script>alert(1)</script> & \"q\" 'a' ``x`` *b* _c_ [l](http://e) | ~~s~~ # h &lt;\n"
    "line2 \x01 \xff\xfe \xed\xa0\x80 \xef\xbf\xbf ok \xc3\xa9";

TEST(Escape, MarkdownText) {
  std::string t = md_text(kHostile);
  EXPECT_EQ(t.find('\n'), std::string::npos);
  EXPECT_EQ(t.find("<script>"), std::string::npos);
  EXPECT_NE(t.find("\\<script\\>"), std::string::npos) << t;
  EXPECT_NE(t.find("\\[l\\](http://e)"), std::string::npos) << t;
  EXPECT_NE(t.find("\\&lt;"), std::string::npos) << "an entity stays literal";
  EXPECT_NE(t.find("\\`\\`x\\`\\`"), std::string::npos) << t;
  EXPECT_EQ(md_text("torch 1.13.1 (debian)"), "torch 1.13.1 (debian)") << "plain text stays readable";
}

TEST(Escape, MarkdownCodeSpansAndBlocksOutlastBackticksInside) {
  EXPECT_EQ(md_code("ts-nnc"), "`ts-nnc`");
  EXPECT_EQ(md_code("a``b"), "```a``b```");
  EXPECT_EQ(md_code("`x"), "`` `x ``");
  EXPECT_EQ(md_code("a\nb"), "`a b`");
  EXPECT_EQ(md_block("x\n"), "```\nx\n```\n");
  EXPECT_EQ(md_block("```\ninside\n```", "text"), "````text\n```\ninside\n```\n````\n");
}

TEST(Escape, HtmlAndXml) {
  EXPECT_EQ(html_text("<a href='x'>&\"</a>"), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
  std::string x = xml_text(kHostile);
  EXPECT_EQ(x.find("<"), std::string::npos);
  EXPECT_EQ(x.find('\x01'), std::string::npos);
  EXPECT_NE(x.find("line2 ? ?? ??? ? ok \xc3\xa9"), std::string::npos)
      << "bad bytes, a surrogate and U+FFFF become '?', real UTF-8 stays: " << x;
}

TEST(Escape, EveryReportShowsCompilerTextAsText) {
  fs::path dir = fs::temp_directory_path() / "dlfuzz_escaping_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string db = (dir / "hostile.db").string();
  {
    Store s(db);
    int64_t c = s.begin_campaign("{}", kHostile);
    std::string p = s.add_program("dlfuzz 1 seed=0\nreturn\n", 0, 0);
    Finding f{"status", "eager", "ts<b>", "compile", kHostile, kHostile.substr(0, 60)};
    int64_t bug = s.add_finding(c, p, f, kHostile);
    s.record_env_check(bug, "<venv>", kHostile, true);
  }
  Store s(db);
  auto d = load_bug(s, 1);
  ASSERT_TRUE(d);
  std::string md = markdown_report(*d, "/tmp/a `b` <c>.db");
  // Prose is escaped; inside code spans and blocks Markdown shows '<' as is.
  EXPECT_EQ(md.rfind("# status: ts\\<b\\> vs eager at compile (\\<script\\>alert(1)\\</script\\> \\& ", 0), 0u) << md;
  EXPECT_NE(md.find("signature ```status|eager|ts<b>|compile|<script>"), std::string::npos) << md;
  EXPECT_NE(md.find("path under test: `ts<b>`"), std::string::npos) << md;
  EXPECT_NE(md.find("- versions: \\<script\\>"), std::string::npos) << md;
  EXPECT_NE(md.find("Actual (status oracle, at compile):\n\n```\n<script>"), std::string::npos)
      << "a multi-line error text is a code block: " << md;
  EXPECT_NE(md.find("``sqlite3 /tmp/a `b` <c>.db"), std::string::npos) << md;

  std::string html = html_report(s);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<venv>"), std::string::npos);

  JUnitSuite suite{kHostile, "t", {{kHostile, kHostile}}, {}};
  suite.cases.push_back({kHostile, kHostile, 1, true, kHostile, kHostile, kHostile});
  std::string xml = junit_xml(suite);
  EXPECT_EQ(xml.find("<script>"), std::string::npos);
  EXPECT_EQ(xml.find('\xff'), std::string::npos);
  EXPECT_EQ(xml.find('\x01'), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dlfuzz
