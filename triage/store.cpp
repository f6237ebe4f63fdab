#include "triage/store.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <thread>

#include "generator/hash.h"
#include "runners/runner_spec.h"

namespace dlfuzz {

namespace {
const char* kSchemaV1 = R"SQL(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE campaigns(
  id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, ended_at TEXT, host TEXT,
  config TEXT, versions TEXT, programs INTEGER NOT NULL DEFAULT 0, findings INTEGER NOT NULL DEFAULT 0);
CREATE TABLE programs(
  hash TEXT PRIMARY KEY, text TEXT NOT NULL, seed INTEGER, nodes INTEGER, first_seen TEXT NOT NULL);
CREATE TABLE bugs(
  id INTEGER PRIMARY KEY, signature TEXT NOT NULL UNIQUE, status TEXT NOT NULL DEFAULT 'new',
  title TEXT, kind TEXT, first_seen TEXT NOT NULL, last_seen TEXT NOT NULL, hits INTEGER NOT NULL DEFAULT 0,
  example_program TEXT REFERENCES programs(hash), reduced_program TEXT REFERENCES programs(hash));
CREATE TABLE findings(
  id INTEGER PRIMARY KEY, campaign_id INTEGER REFERENCES campaigns(id), bug_id INTEGER REFERENCES bugs(id),
  program_hash TEXT REFERENCES programs(hash), oracle TEXT NOT NULL, ref_runner TEXT, test_runner TEXT,
  stage TEXT, detail TEXT, signature TEXT NOT NULL, kind TEXT NOT NULL, flaky INTEGER NOT NULL DEFAULT 0,
  versions TEXT, found_at TEXT NOT NULL);
CREATE INDEX findings_bug ON findings(bug_id);
CREATE TABLE throughput(
  campaign_id INTEGER REFERENCES campaigns(id), at TEXT NOT NULL, programs INTEGER, findings INTEGER,
  unique_bugs INTEGER);
)SQL";

// Migrations, one per version after 1: kMigrations[i] takes version i+1 to
// i+2. A new store is created at version 1 and migrated like an old one, so
// every step runs on every fresh store.
const char* kMigrations[] = {
    // 2: the reduced program's op set refines the signature; duplicates point
    // at the bug they repeat.
    "ALTER TABLE bugs ADD COLUMN reduced_ops TEXT;"
    "ALTER TABLE bugs ADD COLUMN duplicate_of INTEGER REFERENCES bugs(id);",
    // 3: which environments (PyTorch versions) a bug affects, from
    // `triage retest --env`: one row per bug and environment, the latest check.
    "CREATE TABLE bug_envs(bug_id INTEGER REFERENCES bugs(id), env TEXT NOT NULL, version TEXT,"
    " affected INTEGER NOT NULL, checked_at TEXT NOT NULL, PRIMARY KEY(bug_id, env));",
    // 4: what a performance finding rests on (JSON: estimates, counters,
    // profiles of both sides).
    "ALTER TABLE findings ADD COLUMN evidence TEXT;",
    // 5: the compiler layer a finding is attributed to, and the layer ladder's
    // verdicts (JSON); a bug's layer is its latest attributed finding's.
    "ALTER TABLE findings ADD COLUMN layer TEXT;"
    "ALTER TABLE findings ADD COLUMN ablation TEXT;"
    "ALTER TABLE bugs ADD COLUMN layer TEXT;",
    // 6: what a campaign holds at each throughput sample (a soak's growth).
    "ALTER TABLE throughput ADD COLUMN campaign_rss_kb INTEGER;"
    "ALTER TABLE throughput ADD COLUMN workers_rss_kb INTEGER;"
    "ALTER TABLE throughput ADD COLUMN workers INTEGER;"
    "ALTER TABLE throughput ADD COLUMN open_fds INTEGER;"
    "ALTER TABLE throughput ADD COLUMN store_bytes INTEGER;",
    // 7: where a numeric finding starts (oracles/first_divergence.h).
    "ALTER TABLE findings ADD COLUMN first_op TEXT;"
    "ALTER TABLE findings ADD COLUMN first_op_detail TEXT;",
    // 8: the compiler pass inside the layer (`triage bisect`: Inductor's
    // compiler_bisector), e.g. "inductor lowerings #1 (var_mean)".
    "ALTER TABLE bugs ADD COLUMN compiler_pass TEXT;",
    // 9: findings reduced one by one (a few per bug, triage/bug_split.h), and
    // the bug a split-off bug came from.
    "ALTER TABLE findings ADD COLUMN reduced_program TEXT REFERENCES programs(hash);"
    "ALTER TABLE findings ADD COLUMN reduced_ops TEXT;"
    "ALTER TABLE bugs ADD COLUMN split_from INTEGER REFERENCES bugs(id);",
    // 10: why the eager reference rejected programs (no compiled runner judges
    // one it rejects), one row per reference and normalized error, with the
    // first program it rejected so: a generator gap, or a bug of eager itself.
    "CREATE TABLE rejections(id INTEGER PRIMARY KEY, reference TEXT NOT NULL, reason TEXT NOT NULL,"
    " hits INTEGER NOT NULL DEFAULT 0, first_seen TEXT NOT NULL, last_seen TEXT NOT NULL,"
    " example_program TEXT REFERENCES programs(hash), UNIQUE(reference, reason));",
};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == kSchemaVersion - 1, "one migration per version");

