#include "triage/bug_split.h"

#include <fmt/format.h>

#include <functional>
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

std::vector<std::string> ops_of(const std::string& op_set) {
  std::string s = op_set.substr(0, op_set.rfind("+train") == std::string::npos ? op_set.size() : op_set.rfind("+train"));
  std::vector<std::string> ops;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) ops.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return ops;
}

std::vector<std::vector<std::string>> linked_op_sets(const std::vector<std::string>& op_sets) {
  std::vector<size_t> parent(op_sets.size());
  for (size_t i = 0; i < parent.size(); ++i) parent[i] = i;
  std::function<size_t(size_t)> root = [&](size_t i) { return parent[i] == i ? i : parent[i] = root(parent[i]); };
  std::map<std::string, size_t> first_with;  // op -> the first set holding it
  for (size_t i = 0; i < op_sets.size(); ++i)
    for (const auto& op : ops_of(op_sets[i])) {
      auto [it, fresh] = first_with.emplace(op, i);
      if (!fresh) parent[root(i)] = root(it->second);
    }
  std::map<size_t, size_t> group_of_root;
  std::vector<std::vector<std::string>> groups;
  for (size_t i = 0; i < op_sets.size(); ++i) {
    auto [it, fresh] = group_of_root.emplace(root(i), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(op_sets[i]);
  }
  return groups;
}

std::vector<int64_t> split_by_reduced_ops(Store& store, int64_t bug) {
  BugInfo b = bug_info(store, bug);
  std::string own = b.reduced_ops;
  if (own.empty()) {
    auto st = store.db().prepare("SELECT coalesce(reduced_ops, '') FROM findings WHERE id = ?");
    st.bind(1, example_finding(store, bug));
    if (st.step()) own = st.column_text(0);
  }
  if (own.empty()) return {};
  // The findings by op set, in order, and the first one's reduced program.
  std::vector<std::string> sets = {own};
  std::map<std::string, std::vector<int64_t>> findings_of;
  std::map<std::string, std::string> reduced;
  {
    auto st = store.db().prepare(
        "SELECT id, reduced_ops, reduced_program FROM findings WHERE bug_id = ? AND reduced_ops IS NOT NULL "
        "ORDER BY id");
    st.bind(1, bug);
    while (st.step()) {
      std::string ops = st.column_text(1);
      if (!findings_of.count(ops) && ops != own) sets.push_back(ops);
      findings_of[ops].push_back(st.column_int(0));
      reduced.emplace(ops, st.column_text(2));
    }
  }
  std::vector<int64_t> made;
  for (const auto& group : linked_op_sets(sets)) {
    if (group.front() == own) continue;  // the bug's own group stays
    std::vector<int64_t> findings;
    for (const auto& ops : group) findings.insert(findings.end(), findings_of[ops].begin(), findings_of[ops].end());
    const std::string& key = group.front();
    std::string sig = b.signature + "|ops=" + key;
    int64_t to;
    {
      Transaction tx(store.db());
      to = bug_for_ops(store, bug, b, key, findings.front());
      for (int64_t f : findings)
        store.db().prepare("UPDATE findings SET bug_id = ?, signature = ? WHERE id = ?")
            .bind(1, to).bind(2, sig).bind(3, f).run();
      auto n = static_cast<int64_t>(findings.size());
      store.db().prepare("UPDATE bugs SET hits = hits + ? WHERE id = ?").bind(1, n).bind(2, to).run();
      store.db().prepare("UPDATE bugs SET hits = hits - ? WHERE id = ?").bind(1, n).bind(2, bug).run();
      tx.commit();
    }
    store.record_reduction(to, reduced[key], key);  // and whether it repeats an earlier bug
    made.push_back(to);
  }
  return made;
}

}  // namespace dlfuzz
