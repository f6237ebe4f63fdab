#include "triage/merge.h"

#include <filesystem>
#include <map>
#include <vector>

namespace dlfuzz {

namespace {
void bind_text_or_null(Statement& st, int i, Statement& q, int column) {
  if (q.column_is_null(column)) st.bind_null(i);
  else st.bind(i, q.column_text(column));
}
}  // namespace

MergeStats merge_store(Store& into, const std::string& shard_path) {
  if (!std::filesystem::exists(shard_path)) throw StoreError(shard_path + ": no such file");
  Store shard(shard_path);  // validates the shard's schema before anything is read
  Database& src = shard.db();
  Database& dst = into.db();
  MergeStats st;
  Transaction tx(dst);
  std::map<int64_t, int64_t> campaign_ids, bug_ids;
  std::vector<std::pair<int64_t, int64_t>> shard_duplicates;  // (bug, duplicate_of) in shard ids
  std::vector<std::pair<int64_t, int64_t>> shard_splits;      // (bug, split_from) in shard ids
  {
    auto q = src.prepare("SELECT id, started_at, ended_at, host, config, versions, programs, findings FROM campaigns");
    while (q.step()) {
      dst.prepare(
             "INSERT INTO campaigns(started_at, ended_at, host, config, versions, programs, findings) VALUES(?,?,?,?,?,?,?)")
          .bind(1, q.column_text(1))
          .bind(2, q.column_text(2))
          .bind(3, q.column_text(3))
          .bind(4, q.column_text(4))
          .bind(5, q.column_text(5))
          .bind(6, q.column_int(6))
          .bind(7, q.column_int(7))
          .run();
      campaign_ids[q.column_int(0)] = dst.last_insert_id();
      ++st.campaigns;
    }
  }
  {
    auto q = src.prepare("SELECT hash, text, seed, nodes, first_seen FROM programs");
    while (q.step()) {
      auto ins = dst.prepare("INSERT OR IGNORE INTO programs(hash, text, seed, nodes, first_seen) VALUES(?,?,?,?,?)");
      ins.bind(1, q.column_text(0))
          .bind(2, q.column_text(1))
          .bind(3, q.column_int(2))
          .bind(4, q.column_int(3))
          .bind(5, q.column_text(4))
          .run();
      ++st.programs;
    }
  }
  {
    auto q = src.prepare(
        "SELECT id, signature, status, title, kind, first_seen, last_seen, hits, example_program, reduced_program, "
        "reduced_ops, duplicate_of, layer, compiler_pass, split_from FROM bugs");
    while (q.step()) {
      std::string sig = q.column_text(1);
      auto find = dst.prepare("SELECT id FROM bugs WHERE signature = ?");
      find.bind(1, sig);
      if (find.step()) {
        int64_t id = find.column_int(0);
        auto upd = dst.prepare(
            "UPDATE bugs SET hits = hits + ?, first_seen = min(first_seen, ?), last_seen = max(last_seen, ?), "
            "reduced_program = coalesce(reduced_program, ?), reduced_ops = coalesce(reduced_ops, ?), "
            "layer = coalesce(layer, ?), compiler_pass = coalesce(compiler_pass, ?) WHERE id = ?");
        upd.bind(1, q.column_int(7)).bind(2, q.column_text(5)).bind(3, q.column_text(6));
        bind_text_or_null(upd, 4, q, 9);
        bind_text_or_null(upd, 5, q, 10);
        bind_text_or_null(upd, 6, q, 12);
        bind_text_or_null(upd, 7, q, 13);
        upd.bind(8, id).run();
        bug_ids[q.column_int(0)] = id;
        ++st.merged_bugs;
      } else {
        auto ins = dst.prepare(
            "INSERT INTO bugs(signature, status, title, kind, first_seen, last_seen, hits, "
            "example_program, reduced_program, reduced_ops, layer, compiler_pass) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
        ins.bind(1, sig)
            .bind(2, q.column_text(2))
            .bind(3, q.column_text(3))
            .bind(4, q.column_text(4))
            .bind(5, q.column_text(5))
            .bind(6, q.column_text(6))
            .bind(7, q.column_int(7))
            .bind(8, q.column_text(8));
        bind_text_or_null(ins, 9, q, 9);
        bind_text_or_null(ins, 10, q, 10);
        bind_text_or_null(ins, 11, q, 12);
        bind_text_or_null(ins, 12, q, 13);
        ins.run();
        bug_ids[q.column_int(0)] = dst.last_insert_id();
        ++st.new_bugs;
      }
      if (!q.column_is_null(11)) shard_duplicates.emplace_back(q.column_int(0), q.column_int(11));
      if (!q.column_is_null(14)) shard_splits.emplace_back(q.column_int(0), q.column_int(14));
    }
    // So is where a split-off bug came from.
    for (auto [bug, from] : shard_splits)
      dst.prepare("UPDATE bugs SET split_from = ? WHERE id = ? AND split_from IS NULL AND ? <> id")
          .bind(1, bug_ids[from])
          .bind(2, bug_ids[bug])
          .bind(3, bug_ids[from])
          .run();
    // A duplicate link is kept where the merged store has none yet.
    for (auto [bug, of] : shard_duplicates)
      dst.prepare("UPDATE bugs SET duplicate_of = ? WHERE id = ? AND duplicate_of IS NULL AND ? <> id")
          .bind(1, bug_ids[of])
          .bind(2, bug_ids[bug])
          .bind(3, bug_ids[of])
          .run();
  }
  {
    auto q = src.prepare(
        "SELECT campaign_id, bug_id, program_hash, oracle, ref_runner, test_runner, stage, detail, "
        "signature, kind, flaky, versions, found_at, evidence, layer, ablation, coalesce(first_op, ''),"
        " coalesce(first_op_detail, ''), reduced_program, reduced_ops FROM findings");
    while (q.step()) {
      auto ins = dst.prepare(
             "INSERT INTO findings(campaign_id, bug_id, program_hash, oracle, ref_runner, test_runner, stage, "
             "detail, signature, kind, flaky, versions, found_at, evidence, layer, ablation, first_op, "
             "first_op_detail, reduced_program, reduced_ops) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
      ins.bind(1, campaign_ids[q.column_int(0)])
          .bind(2, bug_ids[q.column_int(1)])
          .bind(3, q.column_text(2))
          .bind(4, q.column_text(3))
          .bind(5, q.column_text(4))
          .bind(6, q.column_text(5))
          .bind(7, q.column_text(6))
          .bind(8, q.column_text(7))
          .bind(9, q.column_text(8))
          .bind(10, q.column_text(9))
          .bind(11, q.column_int(10))
          .bind(12, q.column_text(11))
          .bind(13, q.column_text(12))
          .bind(14, q.column_text(13))
          .bind(15, q.column_text(14))
          .bind(16, q.column_text(15))
          .bind(17, q.column_text(16))
          .bind(18, q.column_text(17));
      bind_text_or_null(ins, 19, q, 18);
      bind_text_or_null(ins, 20, q, 19);
      ins.run();
      ++st.findings;
    }
  }
  {  // rejections by (reference, reason): hits summed, the earlier example kept
    auto q = src.prepare("SELECT reference, reason, hits, first_seen, last_seen, example_program FROM rejections");
    while (q.step()) {
      auto up = dst.prepare(
          "INSERT INTO rejections(reference, reason, hits, first_seen, last_seen, example_program) "
          "VALUES(?,?,?,?,?,?) ON CONFLICT(reference, reason) DO UPDATE SET hits = hits + excluded.hits, "
          "first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen), "
          "example_program = coalesce(example_program, excluded.example_program)");
      up.bind(1, q.column_text(0)).bind(2, q.column_text(1)).bind(3, q.column_int(2)).bind(4, q.column_text(3));
      up.bind(5, q.column_text(4));
      bind_text_or_null(up, 6, q, 5);
      up.run();
      ++st.rejections;
    }
  }
  tx.commit();
  return st;
}

}  // namespace dlfuzz
