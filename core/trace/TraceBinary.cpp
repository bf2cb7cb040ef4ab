// TraceBinary: writing the binary trace format (the layout is in TraceBinary.h; TraceFile.cpp reads it).
#include "core/trace/TraceBinary.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <ostream>

#include "core/trace/TraceBinaryFormat.h"
#include "core/trace/TracePoolJson.h"

namespace shardx {

using namespace tracebin;

namespace {

// ---- CRC-32, slicing by 8 ---------------------------------------------------------------

using CrcTables = std::array<std::array<uint32_t, 256>, 8>;

constexpr CrcTables makeCrcTables()
{
    CrcTables t{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int k = 0; k < 8; ++k)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
        for (size_t s = 1; s < 8; ++s)
            t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFF];
    return t;
}

constexpr CrcTables kCrcTables = makeCrcTables();

// ---- encoding -----------------------------------------------------------------------------

/// Writes `v` as a varint at `p` (room for 10 bytes); returns the bytes written.
size_t writeVarint(char* p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = static_cast<char>((v & 0x7F) | 0x80);
        v >>= 7;
    }
    p[n++] = static_cast<char>(v);
    return n;
}

void putVarint(std::string& o, uint64_t v)
{
    if (v < 0x80) {
        o.push_back(static_cast<char>(v));
        return;
    }
    char buf[10]; // encoded on the stack and appended once
    o.append(buf, writeVarint(buf, v));
}

