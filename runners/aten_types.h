// Conversions between dlfuzz's torch-free types and ATen's.
#pragma once
#include <ATen/ATen.h>

#include "generator/dtype.h"
#include "runners/run_result.h"

namespace dlfuzz {

at::ScalarType to_aten(DType t);
DType from_aten(at::ScalarType t);
at::MemoryFormat to_aten(MemFormat m);
// A contiguous host copy (undefined tensor -> defined=false).
HostTensor to_host(const at::Tensor& t);
// Back to a CPU tensor (undefined when h is).
at::Tensor from_host(const HostTensor& h);

}  // namespace dlfuzz
