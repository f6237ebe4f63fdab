#include "oracles/first_divergence.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "generator/op_spec.h"
#include "oracles/layer_ladder.h"
#include "oracles/near_tie.h"
#include "oracles/numeric_oracle.h"
#include "oracles/precision_flow.h"
#include "runners/runner_spec.h"

namespace dlfuzz {

namespace {
// Values that share storage with a tensor some node writes in place: an
// alias group joins a view's (or an in-place result's) output with its first
// argument; a group with an in-place write in it is not returned, since an
// output aliasing a mutated tensor changes what the compiler may do.
struct AliasGroups {
  std::map<int, int> parent;
  int find(int v) {
    auto it = parent.find(v);
    if (it == parent.end() || it->second == v) return v;
    return it->second = find(it->second);
  }
  void join(int a, int b) { parent[find(a)] = find(b); }
};

void collect_aliases(const Block& b, AliasGroups& groups, std::set<int>& written) {
  for (const auto& n : b.nodes) {
    const OpSpec* s = find_op(n.op);
    const auto* first = n.args.empty() ? nullptr : std::get_if<ValueRef>(&n.args.front().value);
    if (s && first && (s->inplace || s->view || s->may_alias))
      for (int o : n.outputs) groups.join(o, first->id);
    if (s && first && s->inplace) written.insert(first->id);
    for (const auto& inner : n.blocks) collect_aliases(inner, groups, written);
  }
}

// Which output of q value `id` is (yields.size() if none).
size_t output_index(const Program& q, int id) {
  return std::find(q.body.yields.begin(), q.body.yields.end(), id) - q.body.yields.begin();
}

// A comparison whose two runs each compare right on their own operands
// (near_tie.h); output k is its result.
bool near_tie(const Program& q, const Node& n, const RunResult& ref, const RunResult& test, size_t k) {
  auto lookup_in = [&q](const RunResult& r) {
    return [&q, &r](int id) -> const HostTensor* {
      size_t j = output_index(q, id);
      return j < r.outputs.size() ? &r.outputs[j] : nullptr;
    };
  };
  return follows_from_operands(n, ref.outputs[k], lookup_in(ref)) &&
         follows_from_operands(n, test.outputs[k], lookup_in(test));
}

const Node* node_of(const Program& p, int value) {
  for (const auto& n : p.body.nodes)
    for (int o : n.outputs)
      if (o == value) return &n;
  return nullptr;
}
}  // namespace

int reads_eager_overflow(const Program& q, const Node& n, const RunResult& ref, const RunResult& fp64, size_t offset) {
  if (!fp64.ok()) return -1;
  for (int v : node_inputs(n)) {
    size_t k = output_index(q, v) + offset;
    if (k >= ref.outputs.size() || k >= fp64.outputs.size()) continue;
    const HostTensor &a = ref.outputs[k], &t = fp64.outputs[k];
    if (!a.defined || !t.defined || !is_float(a.dtype) || a.numel() != t.numel()) continue;
    for (int64_t i = 0; i < a.numel(); ++i)
      if (!std::isfinite(a.at(i)) && std::isfinite(t.at(i))) return v;
  }
  return -1;
}

namespace {
// Whether `tangent` (of a value n reads) is 0 where n's own tangent has
// element i of `numel`: the same element where the sizes match, the one
// element of a scalar, else every element (a reduction or reshape reads them).
bool zero_at(const HostTensor& tangent, int64_t i, int64_t numel) {
  if (tangent.numel() == numel) return tangent.at(i) == 0;
  for (int64_t j = 0; j < tangent.numel(); ++j)
    if (tangent.at(j) != 0) return false;
  return true;
}
}  // namespace

std::string zero_times_infinite_partial(const Program& q, const Node& n, const RunResult& ref, const RunResult& test,
                                        size_t k, size_t offset, const HostTensor* fp64,
                                        const NumericOptions& options) {
  const HostTensor &a = ref.outputs[k], &b = test.outputs[k];
  if (!a.defined || !b.defined || !is_float(a.dtype) || a.numel() != b.numel()) return "";
  ElementSlack explained;
  explained.bound = INFINITY;
  explained.excused.resize(a.numel());
  const RunResult* where_not_finite = nullptr;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const bool finite_a = std::isfinite(a.at(i)), finite_b = std::isfinite(b.at(i));
    if (finite_a == finite_b) continue;
    const RunResult& r = finite_a ? test : ref;
    for (int v : node_inputs(n)) {
      if (!is_float(q.type(v).dtype)) continue;  // no tangent
      size_t j = output_index(q, v);
      if (j >= q.body.yields.size() || j + offset >= r.outputs.size()) return "";  // its tangent is not returned
      if (!zero_at(r.outputs[j + offset], i, a.numel())) return "";
    }
    explained.excused[i] = true;
    where_not_finite = &r;
  }
  // Those elements must be the whole divergence.
  if (!where_not_finite || !compare_tensor(a, b, fp64, options, &explained).empty()) return "";
  return where_not_finite->runner;
}