std::vector<std::string> split_signature(const std::string& sig) {  // oracle|ref|test|stage|error
  std::vector<std::string> parts;
  size_t start = 0;
  for (int i = 0; i < 4; ++i) {
    size_t bar = sig.find('|', start);
    if (bar == std::string::npos) break;
    parts.push_back(sig.substr(start, bar - start));
    start = bar + 1;
  }
  parts.push_back(sig.substr(start));
  return parts;
}

// From the runner table; a name this build does not know (an older store's)
// keeps the old rule: the name up to its first '-'.
std::string runner_family(const std::string& runner) {
  auto spec = parse_runner(runner);
  if (!spec) return runner.substr(0, runner.find('-'));
  return spec->env.empty() ? spec->family() : spec->family() + "@" + spec->env;
}
}  // namespace

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string Store::hash_text(const std::string& text) { return fmt::format("{:016x}", fnv1a(text)); }

Store::Store(const std::string& path) : db_(std::make_unique<Database>(path, true)) {
  // While another process creates the store or switches it to WAL, SQLite
  // may answer "database is locked" at once, without the busy timeout's wait.
  for (int attempt = 1;; ++attempt) {
    try {
      migrate();
      return;
    } catch (const StoreError& e) {
      if (!e.busy() || attempt == 40) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(25 * attempt));
    }
  }
}

void Store::migrate() {
  // Read before writing anything: a file that is not a database, or a newer
  // schema, must be left untouched.
  int64_t tables;
  try {
    auto st = db_->prepare("SELECT count(*) FROM sqlite_master");
    st.step();
    tables = st.column_int(0);
  } catch (const StoreError& e) {
    throw StoreError(db_->path() + ": not a readable dlfuzz database (" + e.what() + ")", e.sqlite_code);
  }
  auto schema_version = [&] {
    int v = 0;
    try {
      auto st = db_->prepare("SELECT value FROM meta WHERE key = 'schema_version'");
      if (st.step()) v = std::stoi(st.column_text(0));
    } catch (const StoreError& e) {
      if (e.busy()) throw;  // another process is creating it: try again
      throw StoreError(db_->path() + ": not a dlfuzz database (no schema_version)");
    } catch (const std::exception&) {
      throw StoreError(db_->path() + ": not a dlfuzz database (no schema_version)");
    }
    return v;
  };
  int version = 1;
  bool created = false;
  if (tables == 0) {
    db_->exec("PRAGMA journal_mode=WAL");
    Transaction tx(*db_);
    // Two campaigns started on a new store race here: the write lock decides
    // which creates it; the other reads it like any existing store.
    {
      auto st = db_->prepare("SELECT count(*) FROM sqlite_master");
      st.step();
      created = st.column_int(0) == 0;
    }
    if (created) {
      db_->exec(kSchemaV1);
      db_->prepare("INSERT INTO meta(key, value) VALUES('schema_version', '1')").run();
    }
    tx.commit();
  }
  if (!created) {
    version = schema_version();
    if (version > kSchemaVersion)
      throw StoreError(fmt::format("{}: schema version {} is newer than this dlfuzz understands ({})", db_->path(),
                                   version, kSchemaVersion));
    if (version < 1) throw StoreError(db_->path() + ": not a dlfuzz database (bad schema_version)");
    {  // finalized before the journal mode changes: an unfinished statement holds a read transaction
      auto check = db_->prepare("PRAGMA quick_check");
      if (!check.step() || check.column_text(0) != "ok")
        throw StoreError(db_->path() + ": database is corrupt (" + check.column_text(0) + ")");
    }
    db_->exec("PRAGMA journal_mode=WAL");
  }
  while (version < kSchemaVersion) {
    Transaction tx(*db_);
    version = schema_version();  // under the write lock: another process may have migrated meanwhile
    if (version >= kSchemaVersion) break;
    if (version < 1) throw StoreError(db_->path() + ": not a dlfuzz database (bad schema_version)");
    db_->exec(kMigrations[version - 1]);
    db_->prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").bind(1, std::to_string(version + 1)).run();
    tx.commit();
    ++version;
  }
}

