// Realistic blocks the generator mixes with random ops: the code people write
// and compilers are tuned for (attention, conv stacks, embedding heads,
// recurrent cells), where pattern matchers, fusions and decompositions act.
// Random ops alone rarely form these shapes. Each template reads a visible
// value when one fits (else a fresh input), makes its weights as params, and
// returns the block's output value.
#pragma once
#include <string>
#include <vector>

#include "generator/gen_context.h"

namespace dlfuzz {

// A pre-norm transformer block on [B, T, D]: layer/RMS norm, multi-head
// attention (through scaled_dot_product_attention in torch2 programs, or
// written out: matmul, scale, causal mask, softmax, matmul; sometimes a learned
// position bias where not causal), a residual, and a
// GELU or SwiGLU MLP with a second residual.
int transformer_block(GenContext& g);
// conv2d (sometimes depthwise), a norm (batch norm on batch stats or group
// norm in training; eval batch norm or a frozen scale and shift, as deployed
// models hold, in inference), an activation, sometimes a pool, and a residual
// when the shapes allow.
int conv_block(GenContext& g);
// An MLP layer as tabular and recommendation models deploy it: linear, a norm
// (batch norm on batch stats, sometimes, in training; in inference eval batch
// norm or a frozen scale and shift, which freezing folds into the linear), an
// activation, and a second linear.
int mlp_block(GenContext& g);
// A UNet or FPN decoder stage: the coarse map [N, C, H, W] to twice its size
// (a stride-2 transposed conv, or nearest/bilinear upsampling and a 1x1 conv),
// joined with an encoder feature map of that size (cat on channels, or add
// after a 1x1 lateral conv), then a 3x3 conv, the conv block's norm and ReLU or
// SiLU: the shapes segmentation and detection models compile.
int decoder_block(GenContext& g);
// A linear or conv layer under quantization-aware training (torch.ao's
// prepare_qat): its input activation fake-quantized to uint8, its weight to
// int8 or int4 symmetric, then the layer, an activation, and the output
// fake-quantized to uint8: what compiling a QAT model traces.
int qat_block(GenContext& g);
// Token ids through an embedding, a norm, and a linear head to vocabulary
// logits as [B*T, V] (the shape cross_entropy takes).
int embedding_head(GenContext& g);
// An Elman or GRU-like cell unrolled over 2-4 time steps of [T, B, I].
int recurrent_cell(GenContext& g);

// The templates by name (for `inspect` and tests), and one of them at random
// (of the policy's `templates` when it names some); a template returns -1 when
// the program's dtypes leave it no room.
const std::vector<std::string>& template_names();
int random_template(GenContext& g, std::string* name = nullptr);

}  // namespace dlfuzz