void putZ(std::string& o, int64_t v) { putVarint(o, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }

void putLe(std::string& o, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        o.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

template <typename StringId> void encodeStep(std::string& o, const TraceStep& s, StringId&& stringId)
{
    uint32_t mask = 0;
    auto bit = [&mask](bool present, uint32_t b) { mask |= present ? b : 0; };
    bit(s.node != -1, kNode);
    bit(s.op != -1, kOp);
    bit(s.funcResult != -1, kFuncResult);
    bit(!s.meshName.empty(), kMesh);
    bit(s.aggressive, kAggressive);
    bit(s.round != -1, kRound);
    bit(s.userPriority != -1, kUserPriority);
    bit(s.group != -1, kGroup);
    bit(!s.note.empty(), kNote);
    bit(s.numOperands != 0, kNumOperands);
    bit(!s.tensorValues.empty(), kTensorValues);
    bit(s.rule != -1, kRule);
    bit(s.before != -1, kBefore);
    bit(s.after != -1, kAfter);
    bit(s.decisions != -1, kDecisions);
    bit(!s.changes.empty(), kChanges);
    o.push_back(static_cast<char>(s.kind));
    putVarint(o, mask);
    if (mask & kNode)
        putZ(o, s.node);
    if (mask & kOp)
        putZ(o, s.op);
    if (mask & kFuncResult)
        putZ(o, s.funcResult);
    if (mask & kMesh)
        putVarint(o, stringId(s.meshName));
    if (mask & kRound)
        putZ(o, s.round);
    if (mask & kUserPriority)
        putZ(o, s.userPriority);
    if (mask & kGroup)
        putZ(o, s.group);
    if (mask & kNote)
        putVarint(o, stringId(s.note));
    if (mask & kNumOperands)
        putZ(o, s.numOperands);
    if (mask & kTensorValues) {
        putVarint(o, s.tensorValues.size());
        for (int v : s.tensorValues)
            putZ(o, v);
    }
    if (mask & kRule)
        putZ(o, s.rule);
    if (mask & kBefore)
        putZ(o, s.before);
    if (mask & kAfter)
        putZ(o, s.after);
    if (mask & kDecisions)
        putZ(o, s.decisions);
    if (mask & kChanges) {
        putVarint(o, s.changes.size());
        for (const TraceChange& c : s.changes) {
            putZ(o, c.value);
            uint32_t cm = 0;
            cm |= c.tensor != -1 ? kChTensor : 0;
            cm |= c.before != -1 ? kChBefore : 0;
            cm |= c.after != -1 ? kChAfter : 0;
            cm |= c.kind != DecisionKind::CompatiblePrefix ? kChKind : 0;
            cm |= c.factors != -1 ? kChFactors : 0;
            o.push_back(static_cast<char>(cm));
            if (cm & kChTensor)
                putZ(o, c.tensor);
            if (cm & kChBefore)
                putZ(o, c.before);
            if (cm & kChAfter)
                putZ(o, c.after);
            if (cm & kChKind)
                o.push_back(static_cast<char>(c.kind));
            if (cm & kChFactors)
                putZ(o, c.factors);
        }
    }
}

} // namespace

uint32_t traceCrc32(const void* data, size_t size, uint32_t crc)
{
    const auto* p = static_cast<const unsigned char*>(data);
    const CrcTables& t = kCrcTables;
    crc = ~crc;
    while (size >= 8) {
        const uint32_t lo = crc ^ (static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
                                   static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24);
        crc = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^ t[3][p[4]] ^
              t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
        p += 8;
        size -= 8;
    }
    while (size--)
        crc = t[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

bool isBinaryTrace(std::string_view data)
{
    return data.size() >= sizeof kTraceMagic && std::memcmp(data.data(), kTraceMagic, sizeof kTraceMagic) == 0;
}

// ---- writer -------------------------------------------------------------------------------

TraceBinaryWriter::TraceBinaryWriter(std::ostream& out, const std::vector<int>& initial, int keyframeSteps)
    : m_out(out),
      m_keyframeSteps(keyframeSteps > 0 ? keyframeSteps : std::max(4096, static_cast<int>(initial.size() / 4))),
      m_state(initial)
{
    std::string header(kTraceMagic, sizeof kTraceMagic);
    putLe(header, kFormatVersion, 4);
    putLe(header, 0, 4);
    m_out.write(header.data(), static_cast<std::streamsize>(header.size()));
    m_offset = header.size();
}

TaggedSlotIndex::Probe TraceBinaryWriter::findString(std::string_view s) const
{
    return m_stringIndex.find(std::hash<std::string_view>{}(s), [&](uint32_t id) { return stringAt(id) == s; });
}

void TraceBinaryWriter::reserveStrings(size_t n)
{
    size_t size = m_stringIndex.empty() ? 64 : m_stringIndex.slotCount();
    while (size < 2 * n)
        size *= 2;
    if (size == m_stringIndex.slotCount())
        return;
    m_stringIndex.reset(size);
    for (size_t id = 0; id < m_strings.size(); ++id)
        m_stringIndex.place(std::hash<std::string_view>{}(stringAt(static_cast<uint32_t>(id))),
                            static_cast<uint32_t>(id));
}

std::string_view TraceBinaryWriter::stringAt(uint32_t id) const
{
    const uint32_t ref = m_strings[id];
    const size_t row = ref & kRowMask;
    switch (static_cast<StringSource>(ref >> kSourceShift)) {
    case kViewed: return m_viewed[row];
    case kValueId: return m_names->value(row).id;
    case kValueName: return m_names->value(row).displayName;
    case kOpId: return m_names->op(row).id;
    case kOpName: return m_names->op(row).name;
    case kOpDisplayName: return m_names->op(row).displayName;
    case kScope: return m_names->scope(row);
    }
    return {};
}

uint32_t TraceBinaryWriter::stringId(std::string_view s)
{
    if (!m_stringIndex.empty())
        if (const uint32_t id = findString(s).entry; id != TaggedSlotIndex::kAbsent)
            return id;
    return stableStringId(m_stepStrings.emplace_back(s));
}

uint32_t TraceBinaryWriter::stableStringId(std::string_view s, StringSource source, size_t row)
{
    if (2 * (m_strings.size() + 1) > m_stringIndex.slotCount())
        reserveStrings(m_strings.size() + 1);
    const TaggedSlotIndex::Probe found = findString(s);
    if (found.entry == TaggedSlotIndex::kAbsent) {
        if (source == kViewed || row > kRowMask) {
            source = kViewed;
            row = m_viewed.size();
            m_viewed.push_back(s);
        }
        if (m_strings.size() == m_strings.capacity())
            m_strings.reserve(std::max<size_t>(64, m_strings.size() + m_strings.size() / 2));
        m_strings.push_back(static_cast<uint32_t>(source) << kSourceShift | static_cast<uint32_t>(row));
        m_stringIndex.insert(found, static_cast<uint32_t>(m_strings.size() - 1));
        return static_cast<uint32_t>(m_strings.size() - 1);
    }
    return found.entry;
}

void TraceBinaryWriter::writeSectionHead(const char tag[4], uint32_t crc, uint64_t size)
{
    std::string head(tag, 4);
    putLe(head, crc, 4);
    putLe(head, size, 8);
    m_out.write(head.data(), static_cast<std::streamsize>(head.size()));
    m_offset += head.size();
}

void TraceBinaryWriter::writeSection(const char tag[4], const std::string& payload)
{
    writeSectionHead(tag, traceCrc32(payload.data(), payload.size()), payload.size());
    m_out.write(payload.data(), static_cast<std::streamsize>(payload.size()));
    m_offset += payload.size();
}

void TraceBinaryWriter::SectionOut::spill(bool all)
{
    if (!all && buf.size() < 64 * 1024)
        return;
    if (out)
        out->write(buf.data(), static_cast<std::streamsize>(buf.size()));
    else
        crc = traceCrc32(buf.data(), buf.size(), crc);
    size += buf.size();
    buf.clear();
}

void TraceBinaryWriter::step(const TraceStep& s)
{
    if (m_chunkSteps == 0) {
        m_chunkFirst = m_numSteps;
        m_chunkFrame.clear();
        // Values without a sharding at the end are left out (they read back as -1).
        size_t n = m_state.size();
        while (n > 0 && m_state[n - 1] == -1)
            --n;
        putVarint(m_chunkFrame, n);
        // A varint per value of the program, encoded a block at a time on the stack (each state + 1
        // takes 5 bytes at most) and appended.
        constexpr size_t kBlock = 1024;
        char buf[5 * kBlock];
        for (size_t first = 0; first < n; first += kBlock) {
            char* p = buf;
            for (size_t i = first; i < std::min(n, first + kBlock); ++i)
                p += writeVarint(p, static_cast<uint64_t>(static_cast<int64_t>(m_state[i]) + 1));
            m_chunkFrame.append(buf, static_cast<size_t>(p - buf));
        }
    }
    encodeStep(m_chunk, s, [this](const std::string& str) { return stringId(str); });
    for (const TraceChange& c : s.changes) {
        if (c.value < 0)
            continue;
        if (static_cast<size_t>(c.value) >= m_state.size())
            m_state.resize(static_cast<size_t>(c.value) + 1, -1);
        m_state[static_cast<size_t>(c.value)] = c.after;
    }
    ++m_numSteps;
    if (++m_chunkSteps == static_cast<size_t>(m_keyframeSteps))
        flushChunk();
}

void TraceBinaryWriter::flushChunk()
{
    if (m_chunkSteps == 0)
        return;
    std::string payload;
    payload.reserve(m_chunkFrame.size() + m_chunk.size() + 16);
    putVarint(payload, m_chunkFirst);
    putVarint(payload, m_chunkSteps);
    payload += m_chunkFrame;
    payload += m_chunk;
    m_chunks.emplace_back(m_chunkFirst, m_offset);
    writeSection("CHNK", payload);
    m_chunk.clear();
    m_chunkSteps = 0;
}

namespace {

/// TraceData's own names as TraceNameRows.
class DataNameRows final : public TraceNameRows {
public:
    explicit DataNameRows(const TraceData& d) : m_d(d) {}
    size_t numValues() const override { return m_d.values.size(); }
    Value value(size_t i) const override
    {
        const TraceValue& v = m_d.values[i];
        return {v.id, v.displayName, v.scope, v.op, v.derivedFrom};
    }
    size_t numOps() const override { return m_d.ops.size(); }
    Op op(size_t i) const override
    {
        const TraceOp& o = m_d.ops[i];
        return {o.id, o.name, o.displayName, o.scope};
    }
    size_t numScopes() const override { return m_d.scopes.size(); }
    std::string_view scope(size_t i) const override { return m_d.scopes[i]; }

private:
    const TraceData& m_d;
};

} // namespace

bool TraceBinaryWriter::finish(const TraceData& d, size_t numSteps, int traceKeyframeInterval)
{
    return finish(d, DataNameRows(d), numSteps, traceKeyframeInterval);
}

bool TraceBinaryWriter::finish(const TraceData& d, const TraceNameRows& names, size_t numSteps,
                               int traceKeyframeInterval)
{
    flushChunk();
    m_names = &names;
    const size_t numValues = names.numValues(), numOps = names.numOps();
    const size_t numScopes = names.numScopes();
    // Room for the names most programs have (a value's id and name; an op's names are mostly its
    // first result's); the table grows by half when there are more.
    const size_t expected = m_strings.size() + 2 * numValues + numScopes + d.nodes.size();
    m_strings.reserve(expected);
    reserveStrings(expected);
    // `names` and `d` outlive the table's use: their strings are viewed, not copied.
    auto sid = [this](std::string_view s, StringSource source = kViewed, size_t row = 0) {
        return stableStringId(s, source, row);
    };
    // The sections that name strings are encoded twice, into a small buffer: first to count their
    // bytes and checksums (which gives every string its id, in the order of the sections), then to
    // write them after their headers. A large program's sections are never held whole.
    // Every field of a value or op is the difference to the same field of the one before:
    // neighbours have neighbouring strings and scopes.
    int64_t prev[5] = {0, 0, 0, 0, 0};
    // The rows' strings are looked up at random places of a table of millions of slots: the slots of
    // the rows a few ahead are fetched while this one is encoded.
    constexpr size_t kLookAhead = 8;
    auto prefetchString = [this](std::string_view s) { m_stringIndex.prefetch(std::hash<std::string_view>{}(s)); };
    auto delta = [&prev](std::string& o, int field, int64_t v) {
        putZ(o, v - prev[field]);
        prev[field] = v;
    };
    auto encodeValues = [&](SectionOut& out) {
        std::fill(std::begin(prev), std::end(prev), 0);
        putVarint(out.buf, numValues);
        for (size_t i = 0; i < numValues; ++i) {
            if (i + kLookAhead < numValues) {
                const TraceNameRows::Value ahead = names.value(i + kLookAhead);
                prefetchString(ahead.id);
                prefetchString(ahead.displayName);
            }
            const TraceNameRows::Value v = names.value(i);
            delta(out.buf, 0, sid(v.id, kValueId, i));
            delta(out.buf, 1, sid(v.displayName, kValueName, i));
            delta(out.buf, 2, v.scope);
            delta(out.buf, 3, v.op);
            delta(out.buf, 4, v.derivedFrom);
            out.spill();
        }
    };
    auto encodeOps = [&](SectionOut& out) {
        std::fill(std::begin(prev), std::end(prev), 0);
        putVarint(out.buf, numOps);
        for (size_t i = 0; i < numOps; ++i) {
            if (i + kLookAhead < numOps) {
                const TraceNameRows::Op ahead = names.op(i + kLookAhead);
                prefetchString(ahead.id);
                prefetchString(ahead.name);
                prefetchString(ahead.displayName);
            }
            const TraceNameRows::Op o = names.op(i);
            delta(out.buf, 0, sid(o.id, kOpId, i));
            delta(out.buf, 1, sid(o.name, kOpName, i));
            delta(out.buf, 2, o.scope);
            delta(out.buf, 3, sid(o.displayName, kOpDisplayName, i));
            out.spill();
        }
    };
    auto encodeScopes = [&](SectionOut& out) {
        putVarint(out.buf, numScopes);
        for (size_t i = 0; i < numScopes; ++i) {
            putVarint(out.buf, sid(names.scope(i), kScope, i));
            out.spill();
        }
    };
    auto encodeNodes = [&](SectionOut& out) {
        putVarint(out.buf, d.nodes.size());
        for (const TraceNode& n : d.nodes) {
            out.buf.push_back(static_cast<char>(n.kind));
            putZ(out.buf, n.parent);
            putVarint(out.buf, sid(n.label));
            putZ(out.buf, n.number);
            putVarint(out.buf, static_cast<uint64_t>(std::max(0, n.firstStep)));
            putVarint(out.buf, static_cast<uint64_t>(std::max(0, n.endStep)));
            out.spill();
        }
    };
    auto encodeStrings = [&](SectionOut& out) {
        putVarint(out.buf, m_strings.size());
        std::string_view previous[2]; // the strings i - 1 and i - 2
        for (size_t i = 0; i < m_strings.size(); ++i) {
            // Front coding: the longest prefix shared with one of the two strings before (a value's
            // id follows the previous value's id, a scope the previous scope).
            const std::string_view str = stringAt(static_cast<uint32_t>(i));
            size_t best = 0, ref = 1;
            for (size_t r = 1; r <= 2 && r <= i; ++r) {
                const std::string_view before = previous[r - 1];
                size_t n = 0;
                while (n < str.size() && n < before.size() && str[n] == before[n])
                    ++n;
                if (n > best) {
                    best = n;
                    ref = r;
                }
            }
            putVarint(out.buf, (static_cast<uint64_t>(best) << 1) | (ref - 1));
            putVarint(out.buf, str.size() - best);
            out.buf.append(str, best, std::string::npos);
            out.spill();
            previous[1] = previous[0];
            previous[0] = str;
        }
    };
    std::string init, pool;
    putVarint(init, d.initial.size());
    for (int id : d.initial)
        putZ(init, id);
    for (int p = 0; p < kNumTracePools; ++p) {
        const size_t n = tracePoolSize(d, static_cast<TracePool>(p));
        putVarint(pool, n);
        for (size_t i = 0; i < n; ++i) {
            const std::string text = tracePoolEntryJson(d, static_cast<TracePool>(p), i);
            putVarint(pool, text.size());
            pool += text;
        }
    }
    const std::function<void(SectionOut&)> streamed[5] = {encodeStrings, encodeValues, encodeOps, encodeScopes,
                                                          encodeNodes};
    SectionOut counted[5];
    for (int i : {1, 2, 3, 4, 0}) { // the strings last: the other sections name them
        streamed[i](counted[i]);
        counted[i].spill(true);
    }
    const char* tags[7] = {"STRS", "VALS", "OPS_", "SCOP", "NODE", "INIT", "POOL"};
    uint64_t offsets[7];
    for (int i = 0; i < 5; ++i) {
        offsets[i] = m_offset;
        writeSectionHead(tags[i], counted[i].crc, counted[i].size);
        SectionOut written(&m_out);
        streamed[i](written);
        written.spill(true);
        m_offset += counted[i].size;
    }
    offsets[5] = m_offset;
    writeSection(tags[5], init);
    offsets[6] = m_offset;
    writeSection(tags[6], pool);
    std::string index;
    putVarint(index, static_cast<uint64_t>(traceKeyframeInterval));
    putVarint(index, numSteps);
    putVarint(index, static_cast<uint64_t>(m_keyframeSteps));
    for (uint64_t o : offsets)
        putVarint(index, o);
    putVarint(index, m_chunks.size());
    for (const auto& [first, offset] : m_chunks) {
        putVarint(index, first);
        putVarint(index, offset);
    }
    const uint64_t indexOffset = m_offset;
    writeSection("INDX", index);
    std::string trailer;
    putLe(trailer, indexOffset, 8);
    putLe(trailer, m_offset + kTrailerSize, 8);
    putLe(trailer, traceCrc32(trailer.data(), trailer.size()), 4);
    putLe(trailer, 0, 4);
    trailer.append(kTraceEndMagic, sizeof kTraceEndMagic);
    m_out.write(trailer.data(), static_cast<std::streamsize>(trailer.size()));
    m_offset += trailer.size();
    m_out.flush();
    return static_cast<bool>(m_out);
}

bool writeTraceBinary(const Trace& trace, std::ostream& out)
{
    const TraceData& d = trace.data();
    TraceBinaryWriter w(out, d.initial);
    for (const TraceStep& s : d.steps)
        w.step(s);
    return w.finish(d, d.steps.size(), trace.keyframeInterval());
}

} // namespace shardx
