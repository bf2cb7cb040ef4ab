// codes.h - operation and dtype codes shared by the GLSL kernels and the C++ side (plain #defines only).
#ifndef SHARDX_VK_KERNEL_CODES_H
#define SHARDX_VK_KERNEL_CODES_H

// Element types of the arithmetic kernels (32-bit words in every buffer).
#define SHARDX_VK_DT_F32 0
#define SHARDX_VK_DT_I32 1
#define SHARDX_VK_DT_U32 2
// dot_precise only: f32 words holding bf16 / f16 values, each product and partial sum rounded to the format.
#define SHARDX_VK_DT_F32_BF16 3
#define SHARDX_VK_DT_F32_F16 4

// unary.comp
#define SHARDX_VK_UN_NEG 0
#define SHARDX_VK_UN_ABS 1
#define SHARDX_VK_UN_EXP 2
#define SHARDX_VK_UN_LOG 3
#define SHARDX_VK_UN_TANH 4
#define SHARDX_VK_UN_SQRT 5
#define SHARDX_VK_UN_RSQRT 6
#define SHARDX_VK_UN_FLOOR 7
#define SHARDX_VK_UN_CEIL 8
#define SHARDX_VK_UN_SIGN 9
#define SHARDX_VK_UN_NOT 10
#define SHARDX_VK_UN_TO_F32 11
#define SHARDX_VK_UN_TO_I32 12
#define SHARDX_VK_UN_TO_U32 13
// f32 in, f32 out: the value rounded to bf16 / f16 (to nearest, ties to even), as f32 (f16 and bf16 tensors are kept
// widened to f32 words on the device).
#define SHARDX_VK_UN_ROUND_BF16 14
#define SHARDX_VK_UN_ROUND_F16 15

// binary.comp
#define SHARDX_VK_BIN_ADD 0
#define SHARDX_VK_BIN_SUB 1
#define SHARDX_VK_BIN_MUL 2
#define SHARDX_VK_BIN_DIV 3
#define SHARDX_VK_BIN_MAX 4
#define SHARDX_VK_BIN_MIN 5
#define SHARDX_VK_BIN_REM 6
#define SHARDX_VK_BIN_AND 7
#define SHARDX_VK_BIN_OR 8
#define SHARDX_VK_BIN_XOR 9

// compare.comp (results are 0 or 1 in a u32 word)
#define SHARDX_VK_CMP_EQ 0
#define SHARDX_VK_CMP_NE 1
#define SHARDX_VK_CMP_LT 2
#define SHARDX_VK_CMP_LE 3
#define SHARDX_VK_CMP_GT 4
#define SHARDX_VK_CMP_GE 5

// reduce.comp
#define SHARDX_VK_RED_SUM 0
#define SHARDX_VK_RED_MAX 1
#define SHARDX_VK_RED_MIN 2
#define SHARDX_VK_RED_PROD 3

// Bytes of the parameter block bound at binding 0 (16 KiB: the least maxUniformBufferRange Vulkan allows).
#define SHARDX_VK_PARAM_BLOCK_BYTES 16384

// Most dimensions a strided copy, reduce or dot_general kernel walks.
#define SHARDX_VK_MAX_RANK 8

#endif
