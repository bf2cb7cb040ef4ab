// Internal to core/trace: the constants of the binary trace format that its writer (TraceBinary.cpp) and its
// reader (TraceFile.cpp) share. The layout itself is described in TraceBinary.h.
#pragma once

#include <cstddef>
#include <cstdint>

namespace shardx::tracebin {

inline constexpr char kTraceMagic[8] = {'S', 'H', 'X', 'T', 'R', 'A', 'C', 'E'};
inline constexpr char kTraceEndMagic[8] = {'S', 'H', 'X', 'T', 'E', 'N', 'D', '\0'};
inline constexpr size_t kHeaderSize = 16;
inline constexpr size_t kSectionHeaderSize = 16;
inline constexpr size_t kTrailerSize = 32;
inline constexpr int kNumStepKinds = 11;
inline constexpr int kNumNodeKinds = 5;
inline constexpr int kNumDecisionKinds = 19;

// Bits of a step record's field mask, and of a change's.
inline constexpr uint32_t kNode = 1u << 0;
inline constexpr uint32_t kOp = 1u << 1;
inline constexpr uint32_t kFuncResult = 1u << 2;
inline constexpr uint32_t kMesh = 1u << 3;
inline constexpr uint32_t kAggressive = 1u << 4;
inline constexpr uint32_t kRound = 1u << 5;
inline constexpr uint32_t kUserPriority = 1u << 6;
inline constexpr uint32_t kGroup = 1u << 7;
inline constexpr uint32_t kNote = 1u << 8;
inline constexpr uint32_t kNumOperands = 1u << 9;
inline constexpr uint32_t kTensorValues = 1u << 10;
inline constexpr uint32_t kRule = 1u << 11;
inline constexpr uint32_t kBefore = 1u << 12;
inline constexpr uint32_t kAfter = 1u << 13;
inline constexpr uint32_t kDecisions = 1u << 14;
inline constexpr uint32_t kChanges = 1u << 15;
inline constexpr uint32_t kAllStepFields = (1u << 16) - 1;
inline constexpr uint32_t kChTensor = 1u << 0;
inline constexpr uint32_t kChBefore = 1u << 1;
inline constexpr uint32_t kChAfter = 1u << 2;
inline constexpr uint32_t kChKind = 1u << 3;
inline constexpr uint32_t kChFactors = 1u << 4;
inline constexpr uint32_t kAllChangeFields = (1u << 5) - 1;

/// The little-endian unsigned integer of `bytes` bytes at `p`.
inline uint64_t getLe(const char* p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i)
        v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    return v;
}

} // namespace shardx::tracebin