std::string describe_node(const Program& p, const Node& n) {
  std::vector<std::string> ins, outs;
  for (const auto& a : n.args) {
    if (const auto* r = std::get_if<ValueRef>(&a.value)) ins.push_back(type_str(p.type(r->id)));
    if (const auto* l = std::get_if<ValueList>(&a.value))
      for (int id : l->ids) ins.push_back(type_str(p.type(id)));
  }
  for (int o : n.outputs) outs.push_back("%" + p.values.at(o).name + " : " + type_str(p.type(o)));
  return fmt::format("{} = {}({})", fmt::join(outs, ", "), n.op, fmt::join(ins, ", "));
}

Program with_intermediates(const Program& p, std::vector<int>* observed) {
  Program q = p;
  AliasGroups groups;
  std::set<int> written, mutated_groups;
  collect_aliases(p.body, groups, written);
  for (int w : written) mutated_groups.insert(groups.find(w));
  std::set<int> already(p.body.yields.begin(), p.body.yields.end());
  for (const auto& n : p.body.nodes) {
    if (!n.blocks.empty()) continue;  // loop / if: their results are ordinary values, their insides are not
    if (!find_op(n.op)) continue;
    for (int o : n.outputs) {
      if (already.count(o)) {
        observed->push_back(o);  // an output already: compared where it is
        continue;
      }
      if (mutated_groups.count(groups.find(o))) continue;
      q.body.yields.push_back(o);
      observed->push_back(o);
    }
  }
  return q;
}

