// TraceBinary: the compact binary trace format: a writer that streams steps while propagation
// runs, and a memory-mapped reader that seeks from keyframes without loading the steps.
//
// Layout (version 1; all integers little-endian; `varint` is unsigned LEB128, `zvarint` a
// zigzag-encoded signed LEB128):
//
//   header   16 bytes  magic "SHXTRACE", u32 format version (1), u32 flags (0)
//   section* 16 bytes  u32 tag (4 ASCII characters), u32 CRC-32 (IEEE) of the payload,
//                      u64 payload length; then the payload
//   trailer  32 bytes  u64 offset of the INDX section, u64 file length, u32 CRC-32 of these
//                      16 bytes, u32 0, magic "SHXTEND\0"
//
// Sections, in the order they are written:
//   CHNK (one per keyframe, written while propagation runs): varint first step, varint number
//        of steps, the keyframe (varint n, then n varints of sharding id + 1: the state before
//        the first step), then the step records. A chunk holds at most keyframeSteps steps, so
//        seeking replays at most that many.
//   STRS strings: varint count, then per string varint (shared << 1 | r), varint suffix length
//        and the suffix's UTF-8 bytes: the string is the first `shared` bytes of the string r + 1
//        before it, then the suffix (front coding). Every name, id, label, mesh name and note is
//        an index into it (each distinct string stored once).
//   VALS varint count, per value five zvarints, each the difference to the same field of the
//        value before (0 before the first): id and display name (strings), scope, op,
//        derivedFrom.
//   OPS_ varint count, per op four such zvarints: id, name, scope, display name.
//   SCOP varint count, varint string per scope.
//   NODE varint count, per node: u8 kind, zvarint parent, varint label, zvarint number,
//        varint first step, varint end step.
//   INIT varint count, zvarint sharding id per value (the state before step 0).
//   POOL five pools (shardings, rules, tables, decision sets, factor change sets): varint count,
//        then per entry varint length and the entry as compact JSON text, the element a JSON
//        trace lists for it (pools hold each distinct entry once; they are small).
//   INDX varint trace keyframe interval (TraceData's, the JSON "keyframeInterval"), varint
//        number of steps, varint keyframeSteps, varint offset of each of STRS VALS OPS_ SCOP NODE
//        INIT POOL, varint number of chunks, per chunk varint first step and varint offset.
//
// A step record: u8 kind, varint mask of the fields present (those not at their default: bit
// 0 node, 1 op, 2 funcResult, 3 mesh, 4 aggressive, 5 round, 6 userPriority, 7 group, 8 note,
// 9 numOperands, 10 tensorValues, 11 rule, 12 before, 13 after, 14 decisions, 15 changes),
// then those fields in that order: zvarint for numbers, varint string for mesh and note,
// nothing for aggressive (the bit is the value), varint count + zvarints for tensorValues,
// varint count + changes. A change: zvarint value, u8 mask (bit 0 tensor, 1 before, 2 after,
// 3 kind, 4 factors), then zvarint tensor, before, after, u8 kind, zvarint factors as present.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/support/Expected.h"
#include "core/support/TaggedSlotIndex.h"
#include "core/trace/Trace.h"

namespace shardx {

/// CRC-32 (IEEE 802.3, as zlib's crc32) of `size` bytes, continuing from `crc`.
uint32_t traceCrc32(const void* data, size_t size, uint32_t crc = 0);

/// True when `data` starts with the binary trace magic.
bool isBinaryTrace(std::string_view data);

/// The names part of a trace (values, ops, scopes) as the writer reads it, viewed where it lives: the
/// recorder's is the module's ProgramIds, so finishing a stream copies no name. Each accessor fills a
/// TraceValue / TraceOp whose strings are views.
class TraceNameRows {
public:
    struct Value {
        std::string_view id, displayName;
        int scope = -1, op = -1, derivedFrom = -1;
    };
    struct Op {
        std::string_view id, name, displayName;
        int scope = -1;
    };
    virtual ~TraceNameRows() = default;
    virtual size_t numValues() const = 0;
    virtual Value value(size_t i) const = 0;
    virtual size_t numOps() const = 0;
    virtual Op op(size_t i) const = 0;
    /// TraceData::scopes: every scope the values and ops name, in that order of first use.
    virtual size_t numScopes() const = 0;
    virtual std::string_view scope(size_t i) const = 0;
};

/// Streams a binary trace: steps as they are recorded (a chunk is written each keyframeSteps
/// steps), then everything else at finish(). Only the open chunk is held in memory.
class TraceBinaryWriter {
public:
    static constexpr uint32_t kFormatVersion = 1;

    /// `initial`: sharding id per value before step 0 (values added later start at -1).
    /// `keyframeSteps` 0 chooses max(4096, values / 4): keyframes then cost at most about four
    /// bytes per step.
    TraceBinaryWriter(std::ostream& out, const std::vector<int>& initial, int keyframeSteps = 0);

    void step(const TraceStep& s);
    /// Writes the rest from `data` (its steps are ignored: they were streamed), `numSteps`
    /// being the number of steps streamed and `traceKeyframeInterval` the trace's
    /// Trace::keyframeInterval(). False when the stream failed. It ends the writer: the writer
    /// may only be destroyed afterwards (its string table views `data`'s strings).
    bool finish(const TraceData& data, size_t numSteps, int traceKeyframeInterval);
    /// The same with the names read from `names` (data's values, ops and scopes are ignored); `names`
    /// and the strings it views must outlive the call.
    bool finish(const TraceData& data, const TraceNameRows& names, size_t numSteps, int traceKeyframeInterval);

