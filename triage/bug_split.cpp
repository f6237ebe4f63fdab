#include "triage/bug_split.h"

#include <fmt/format.h>

#include <map>

namespace dlfuzz {

std::vector<int64_t> findings_to_reduce(Store& store, int64_t bug, int k) {
  std::vector<int64_t> ids;
  auto st = store.db().prepare(
      "SELECT min(f.id) FROM findings f JOIN bugs b ON b.id = f.bug_id WHERE f.bug_id = ? "
      "AND f.reduced_program IS NULL GROUP BY f.program_hash "
      "ORDER BY f.program_hash = b.example_program DESC, min(f.id) LIMIT ?");
  st.bind(1, bug).bind(2, static_cast<int64_t>(k));
  while (st.step()) ids.push_back(st.column_int(0));
  return ids;
}

int64_t example_finding(Store& store, int64_t bug) {
  auto st = store.db().prepare(
      "SELECT min(f.id) FROM findings f JOIN bugs b ON b.id = f.bug_id AND f.program_hash = b.example_program "
      "WHERE f.bug_id = ?");
  st.bind(1, bug);
  return st.step() && !st.column_is_null(0) ? st.column_int(0) : 0;
}

void record_finding_reduction(Store& store, int64_t finding, const std::string& program_hash, const std::string& ops) {
  store.db()
      .prepare("UPDATE findings SET reduced_program = ?, reduced_ops = ? WHERE id = ?")
      .bind(1, program_hash)
      .bind(2, ops)
      .bind(3, finding)
      .run();
}

namespace {
struct BugInfo {
  std::string signature, title, kind, layer, reduced_ops;
};

BugInfo bug_info(Store& store, int64_t bug) {
  auto st = store.db().prepare(
      "SELECT signature, coalesce(title, ''), coalesce(kind, ''), coalesce(layer, ''), coalesce(reduced_ops, '') "
      "FROM bugs WHERE id = ?");
  st.bind(1, bug);
  if (!st.step()) throw StoreError(fmt::format("{}: no bug {}", store.db().path(), bug));
  return {st.column_text(0), st.column_text(1), st.column_text(2), st.column_text(3), st.column_text(4)};
}

// The bug that holds findings of `from` reducing to `ops`: found by its
// signature, or made.
int64_t bug_for_ops(Store& store, int64_t from, const BugInfo& b, const std::string& ops, int64_t first_finding) {
  std::string sig = b.signature + "|ops=" + ops;
  auto find = store.db().prepare("SELECT id FROM bugs WHERE signature = ?");
  find.bind(1, sig);
  if (find.step()) return find.column_int(0);
  auto f = store.db().prepare("SELECT program_hash, found_at FROM findings WHERE id = ?");
  f.bind(1, first_finding);
  f.step();
  store.db()
      .prepare(
          "INSERT INTO bugs(signature, status, title, kind, first_seen, last_seen, hits, example_program, layer, "
          "split_from) VALUES(?, 'new', ?, ?, ?, ?, 0, ?, ?, ?)")
      .bind(1, sig)
      .bind(2, b.title + " [" + ops + "]")
      .bind(3, b.kind)
      .bind(4, f.column_text(1))
      .bind(5, f.column_text(1))
      .bind(6, f.column_text(0))
      .bind(7, b.layer)
      .bind(8, from)
      .run();
  return store.db().last_insert_id();
}
}  // namespace

std::vector<int64_t> split_by_reduced_ops(Store& store, int64_t bug) {
  BugInfo b = bug_info(store, bug);
  std::string own = b.reduced_ops;
  if (own.empty()) {
    auto st = store.db().prepare("SELECT coalesce(reduced_ops, '') FROM findings WHERE id = ?");
    st.bind(1, example_finding(store, bug));
    if (st.step()) own = st.column_text(0);
  }
  if (own.empty()) return {};
  // op set -> its findings, and the first one's reduced program.
  std::map<std::string, std::vector<int64_t>> groups;
  std::map<std::string, std::string> reduced;
  {
    auto st = store.db().prepare(
        "SELECT id, reduced_ops, reduced_program FROM findings WHERE bug_id = ? AND reduced_ops IS NOT NULL "
        "AND reduced_ops != ? ORDER BY id");
    st.bind(1, bug).bind(2, own);
    while (st.step()) {
      groups[st.column_text(1)].push_back(st.column_int(0));
      reduced.emplace(st.column_text(1), st.column_text(2));
    }
  }
  std::vector<int64_t> made;
  for (const auto& [ops, findings] : groups) {
    int64_t to;
    {
      Transaction tx(store.db());
      to = bug_for_ops(store, bug, b, ops, findings.front());
      for (int64_t f : findings)
        store.db().prepare("UPDATE findings SET bug_id = ?, signature = ? WHERE id = ?")
            .bind(1, to).bind(2, b.signature + "|ops=" + ops).bind(3, f).run();
      auto n = static_cast<int64_t>(findings.size());
      store.db().prepare("UPDATE bugs SET hits = hits + ? WHERE id = ?").bind(1, n).bind(2, to).run();
      store.db().prepare("UPDATE bugs SET hits = hits - ? WHERE id = ?").bind(1, n).bind(2, bug).run();
      tx.commit();
    }
    store.record_reduction(to, reduced[ops], ops);  // and whether it repeats an earlier bug
    made.push_back(to);
  }
  return made;
}

}  // namespace dlfuzz
