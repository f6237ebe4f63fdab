// Fake-prop oracle: Dynamo gave up on a frame because FakeTensor propagation
// of an op raised, and ran the frame uncompiled, while the real op computed.
//
// Dynamo runs every op it traces on FakeTensors (meta kernels, functorch's
// wrappers, decompositions) before it puts the op in a graph. Where that
// raises, it handles the frame like user code that raised ("Observed
// exception"): a graph break, and the frame runs eagerly. The outputs then
// agree with eager, so the numeric oracle sees nothing, yet the program was
// not compiled and the error (often an INTERNAL ASSERT) is PyTorch's own:
// torch.compile of jvp over layer_norm with a weight, 2026-12-07. Data-
// dependent sizes, tracing's documented limit, are left out by the worker
// (dlfuzz_runtime.fake_prop_errors).
#pragma once
#include <optional>

#include "oracles/finding.h"
#include "runners/run_result.h"

namespace dlfuzz {

// A finding where the reference ran and the test result carries a FakeTensor
// propagation error (RunResult::fake_errors), whether the test then ran to the
// end or raised: the frame run uncompiled may itself fail (the eager fallback
// of jvp over batch_norm raised _make_dual's INTERNAL ASSERT in some processes
// and not in others, 2026-12-07), so the error Dynamo caught is the finding
// either way. Its error text, the dedup key, is the first error normalized.
std::optional<Finding> check_fake_prop(const RunResult& ref, const RunResult& test);

}  // namespace dlfuzz