    int keyframeSteps() const { return m_keyframeSteps; }

private:
    void flushChunk();
    void writeSection(const char tag[4], const std::string& payload);
    void writeSectionHead(const char tag[4], uint32_t crc, uint64_t size);
    /// Where finish() encodes a section: a small buffer handed on every 64 KB to the stream, or with
    /// no stream only counted (bytes and checksum).
    struct SectionOut {
        explicit SectionOut(std::ostream* stream = nullptr) : out(stream) {}
        std::string buf;
        std::ostream* out;
        uint32_t crc = 0;
        uint64_t size = 0;
        /// Hands the buffer on when it holds 64 KB (every byte with `all`).
        void spill(bool all = false);
    };
    /// Where a string of the table lives: viewed (m_viewed), or a field of a row of finish()'s
    /// names, read again when needed. A string is 4 bytes in the table, where a view was 16
    /// (finish() names every value and op: some million strings in a large program).
    enum StringSource : uint32_t { kViewed, kValueId, kValueName, kOpId, kOpName, kOpDisplayName, kScope };
    static constexpr unsigned kSourceShift = 29;
    static constexpr uint32_t kRowMask = (1u << kSourceShift) - 1;
    /// The id of `s` in the string table; a string first met is copied into m_stepStrings.
    uint32_t stringId(std::string_view s);
    /// The same for a string that outlives the writer's use of the table (finish()'s data),
    /// found again at `source` and `row` (kViewed: the table views `s` instead of copying it).
    uint32_t stableStringId(std::string_view s, StringSource source = kViewed, size_t row = 0);
    /// The string `id` of the table.
    std::string_view stringAt(uint32_t id) const;

    std::ostream& m_out;
    uint64_t m_offset = 0;
    int m_keyframeSteps;
    std::vector<int> m_state; ///< state after the steps written so far
    std::string m_chunk;      ///< step records of the open chunk
    size_t m_chunkFirst = 0;  ///< first step of the open chunk
    size_t m_chunkSteps = 0;  ///< steps in it
    std::string m_chunkFrame; ///< its keyframe, encoded
    size_t m_numSteps = 0;
    std::vector<std::pair<uint64_t, uint64_t>> m_chunks; ///< (first step, offset)
    std::deque<std::string> m_stepStrings;               ///< strings met in steps (the table views them)
    std::vector<std::string_view> m_viewed;              ///< the table's strings viewed where they are
    std::vector<uint32_t> m_strings;                     ///< by id: the source << kSourceShift | row
    const TraceNameRows* m_names = nullptr;              ///< finish()'s names, while it runs
    /// The string table's index (a finish() names every value and op: a node-based map spent some 50
    /// bytes on each of a million strings, this spends 8 at most).
    TaggedSlotIndex m_stringIndex;
    /// Where `s` is in the index, or where it goes.
    TaggedSlotIndex::Probe findString(std::string_view s) const;
    /// Makes room for `n` strings in all.
    void reserveStrings(size_t n);
};

/// Writes `trace` whole in the binary format.
bool writeTraceBinary(const Trace& trace, std::ostream& out);

/// A binary trace file mapped into memory. Opening checks the header, trailer and index;
/// each section's checksum is checked when it is read. Errors name the file, the byte offset
/// and what is wrong.
class TraceFile {
public:
    static Expected<TraceFile> open(const std::string& path);
    /// The same over bytes in memory (`name` for messages); `bytes` must outlive the TraceFile.
    static Expected<TraceFile> fromBytes(std::string_view bytes, const std::string& name);

    size_t numSteps() const { return m_numSteps; }
    size_t numValues() const { return m_numValues; }
    int keyframeSteps() const { return m_keyframeSteps; }
    /// The whole trace, validated as Trace::fromJson validates.
    Expected<Trace> load() const;
    /// The trace without its steps, nodes, ops and pools but the shardings: values, scopes,
    /// shardings and the initial state (what naming values and printing shardings needs).
    Expected<TraceData> loadNames() const;
    /// Sharding id per value after the first `step` steps: the keyframe at or before it, then
    /// at most keyframeSteps() steps replayed from the mapped file (no step is materialised).
    Expected<std::vector<int>> stateAfter(size_t step) const;

private:
    struct Mapping;
    struct Section {
        uint64_t offset = 0; ///< of its payload
        uint64_t size = 0;
    };
    Expected<Section> section(uint64_t headerOffset, const char tag[4]) const;
    Status readNames(TraceData& d, bool withPools) const;

    std::shared_ptr<const Mapping> m_map;
    std::string m_name;
    std::string_view m_bytes;
    size_t m_numSteps = 0;
    size_t m_numValues = 0;
    int m_keyframeSteps = 0;
    int m_traceInterval = 0;
    uint64_t m_strs = 0, m_vals = 0, m_ops = 0, m_scop = 0, m_node = 0, m_init = 0, m_pool = 0;
    std::vector<std::pair<uint64_t, uint64_t>> m_chunks; ///< (first step, offset)
};

/// Reads a trace file in either format (binary when it starts with the magic, else JSON); the
/// error names the file.
Expected<Trace> readTraceFile(const std::string& path);

} // namespace shardx
