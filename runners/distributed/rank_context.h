// What a thread running one rank of a distributed program knows: its rank, the
// world, its process group, the plan's gradient synchronisation and any
// planted fault. Thread-local: ranks run as threads of one worker process
// (Gloo over a HashStore), and the runners, the program driver and the
// collective ops read the context of the thread they run on. Single-process
// runs have none.
#pragma once
#include <ATen/ATen.h>

#include <memory>
#include <string>
#include <vector>

#include "generator/program.h"

namespace c10d {
class ProcessGroup;
}

namespace dlfuzz {

// Faults planted in the distributed machinery, for testing the oracles.
enum class DistFault {
  none,
  corrupt_shard,  // rank 1 perturbs its synchronised gradients
  wrong_op,       // gradients reduced with max instead of sum
  no_average,     // gradients summed, not averaged
  deadlock,       // rank 0 skips the gradient all-reduce
};

// The collectives a rank calls, over whatever backend the group uses.
class RankGroup {
 public:
  virtual ~RankGroup() = default;
  virtual int rank() const = 0;
  virtual int world() const = 0;
  // In place on t; op is sum, avg, max, min or product.
  virtual void all_reduce(at::Tensor& t, const std::string& op) = 0;
  // Every rank's t, in rank order.
  virtual std::vector<at::Tensor> all_gather(const at::Tensor& t) = 0;
  virtual void broadcast(at::Tensor& t, int src) = 0;
};

// A group that adds the time each of its calls takes, waiting for the other
// ranks included, to *ms: a timed step then splits into collectives and compute.
class TimedGroup : public RankGroup {
 public:
  TimedGroup(RankGroup* inner, double* ms) : inner_(inner), ms_(ms) {}
  int rank() const override { return inner_->rank(); }
  int world() const override { return inner_->world(); }
  void all_reduce(at::Tensor& t, const std::string& op) override;
  std::vector<at::Tensor> all_gather(const at::Tensor& t) override;
  void broadcast(at::Tensor& t, int src) override;

 private:
  RankGroup* inner_;
  double* ms_;
};

struct RankContext {
  RankGroup* group = nullptr;  // null in the one-process micro-batch reference
  int rank = 0, world = 1;
  PlanKind plan = PlanKind::none;
  DistFault fault = DistFault::none;
  // Micro-batches this process runs per step: 1 on a rank; `world` in the
  // one-process reference, which runs every shard in turn and accumulates.
  int micro_batches = 1;
  // Filled by the program driver: a digest of every parameter after each step.
  std::vector<std::string> step_digests;
  // ZeRO: this rank's slice of the flattened parameters and its optimizer.
  std::shared_ptr<void> zero_state;
  // Milliseconds spent in `group`'s collectives so far (a TimedGroup's clock).
  double collective_ms = 0;
};

RankContext* current_rank();  // null outside distributed runs

// Installs ctx as the calling thread's context for its lifetime.
class RankScope {
 public:
  explicit RankScope(RankContext* ctx);
  ~RankScope();

 private:
  RankContext* prev_;
};

}  // namespace dlfuzz