int64_t Store::begin_campaign(const std::string& config_json, const std::string& versions) {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  db_->prepare("INSERT INTO campaigns(started_at, host, config, versions) VALUES(?,?,?,?)")
      .bind(1, now_utc())
      .bind(2, std::string(host))
      .bind(3, config_json)
      .bind(4, versions)
      .run();
  return db_->last_insert_id();
}

void Store::end_campaign(int64_t campaign, int64_t programs, int64_t findings) {
  db_->prepare("UPDATE campaigns SET ended_at = ?, programs = ?, findings = ? WHERE id = ?")
      .bind(1, now_utc())
      .bind(2, programs)
      .bind(3, findings)
      .bind(4, campaign)
      .run();
}

void Store::sample_throughput(int64_t campaign, int64_t programs, int64_t findings, int64_t unique_bugs,
                              const ResourceUsage& usage) {
  db_->prepare(
         "INSERT INTO throughput(campaign_id, at, programs, findings, unique_bugs, campaign_rss_kb, workers_rss_kb,"
         " workers, open_fds, store_bytes) VALUES(?,?,?,?,?,?,?,?,?,?)")
      .bind(1, campaign)
      .bind(2, now_utc())
      .bind(3, programs)
      .bind(4, findings)
      .bind(5, unique_bugs)
      .bind(6, usage.campaign_rss_kb)
      .bind(7, usage.workers_rss_kb)
      .bind(8, usage.workers)
      .bind(9, usage.open_fds)
      .bind(10, usage.store_bytes)
      .run();
  db_->prepare("UPDATE campaigns SET programs = ?, findings = ? WHERE id = ?")
      .bind(1, programs)
      .bind(2, findings)
      .bind(3, campaign)
      .run();
}

std::string Store::add_program(const std::string& text, uint64_t seed, int nodes) {
  std::string hash = hash_text(text);
  db_->prepare("INSERT OR IGNORE INTO programs(hash, text, seed, nodes, first_seen) VALUES(?,?,?,?,?)")
      .bind(1, hash)
      .bind(2, text)
      .bind(3, static_cast<int64_t>(seed))
      .bind(4, static_cast<int64_t>(nodes))
      .bind(5, now_utc())
      .run();
  return hash;
}

