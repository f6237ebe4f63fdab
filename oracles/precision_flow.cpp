#include "oracles/precision_flow.h"

#include <set>

#include "generator/op_spec.h"

namespace dlfuzz {

namespace {
int bits(DType t) {  // mantissa bits: the order of precision
  switch (t) {
    case DType::bf16: return 8;
    case DType::f16: return 11;
    case DType::f32: return 24;
    default: return 53;
  }
}

// The dtype of a value an op computed, if it rounds below float64.
std::optional<DType> low(DType t) {
  return t == DType::bf16 || t == DType::f16 || t == DType::f32 ? std::optional<DType>(t) : std::nullopt;
}

// Every value a node reads, in its nested blocks too.
void collect_reads(const Node& n, std::vector<int>& out) {
  for (int v : node_inputs(n)) out.push_back(v);
  for (const auto& b : n.blocks) {
    for (const auto& inner : b.nodes) collect_reads(inner, out);
    out.insert(out.end(), b.yields.begin(), b.yields.end());
  }
}

class Flow {
 public:
  explicit Flow(const Program& p) : p_(p), flow_(p.values.size()) {}

  void block(const Block& b) {
    for (const auto& n : b.nodes) node(n);
  }
  const std::vector<std::optional<DType>>& values() const { return flow_; }

 private:
  std::optional<DType> at(int v) const { return v >= 0 && size_t(v) < flow_.size() ? flow_[v] : std::nullopt; }
  void set(int v, std::optional<DType> f) {
    if (v >= 0 && size_t(v) < flow_.size()) flow_[v] = f;
  }

  void node(const Node& n) {
    std::optional<DType> in;
    for (int v : node_inputs(n)) in = coarser(in, at(v));
    if (n.blocks.empty()) {
      // A view moves values without rounding them.
      const OpSpec* spec = find_op(n.op);
      bool view = spec && spec->view;
      for (int o : n.outputs) set(o, coarser(in, view ? std::nullopt : low(p_.type(o).dtype)));
      return;
    }
    // A loop or if: everything it produces may carry anything computed
    // inside. Twice, so a loop's carried values see what the body computed.
    std::optional<DType> all = in;
    for (int pass = 0; pass < 2; ++pass) {
      for (const auto& b : n.blocks) {
        for (int v : b.params) set(v, coarser(all, low(p_.type(v).dtype)));
        block(b);
      }
      std::vector<int> reads;
      collect_reads(n, reads);
      for (int v : reads) all = coarser(all, at(v));
    }
    for (int o : n.outputs) set(o, coarser(all, low(p_.type(o).dtype)));
  }

  const Program& p_;
  std::vector<std::optional<DType>> flow_;
};

// The values each top-level node of the body reads (nested blocks included)
// and produces: backward runs through these.
struct TopNode {
  std::vector<int> reads, outputs;
};

std::vector<TopNode> top_nodes(const Program& p) {
  std::vector<TopNode> nodes;
  for (const auto& n : p.body.nodes) {
    TopNode t;
    collect_reads(n, t.reads);
    t.outputs = n.outputs;
    nodes.push_back(std::move(t));
  }
  return nodes;
}

// The values the loss is computed from (itself included).
std::vector<bool> loss_ancestors(const Program& p, const std::vector<TopNode>& nodes) {
  const size_t nv = p.values.size();
  std::vector<bool> to_loss(nv);
  int loss = p.train->loss;
  if (loss >= 0 && size_t(loss) < nv) to_loss[loss] = true;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    bool feeds = false;
    for (int o : it->outputs) feeds = feeds || to_loss[o];
    if (feeds)
      for (int v : it->reads)
        if (v >= 0 && size_t(v) < nv) to_loss[v] = true;
  }
  return to_loss;
}

// The precision of param q's gradient: what backward reads between q and the
// loss (the forward values of every node on a path from q to the loss, their
// inputs too), and the dtypes backward accumulates in along that path.
// `to_loss`: loss_ancestors().
std::optional<DType> gradient_flow(const Program& p, const std::vector<TopNode>& nodes,
                                   const std::vector<bool>& to_loss, const std::vector<std::optional<DType>>& flow,
                                   int q) {
  const size_t nv = p.values.size();
  std::vector<bool> from_q(nv);
  if (q >= 0 && size_t(q) < nv) from_q[q] = true;
  for (const auto& n : nodes) {
    bool reached = false;
    for (int v : n.reads) reached = reached || (v >= 0 && size_t(v) < nv && from_q[v]);
    if (reached)
      for (int o : n.outputs) from_q[o] = true;
  }
  std::optional<DType> g = low(p.type(q).dtype);
  for (const auto& n : nodes) {
    bool on_path = false;
    for (int o : n.outputs) on_path = on_path || (from_q[o] && to_loss[o]);
    if (!on_path) continue;
    for (int v : n.reads) g = coarser(g, v >= 0 && size_t(v) < nv ? flow[v] : std::nullopt);
    for (int o : n.outputs) g = coarser(g, coarser(flow[o], low(p.type(o).dtype)));
  }
  return g;
}
}  // namespace

std::optional<DType> coarser(std::optional<DType> a, std::optional<DType> b) {
  if (!a) return b;
  if (!b) return a;
  return bits(*b) < bits(*a) ? b : a;
}

PrecisionFlow precision_flow(const Program& p) {
  Flow f(p);
  f.block(p.body);
  PrecisionFlow r;
  r.values = f.values();
  for (int y : p.body.yields) r.outputs.push_back(y >= 0 && size_t(y) < r.values.size() ? r.values[y] : std::nullopt);
  if (!p.is_training()) return r;
  auto nodes = top_nodes(p);
  const std::vector<bool> to_loss = loss_ancestors(p, nodes);
  std::optional<DType> any_param;
  for (const auto& in : p.inputs) {
    if (in.kind != InputKind::param) continue;
    r.params.push_back(gradient_flow(p, nodes, to_loss, r.values, in.value));
    any_param = coarser(any_param, r.params.back());
  }
  // After the first step every value is computed from params the earlier
  // steps updated with those gradients.
  if (p.train->steps > 1) {
    for (auto& o : r.outputs) o = coarser(o, any_param);
    for (auto& q : r.params) q = coarser(q, any_param);
  }
  return r;
}

}  // namespace dlfuzz
