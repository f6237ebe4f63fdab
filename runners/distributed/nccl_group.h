// Ranks on GPUs through NCCL (the CUDA 13 toolkit's, at /usr/local/cuda): one
// rank per GPU, ranks as threads of one process sharing an ncclUniqueId.
// Debian's LibTorch is CPU-only, so tensors are staged through device buffers:
// what is under test is NCCL's collectives and the plans over them, not CUDA
// kernels. A hung NCCL collective does not time out by itself; the worker's
// timeout ends the run.
#pragma once
#include <memory>

#include "runners/distributed/rendezvous.h"

namespace dlfuzz {

// Throws std::runtime_error when this build has no NCCL, there is no CUDA
// device, or fewer devices than ranks.
std::unique_ptr<Rendezvous> make_nccl_rendezvous(int world);

}  // namespace dlfuzz