void locate_first_divergence(Executor& ex, const Program& p, std::vector<Finding>& findings) {
  if (p.plan.world != 1) return;
  std::vector<int> observed;
  Program q = with_intermediates(p, &observed);
  if (observed.empty()) return;
  const size_t n_outputs = p.body.yields.size();
  const NumericOptions options = numeric_options_for(&p);
  const PrecisionFlow flow = precision_flow(q);
  std::map<std::string, std::vector<RunResult>> runs;  // test runner -> ref, fp64, test on q
  for (auto& f : findings) {
    if (f.oracle != "numeric" || f.flaky || !f.first_op_detail.empty()) continue;  // explained already
    auto spec = parse_runner(f.test_runner);
    // A planted fault runner corrupts an output after the fact, not an op:
    // there is nothing to locate (its findings stay one bug per fault). The
    // planted Inductor lowering is an op's, and is located like a real one.
    if (!spec || (std::string(spec->row->family) == "fault" && !ladder_applies(f.test_runner))) continue;
    if (!runs.count(f.test_runner))
      runs[f.test_runner] = ex.run(q, {spec->reference(q), spec->fp64_reference(q), f.test_runner});
    const auto& r = runs[f.test_runner];
    const RunResult &ref = r.at(0), &fp64 = r.at(1), &test = r.at(2);
    // A resized runner (inductor-dynamic) reports q's outputs once per batch
    // size; a jvp runner reports them, then their tangents.
    const size_t m = q.body.yields.size();
    const size_t sizes = ref.outputs.size() / m;
    const bool jvp = spec->reference(q).rfind("py-eager-jvp", 0) == 0;  // jvp2's too
    if (!ref.ok() || !test.ok() || sizes == 0 || ref.outputs.size() != sizes * m ||
        test.outputs.size() != ref.outputs.size()) {
      const RunResult& bad = !ref.ok() ? ref : test;
      std::string why = bad.error.substr(0, bad.error.find('\n')).substr(0, 160);
      f.first_op_detail = "not located: the program with its intermediate values returned did not run (" + bad.runner +
                          ": " + (why.empty() ? "outputs missing" : why) + ")";
      continue;
    }
    // The finding must survive the rewrite: judge the original outputs alone
    // (the first n_outputs of each batch size's).
    RunResult ref_orig = ref, test_orig = test, fp64_orig = fp64;
    for (RunResult* x : {&ref_orig, &test_orig, &fp64_orig}) {
      if (x->outputs.size() != sizes * m) continue;
      std::vector<HostTensor> kept;
      for (size_t h = 0; h < sizes; ++h)
        kept.insert(kept.end(), x->outputs.begin() + h * m, x->outputs.begin() + h * m + n_outputs);
      x->outputs = std::move(kept);
    }
    if (!check_numeric(ref_orig, test_orig, fp64.ok() ? &fp64_orig : nullptr, options)) {
      f.first_op_detail = "not located: the finding goes away when intermediate values are returned";
      continue;
    }
    for (size_t i = 0; i < observed.size(); ++i) {
      // The first batch size at which it differs: its outputs start at `offset`.
      size_t k = 0, offset = 0;
      std::string diff;
      for (size_t h = 0; h < sizes && diff.empty(); ++h) {
        offset = h * m;
        k = output_index(q, observed[i]) + offset;
        const HostTensor* f64 = fp64.ok() && fp64.outputs.size() > k ? &fp64.outputs[k] : nullptr;
        diff = compare_tensor(ref.outputs[k], test.outputs[k], f64, options, nullptr, flow.values.at(observed[i]));
      }
      if (diff.empty()) continue;
      const Node* n = node_of(q, observed[i]);
      f.first_op = n ? n->op : "";
      const char* which_copy = !offset ? "" : jvp ? " (its tangent)" : " (batch resized)";
      f.first_op_detail = (n ? describe_node(q, *n) : "%" + q.values.at(observed[i]).name) + which_copy + ": " + diff;
      if (n && !offset && near_tie(q, *n, ref, test, k)) {
        f.first_op = kNearTie;
        f.first_op_detail +=
            "; in each run every element follows from that run's own operands, which agree within "
            "rounding: a tie broken by rounding upstream, not the comparison";
      } else if (std::string run = n && jvp && offset
                                       ? zero_times_infinite_partial(
                                             q, *n, ref, test, k, offset,
                                             fp64.ok() && fp64.outputs.size() > k ? &fp64.outputs[k] : nullptr, options)
                                       : "";
                 !run.empty()) {
        f.first_op = kZeroTimesInfinitePartial;
        f.first_op_detail += fmt::format(
            "; in {} every tangent it reads is 0 where its own is not finite: the op has no finite derivative "
            "at this point (hypot or atan2 of (0, 0), sqrt of 0), and the chain rule's 0 × ∞ is NaN in one mode "
            "while the other discards it. The program's derivative exists; the chain rule cannot give it "
            "(pytorch#6394)",
            run);
      } else if (int v = n ? reads_eager_overflow(q, *n, ref, fp64, offset) : -1; v >= 0) {
        f.first_op = kAfterEagerOverflow;
        f.first_op_detail += fmt::format(
            "; it reads %{}, which eager computed as Inf or NaN where float64 is finite: after eager's own "
            "overflow there is no reference to judge against",
            q.values.at(v).name);
      }
      break;
    }
    if (f.first_op.empty() && f.first_op_detail.empty())
      f.first_op_detail = p.is_training() ? "every forward value agrees: the divergence is in backward or the step"
                                          : "every returned intermediate agrees: it starts in a value not returned";
  }
}

}  // namespace dlfuzz