int64_t Store::add_finding(int64_t campaign, const std::string& program_hash, const Finding& f,
                           const std::string& versions, bool* new_bug) {
  Transaction tx(*db_);
  std::string sig = f.bug_signature(), now = now_utc();
  const char* kind = f.kind == FindingKind::performance ? "performance" : "correctness";
  int64_t bug = -1;
  {
    auto st = db_->prepare("SELECT id FROM bugs WHERE signature = ?");
    st.bind(1, sig);
    if (st.step()) bug = st.column_int(0);
  }
  if (new_bug) *new_bug = bug < 0;
  if (bug < 0) {
    std::string title = fmt::format("{}: {} vs {} at {}{}{}", f.oracle, f.test_runner, f.ref_runner, f.stage,
                                    f.error_text.empty() ? "" : " (" + f.error_text.substr(0, 80) + ")",
                                    f.first_op.empty() ? "" : " from " + f.first_op);
    db_->prepare(
           "INSERT INTO bugs(signature, status, title, kind, first_seen, last_seen, hits, example_program) "
           "VALUES(?,?,?,?,?,?,0,?)")
        .bind(1, sig)
        .bind(2, std::string(f.flaky ? "flaky" : "new"))
        .bind(3, title)
        .bind(4, std::string(kind))
        .bind(5, now)
        .bind(6, now)
        .bind(7, program_hash)
        .run();
    bug = db_->last_insert_id();
  }
  db_->prepare("UPDATE bugs SET hits = hits + 1, last_seen = ? WHERE id = ?").bind(1, now).bind(2, bug).run();
  if (!f.layer.empty()) db_->prepare("UPDATE bugs SET layer = ? WHERE id = ?").bind(1, f.layer).bind(2, bug).run();
  db_->prepare(
         "INSERT INTO findings(campaign_id, bug_id, program_hash, oracle, ref_runner, test_runner, stage, detail, "
         "signature, kind, flaky, versions, found_at, evidence, layer, ablation, first_op, first_op_detail) "
         "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
      .bind(1, campaign)
      .bind(2, bug)
      .bind(3, program_hash)
      .bind(4, f.oracle)
      .bind(5, f.ref_runner)
      .bind(6, f.test_runner)
      .bind(7, f.stage)
      .bind(8, f.detail)
      .bind(9, sig)
      .bind(10, std::string(kind))
      .bind(11, static_cast<int64_t>(f.flaky))
      .bind(12, versions)
      .bind(13, now)
      // Evidence may carry compiler text (kernel names): bytes that are not UTF-8 become U+FFFD.
      .bind(14, f.evidence.is_null() ? std::string()
                                     : f.evidence.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
      .bind(15, f.layer)
      .bind(16, f.ablation.is_null() ? std::string()
                                     : f.ablation.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
      .bind(17, f.first_op)
      .bind(18, f.first_op_detail)
      .run();
  db_->prepare("UPDATE campaigns SET findings = findings + 1 WHERE id = ?").bind(1, campaign).run();
  tx.commit();
  return bug;
}

int64_t Store::add_rejection(const std::string& reference, const std::string& reason, const std::string& text,
                             uint64_t seed, int nodes) {
  Transaction tx(*db_);
  std::string now = now_utc();
  int64_t id = -1;
  {
    auto st = db_->prepare("SELECT id FROM rejections WHERE reference = ? AND reason = ?");
    st.bind(1, reference).bind(2, reason);
    if (st.step()) id = st.column_int(0);
  }
  if (id < 0) {  // only the first program of a reason is kept: a broken device rejects them all
    std::string hash = add_program(text, seed, nodes);
    db_->prepare(
           "INSERT INTO rejections(reference, reason, hits, first_seen, last_seen, example_program) "
           "VALUES(?,?,0,?,?,?)")
        .bind(1, reference)
        .bind(2, reason)
        .bind(3, now)
        .bind(4, now)
        .bind(5, hash)
        .run();
    id = db_->last_insert_id();
  }
  db_->prepare("UPDATE rejections SET hits = hits + 1, last_seen = ? WHERE id = ?").bind(1, now).bind(2, id).run();
  tx.commit();
  return id;
}

std::vector<RejectionRow> Store::rejections() {
  std::vector<RejectionRow> rows;
  auto st = db_->prepare(
      "SELECT r.id, r.hits, r.reference, r.reason, r.first_seen, r.last_seen, coalesce(p.text, '') "
      "FROM rejections r LEFT JOIN programs p ON p.hash = r.example_program ORDER BY r.hits DESC, r.id");
  while (st.step())
    rows.push_back({st.column_int(0), st.column_int(1), st.column_text(2), st.column_text(3), st.column_text(4),
                    st.column_text(5), st.column_text(6)});
  return rows;
}

int64_t Store::record_reduction(int64_t bug, const std::string& program_hash, const std::string& ops) {
  Transaction tx(*db_);
  db_->prepare(
         "UPDATE bugs SET reduced_program = ?, reduced_ops = ?, "
         "status = CASE WHEN status IN ('new','flaky') THEN 'reduced' ELSE status END WHERE id = ?")
      .bind(1, program_hash)
      .bind(2, ops)
      .bind(3, bug)
      .run();
  std::string sig;
  {
    auto st = db_->prepare("SELECT signature FROM bugs WHERE id = ?");
    st.bind(1, bug);
    if (!st.step()) throw StoreError(fmt::format("{}: no bug {}", db_->path(), bug));
    sig = st.column_text(0);
  }
  auto mine = split_signature(sig);
  int64_t duplicate_of = 0;
  auto st = db_->prepare("SELECT id, signature FROM bugs WHERE reduced_ops = ? AND id < ? ORDER BY id");
  st.bind(1, ops).bind(2, bug);
  while (st.step() && !duplicate_of) {
    auto other = split_signature(st.column_text(1));
    if (other.size() == 5 && mine.size() == 5 && other[0] == mine[0] && other[1] == mine[1] &&
        runner_family(other[2]) == runner_family(mine[2]) && other[3] == mine[3] && other[4] == mine[4])
      duplicate_of = st.column_int(0);
  }
  auto set = db_->prepare("UPDATE bugs SET duplicate_of = ? WHERE id = ?");
  if (duplicate_of) set.bind(1, duplicate_of);
  else set.bind_null(1);
  set.bind(2, bug).run();
  tx.commit();
  return duplicate_of;
}

// The JSON `column` (evidence, ablation) of the bug's latest finding that has
// one; null if none, a discarded value (not an error) if damaged.
nlohmann::json Store::latest_json(int64_t bug, const std::string& column) {
  auto st = db_->prepare("SELECT " + column + " FROM findings WHERE bug_id = ? AND " + column + " IS NOT NULL AND " +
                         column + " != '' ORDER BY id DESC LIMIT 1");
  st.bind(1, bug);
  if (!st.step()) return nullptr;
  return nlohmann::json::parse(st.column_text(0), nullptr, false);
}

nlohmann::json Store::bug_evidence(int64_t bug) { return latest_json(bug, "evidence"); }

std::string Store::bug_first_divergence(int64_t bug) {
  auto st = db_->prepare(
      "SELECT first_op_detail FROM findings WHERE bug_id = ? AND coalesce(first_op_detail, '') != '' "
      "ORDER BY coalesce(first_op, '') = '', id DESC LIMIT 1");
  st.bind(1, bug);
  return st.step() ? st.column_text(0) : "";
}

nlohmann::json Store::bug_ablation(int64_t bug) { return latest_json(bug, "ablation"); }

void Store::record_compiler_pass(int64_t bug, const std::string& pass) {
  db_->prepare("UPDATE bugs SET compiler_pass = ? WHERE id = ?").bind(1, pass).bind(2, bug).run();
}

std::vector<BugRow> Store::bugs() {
  std::vector<BugRow> rows;
  auto st = db_->prepare(
      "SELECT id, signature, status, title, kind, first_seen, last_seen, hits, example_program, "
      "coalesce(reduced_ops, ''), coalesce(duplicate_of, 0), coalesce(layer, ''), coalesce(compiler_pass, ''), "
      "coalesce(split_from, 0) FROM bugs ORDER BY id");
  while (st.step())
    rows.push_back({st.column_int(0), st.column_text(1), st.column_text(2), st.column_text(3), st.column_text(4),
                    st.column_text(5), st.column_text(6), st.column_text(8), st.column_int(7), st.column_text(9),
                    st.column_int(10), st.column_text(11), st.column_text(12), st.column_int(13)});
  return rows;
}

int64_t Store::count(const std::string& table) {
  auto st = db_->prepare("SELECT count(*) FROM " + table);
  st.step();
  return st.column_int(0);
}

}  // namespace dlfuzz

namespace dlfuzz {

void Store::record_env_check(int64_t bug, const std::string& env, const std::string& version, bool affected) {
  db_->prepare("INSERT OR REPLACE INTO bug_envs(bug_id, env, version, affected, checked_at) VALUES(?,?,?,?,?)")
      .bind(1, bug)
      .bind(2, env)
      .bind(3, version)
      .bind(4, static_cast<int64_t>(affected))
      .bind(5, now_utc())
      .run();
}

std::vector<EnvCheck> Store::env_checks(int64_t bug) {
  std::vector<EnvCheck> v;
  auto st = db_->prepare("SELECT env, version, affected, checked_at FROM bug_envs WHERE bug_id = ? ORDER BY rowid");
  st.bind(1, bug);
  while (st.step()) v.push_back({st.column_text(0), st.column_text(1), st.column_int(2) != 0, st.column_text(3)});
  return v;
}

std::string affects_line(const std::vector<EnvCheck>& checks) {
  if (checks.empty()) return "";
  std::string yes, no;
  for (const auto& c : checks) {
    std::string item = c.version.empty() ? c.env : fmt::format("{} ({})", c.env, c.version);
    std::string& list = c.affected ? yes : no;
    list += (list.empty() ? "" : ", ") + item;
  }
  return fmt::format("affects: {} / not in: {}", yes.empty() ? "none" : yes, no.empty() ? "none" : no);
}

}  // namespace dlfuzz
