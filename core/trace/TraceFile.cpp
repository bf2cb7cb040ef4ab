// TraceFile: reading the binary trace format (the layout is in TraceBinary.h; TraceBinary.cpp writes it).
#include <algorithm>
#include <cstring>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/io/ModuleLoader.h"
#include "core/trace/TraceBinary.h"
#include "core/trace/TraceBinaryFormat.h"
#include "core/trace/TracePoolJson.h"

namespace shardx {

using namespace tracebin;

namespace {

// ---- decoding -----------------------------------------------------------------------------

/// A malformed file: the byte offset and what is wrong there.
struct TraceBinError {
    uint64_t offset;
    std::string what;
};

/// Reads a section payload; every read is bounds-checked and throws TraceBinError.
class BinCursor {
public:
    BinCursor(std::string_view bytes, uint64_t base) : m_bytes(bytes), m_base(base) {}

    uint64_t offset() const { return m_base + m_pos; }
    bool atEnd() const { return m_pos == m_bytes.size(); }
    size_t remaining() const { return m_bytes.size() - m_pos; }
    [[noreturn]] void fail(const std::string& what) const { throw TraceBinError{offset(), what}; }

    uint8_t u8()
    {
        if (m_pos >= m_bytes.size())
            fail("unexpected end of section");
        return static_cast<uint8_t>(m_bytes[m_pos++]);
    }
    uint64_t varint()
    {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            const uint8_t b = u8();
            v |= static_cast<uint64_t>(b & 0x7F) << shift;
            if (!(b & 0x80))
                return v;
        }
        fail("malformed variable-length integer");
    }
    int64_t zvarint()
    {
        const uint64_t v = varint();
        return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
    }
    /// A signed number that must fit an int and be at least -1.
    int index(const char* what)
    {
        const int64_t v = zvarint();
        if (v < -1 || v > INT32_MAX)
            fail(std::string(what) + " " + std::to_string(v) + " out of range");
        return static_cast<int>(v);
    }
    /// A count of elements that take at least one byte each.
    size_t count(const char* what)
    {
        const uint64_t n = varint();
        if (n > remaining())
            fail(std::string(what) + " count " + std::to_string(n) + " exceeds the section");
        return static_cast<size_t>(n);
    }
    std::string_view bytes(size_t n)
    {
        if (n > remaining())
            fail("unexpected end of section");
        std::string_view v = m_bytes.substr(m_pos, n);
        m_pos += n;
        return v;
    }

private:
    std::string_view m_bytes;
    uint64_t m_base;
    size_t m_pos = 0;
};

/// The STRS section decoded: each string shares a prefix with one of the two before it.
class BinStringTable {
public:
    /// Reads only the count (enough to check the string ids of steps).
    static size_t countOf(BinCursor& c) { return static_cast<size_t>(c.varint()); }
    explicit BinStringTable(BinCursor& c)
    {
        const size_t n = c.count("string");
        m_spans.reserve(n);
        for (size_t i = 0; i < n; ++i) {
            const uint64_t head = c.varint();
            const uint64_t shared = head >> 1;
            const size_t ref = static_cast<size_t>(head & 1) + 1;
            if (ref > i ? shared != 0 : shared > m_spans[i - ref].second)
                c.fail("string " + std::to_string(i) + " shares more than the string it refers to");
            const std::string_view suffix = c.bytes(static_cast<size_t>(c.varint()));
            const size_t start = m_arena.size();
            if (shared)
                m_arena.append(m_arena, m_spans[i - ref].first, static_cast<size_t>(shared));
            m_arena.append(suffix);
            m_spans.emplace_back(start, m_arena.size() - start);
        }
    }
    size_t size() const { return m_spans.size(); }
    std::string_view operator[](size_t i) const
    {
        return std::string_view(m_arena).substr(m_spans[i].first, m_spans[i].second);
    }

private:
    std::string m_arena;
    std::vector<std::pair<size_t, size_t>> m_spans;
};

/// Reads one step record. With `out` the step is filled in (its strings from `strings`); the
/// changes are always applied to `state` (sized numValues; value indices are checked against it).
void decodeStep(BinCursor& c, size_t numStrings, const BinStringTable* strings, TraceStep* out, std::vector<int>& state)
{
    const uint64_t at = c.offset();
    const uint8_t kind = c.u8();
    if (kind >= kNumStepKinds)
        c.fail("unknown step kind " + std::to_string(kind));
    const uint64_t mask = c.varint();
    if (mask & ~static_cast<uint64_t>(kAllStepFields))
        throw TraceBinError{at, "unknown step fields"};
    auto str = [&]() -> std::string_view {
        const uint64_t id = c.varint();
        if (id >= numStrings)
            c.fail("string " + std::to_string(id) + " out of range");
        return strings ? (*strings)[static_cast<size_t>(id)] : std::string_view();
    };
    TraceStep scratch;
    TraceStep& s = out ? *out : scratch;
    s.kind = static_cast<TraceStepKind>(kind);
    if (mask & kNode)
        s.node = c.index("node");
    if (mask & kOp)
        s.op = c.index("op");
    if (mask & kFuncResult)
        s.funcResult = c.index("function result");
    if (mask & kMesh) {
        std::string_view m = str();
        if (out)
            s.meshName = std::string(m);
    }
    s.aggressive = (mask & kAggressive) != 0;
    if (mask & kRound)
        s.round = c.index("round");
    if (mask & kUserPriority)
        s.userPriority = c.zvarint();
    if (mask & kGroup)
        s.group = c.zvarint();
    if (mask & kNote) {
        std::string_view n = str();
        if (out)
            s.note = std::string(n);
    }
    if (mask & kNumOperands)
        s.numOperands = c.index("operand count");
    if (mask & kTensorValues) {
        const size_t n = c.count("tensor value");
        if (out)
            s.tensorValues.reserve(n);
        for (size_t i = 0; i < n; ++i) {
            const int v = c.index("tensor value");
            if (out)
                s.tensorValues.push_back(v);
        }
    }
    if (mask & kRule)
        s.rule = c.index("rule");
    if (mask & kBefore)
        s.before = c.index("table");
    if (mask & kAfter)
        s.after = c.index("table");
    if (mask & kDecisions)
        s.decisions = c.index("decision set");
    if (mask & kChanges) {
        const size_t n = c.count("change");
        if (out)
            s.changes.reserve(n);
        for (size_t i = 0; i < n; ++i) {
            TraceChange ch;
            ch.value = c.index("value");
            const uint8_t cm = c.u8();
            if (cm & ~kAllChangeFields)
                c.fail("unknown change fields");
            if (cm & kChTensor)
                ch.tensor = c.index("tensor");
            if (cm & kChBefore)
                ch.before = c.index("sharding");
            if (cm & kChAfter)
                ch.after = c.index("sharding");
            if (cm & kChKind) {
                const uint8_t k = c.u8();
                if (k >= kNumDecisionKinds)
                    c.fail("unknown decision kind " + std::to_string(k));
                ch.kind = static_cast<DecisionKind>(k);
            }
            if (cm & kChFactors)
                ch.factors = c.index("factor change set");
            if (ch.value >= 0) {
                if (static_cast<size_t>(ch.value) >= state.size())
                    c.fail("value " + std::to_string(ch.value) + " out of range");
                state[static_cast<size_t>(ch.value)] = ch.after;
            }
            if (out)
                s.changes.push_back(ch);
        }
    }
}

/// "FILE: error: offset N: what" once formatted.
Error errorAt(const std::string& name, uint64_t offset, const std::string& what)
{
    return Error{"offset " + std::to_string(offset) + ": " + what, SourcePos{name, 0, 0}};
}

} // namespace

// ---- reader -------------------------------------------------------------------------------

struct TraceFile::Mapping {
    void* addr = nullptr;
    size_t size = 0;
    ~Mapping()
    {
        if (addr)
            ::munmap(addr, size);
    }
};

Expected<TraceFile> TraceFile::open(const std::string& path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return Error{"cannot open trace file", SourcePos{path, 0, 0}};
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return Error{"cannot read trace file", SourcePos{path, 0, 0}};
    }
    auto map = std::make_shared<Mapping>();
    map->size = static_cast<size_t>(st.st_size);
    if (map->size > 0) {
        void* addr = ::mmap(nullptr, map->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (addr == MAP_FAILED) {
            ::close(fd);
            return Error{"cannot map trace file", SourcePos{path, 0, 0}};
        }
        map->addr = addr;
    }
    ::close(fd);
    Expected<TraceFile> f =
        fromBytes(std::string_view(static_cast<const char*>(map->addr), map->addr ? map->size : 0), path);
    if (f)
        f->m_map = std::move(map);
    return f;
}

Expected<TraceFile> TraceFile::fromBytes(std::string_view bytes, const std::string& name)
{
    TraceFile f;
    f.m_name = name;
    f.m_bytes = bytes;
    const uint64_t size = bytes.size();
    if (!isBinaryTrace(bytes))
        return errorAt(name, 0, "not a binary shardx trace (no SHXTRACE magic)");
    if (size < kHeaderSize)
        return errorAt(name, size, "truncated header");
    const uint64_t version = getLe(bytes.data() + 8, 4);
    if (version != TraceBinaryWriter::kFormatVersion)
        return errorAt(name, 8, "unsupported binary trace version " + std::to_string(version));
    if (getLe(bytes.data() + 12, 4) != 0)
        return errorAt(name, 12, "unknown header flags");
    if (size < kHeaderSize + kTrailerSize ||
        std::memcmp(bytes.data() + size - sizeof kTraceEndMagic, kTraceEndMagic, sizeof kTraceEndMagic) != 0)
        return errorAt(name, size, "truncated: the trailer (SHXTEND) is missing at the end of the file");
    const char* trailer = bytes.data() + size - kTrailerSize;
    const uint64_t trailerOffset = size - kTrailerSize;
    if (traceCrc32(trailer, 16) != getLe(trailer + 16, 4) || getLe(trailer + 20, 4) != 0)
        return errorAt(name, trailerOffset, "trailer checksum mismatch");
    if (getLe(trailer + 8, 8) != size)
        return errorAt(name, trailerOffset,
                       "file is " + std::to_string(size) + " bytes, the trailer says " +
                           std::to_string(getLe(trailer + 8, 8)));
    Expected<Section> index = f.section(getLe(trailer, 8), "INDX");
    if (!index)
        return index.error();
    try {
        BinCursor c(bytes.substr(index->offset, index->size), index->offset);
        const uint64_t interval = c.varint();
        const uint64_t steps = c.varint();
        const uint64_t keyframeSteps = c.varint();
        if (interval == 0 || interval > INT32_MAX || keyframeSteps == 0 || keyframeSteps > INT32_MAX ||
            steps > INT32_MAX)
            c.fail("keyframe interval or step count out of range");
        f.m_traceInterval = static_cast<int>(interval);
        f.m_numSteps = static_cast<size_t>(steps);
        f.m_keyframeSteps = static_cast<int>(keyframeSteps);
        uint64_t* offsets[7] = {&f.m_strs, &f.m_vals, &f.m_ops, &f.m_scop, &f.m_node, &f.m_init, &f.m_pool};
        for (uint64_t* o : offsets)
            *o = c.varint();
        const size_t chunks = c.count("chunk");
        uint64_t expected = 0;
        for (size_t i = 0; i < chunks; ++i) {
            const uint64_t first = c.varint();
            const uint64_t offset = c.varint();
            if (first != expected || first >= steps)
                c.fail("chunk " + std::to_string(i) + " starts at step " + std::to_string(first) + ", expected " +
                       std::to_string(expected));
            expected = std::min<uint64_t>(steps, first + keyframeSteps);
            f.m_chunks.emplace_back(first, offset);
        }
        if (expected != steps)
            c.fail("the chunks hold " + std::to_string(expected) + " of " + std::to_string(steps) + " steps");
        // The value count is needed to size states; VALS starts with it.
        Expected<Section> vals = f.section(f.m_vals, "VALS");
        if (!vals)
            return vals.error();
        BinCursor vc(bytes.substr(vals->offset, vals->size), vals->offset);
        f.m_numValues = vc.count("value");
    } catch (const TraceBinError& e) {
        return errorAt(name, e.offset, e.what);
    }
    return f;
}

Expected<TraceFile::Section> TraceFile::section(uint64_t headerOffset, const char tag[4]) const
{
    const uint64_t end = m_bytes.size() - kTrailerSize;
    const std::string t(tag, 4);
    if (headerOffset < kHeaderSize || headerOffset > end || end - headerOffset < kSectionHeaderSize)
        return errorAt(m_name, headerOffset, "section " + t + " out of the file");
    const char* h = m_bytes.data() + headerOffset;
    if (std::memcmp(h, tag, 4) != 0)
        return errorAt(m_name, headerOffset, "expected section " + t + ", found another");
    const uint64_t size = getLe(h + 8, 8);
    const uint64_t payload = headerOffset + kSectionHeaderSize;
    if (size > end - payload)
        return errorAt(m_name, headerOffset,
                       "section " + t + " of " + std::to_string(size) + " bytes runs past the end of the file");
    const uint32_t stored = static_cast<uint32_t>(getLe(h + 4, 4));
    const uint32_t computed = traceCrc32(m_bytes.data() + payload, size);
    if (stored != computed)
        return errorAt(m_name, headerOffset, "section " + t + " checksum mismatch (corrupted)");
    return Section{payload, size};
}

namespace {

/// Reads the keyframe at the cursor into `state` (numValues entries; the rest -1).
void readKeyframe(BinCursor& c, size_t numValues, std::vector<int>& state)
{
    const size_t n = c.count("keyframe value");
    if (n > numValues)
        c.fail("keyframe of " + std::to_string(n) + " values, the trace has " + std::to_string(numValues));
    state.assign(numValues, -1);
    for (size_t i = 0; i < n; ++i) {
        const uint64_t v = c.varint();
        if (v > INT32_MAX)
            c.fail("sharding id out of range");
        state[i] = static_cast<int>(v) - 1;
    }
}

} // namespace

Status TraceFile::readNames(TraceData& d, bool withPools) const
{
    try {
        auto open = [this](uint64_t offset, const char* tag) {
            Expected<Section> s = section(offset, tag);
            if (!s)
                throw s.error();
            return BinCursor(m_bytes.substr(s->offset, s->size), s->offset);
        };
        BinCursor sc = open(m_strs, "STRS");
        const BinStringTable strings(sc);
        int64_t prev[5] = {0, 0, 0, 0, 0};
        auto field = [&prev](BinCursor& c, int f, const char* what) {
            const int64_t v = prev[f] + c.zvarint();
            if (v < -1 || v > INT32_MAX)
                c.fail(std::string(what) + " " + std::to_string(v) + " out of range");
            prev[f] = v;
            return static_cast<int>(v);
        };
        auto str = [&](BinCursor& c, int f) {
            const int id = field(c, f, "string");
            if (id < 0 || static_cast<size_t>(id) >= strings.size())
                c.fail("string " + std::to_string(id) + " out of range");
            return std::string(strings[static_cast<size_t>(id)]);
        };
        BinCursor vc = open(m_vals, "VALS");
        const size_t nv = vc.count("value");
        d.values.resize(nv);
        for (TraceValue& v : d.values) {
            v.id = str(vc, 0);
            v.displayName = str(vc, 1);
            v.scope = field(vc, 2, "scope");
            v.op = field(vc, 3, "op");
            v.derivedFrom = field(vc, 4, "value");
        }
        std::fill(std::begin(prev), std::end(prev), 0);
        if (withPools) {
            BinCursor oc = open(m_ops, "OPS_");
            d.ops.resize(oc.count("op"));
            for (TraceOp& o : d.ops) {
                o.id = str(oc, 0);
                o.name = str(oc, 1);
                o.scope = field(oc, 2, "scope");
                o.displayName = str(oc, 3);
            }
        }
        BinCursor pc = open(m_scop, "SCOP");
        d.scopes.resize(pc.count("scope"));
        for (std::string& s : d.scopes) {
            const uint64_t id = pc.varint();
            if (id >= strings.size())
                pc.fail("string " + std::to_string(id) + " out of range");
            s = std::string(strings[static_cast<size_t>(id)]);
        }
        BinCursor ic = open(m_init, "INIT");
        d.initial.resize(ic.count("initial sharding"));
        for (int& id : d.initial)
            id = ic.index("sharding id");
        BinCursor poolc = open(m_pool, "POOL");
        for (int p = 0; p < kNumTracePools && (withPools || p == 0); ++p) {
            const size_t n = poolc.count("pool entry");
            for (size_t i = 0; i < n; ++i) {
                const uint64_t at = poolc.offset();
                std::string_view text = poolc.bytes(static_cast<size_t>(poolc.varint()));
                if (Status st = appendTracePoolEntry(d, static_cast<TracePool>(p), text); !st)
                    throw TraceBinError{at, "pool entry " + std::to_string(i) + ": " + st.error().message};
            }
        }
        BinCursor nc = open(m_node, "NODE");
        if (withPools) {
            d.nodes.resize(nc.count("node"));
            for (size_t i = 0; i < d.nodes.size(); ++i) {
                TraceNode& n = d.nodes[i];
                const uint8_t kind = nc.u8();
                if (kind >= kNumNodeKinds)
                    nc.fail("unknown node kind " + std::to_string(kind));
                n.kind = static_cast<TraceNodeKind>(kind);
                n.parent = nc.index("parent");
                if (n.parent >= static_cast<int>(i))
                    nc.fail("parent " + std::to_string(n.parent) + " of node " + std::to_string(i) +
                            " must be -1 or an earlier node");
                const uint64_t label = nc.varint();
                if (label >= strings.size())
                    nc.fail("string " + std::to_string(label) + " out of range");
                n.label = std::string(strings[static_cast<size_t>(label)]);
                n.number = nc.zvarint();
                const uint64_t first = nc.varint(), endStep = nc.varint();
                if (first > m_numSteps || endStep > m_numSteps)
                    nc.fail("node steps out of range");
                n.firstStep = static_cast<int>(first);
                n.endStep = static_cast<int>(endStep);
            }
        }
    } catch (const TraceBinError& e) {
        return errorAt(m_name, e.offset, e.what);
    } catch (const Error& e) {
        return e;
    }
    if (d.initial.size() != d.values.size())
        return errorAt(m_name, m_init, "expected one initial sharding per value");
    return Status::success();
}

Expected<TraceData> TraceFile::loadNames() const
{
    TraceData d;
    if (Status st = readNames(d, false); !st)
        return st.error();
    for (size_t v = 0; v < d.values.size(); ++v)
        if (d.initial[v] >= static_cast<int>(d.shardings.size()) ||
            d.values[v].scope >= static_cast<int>(d.scopes.size()))
            return errorAt(m_name, m_vals, "value " + std::to_string(v) + ": index out of range");
    return d;
}

Expected<Trace> TraceFile::load() const
{
    TraceData d;
    if (Status st = readNames(d, true); !st)
        return st.error();
    Expected<Section> strsSection = section(m_strs, "STRS");
    if (!strsSection)
        return strsSection.error();
    try {
        BinCursor sc(m_bytes.substr(strsSection->offset, strsSection->size), strsSection->offset);
        const BinStringTable strings(sc);
        d.steps.reserve(m_numSteps);
        std::vector<int> state = d.initial, frame;
        for (const auto& [first, offset] : m_chunks) {
            Expected<Section> s = section(offset, "CHNK");
            if (!s)
                return s.error();
            BinCursor c(m_bytes.substr(s->offset, s->size), s->offset);
            const uint64_t at = c.offset();
            if (c.varint() != first)
                throw TraceBinError{at, "chunk starts at another step than the index says"};
            const uint64_t n = c.varint();
            if (n != std::min<uint64_t>(m_numSteps - first, static_cast<uint64_t>(m_keyframeSteps)))
                throw TraceBinError{at, "chunk holds " + std::to_string(n) + " steps"};
            const uint64_t frameAt = c.offset();
            readKeyframe(c, d.values.size(), frame);
            // The keyframe is what replaying the steps before it gives: a check of the whole file.
            if (frame != state)
                throw TraceBinError{frameAt, "keyframe does not match the steps before it"};
            for (uint64_t i = 0; i < n; ++i) {
                d.steps.emplace_back();
                decodeStep(c, strings.size(), &strings, &d.steps.back(), state);
            }
            if (!c.atEnd())
                c.fail("unexpected bytes after the last step of the chunk");
        }
    } catch (const TraceBinError& e) {
        return errorAt(m_name, e.offset, e.what);
    }
    if (Status st = Trace::validate(d); !st)
        return Error{st.error().message, SourcePos{m_name, 0, 0}};
    return Trace(std::move(d), m_traceInterval);
}

Expected<std::vector<int>> TraceFile::stateAfter(size_t step) const
{
    if (step > m_numSteps)
        return Error{"step " + std::to_string(step) + " is past the last step (" + std::to_string(m_numSteps) + ")",
                     SourcePos{m_name, 0, 0}};
    std::vector<int> state;
    try {
        if (m_chunks.empty() || step == 0) {
            Expected<Section> s = section(m_init, "INIT");
            if (!s)
                return s.error();
            BinCursor c(m_bytes.substr(s->offset, s->size), s->offset);
            const size_t n = c.count("initial sharding");
            if (n != m_numValues)
                c.fail("expected one initial sharding per value");
            state.resize(n);
            for (int& id : state)
                id = c.index("sharding id");
            return state;
        }
        // The last chunk starting at or before `step` (a step at a chunk's end is replayed
        // from that chunk's keyframe).
        auto it = std::upper_bound(m_chunks.begin(), m_chunks.end(), step,
                                   [](size_t s, const std::pair<uint64_t, uint64_t>& ch) { return s < ch.first; });
        const auto& [first, offset] = *(it - 1);
        Expected<Section> strs = section(m_strs, "STRS");
        if (!strs)
            return strs.error();
        BinCursor sc(m_bytes.substr(strs->offset, strs->size), strs->offset);
        const size_t numStrings = BinStringTable::countOf(sc);
        Expected<Section> s = section(offset, "CHNK");
        if (!s)
            return s.error();
        BinCursor c(m_bytes.substr(s->offset, s->size), s->offset);
        if (c.varint() != first)
            c.fail("chunk starts at another step than the index says");
        const uint64_t n = c.varint();
        if (first + n < step)
            c.fail("chunk holds too few steps");
        readKeyframe(c, m_numValues, state);
        for (uint64_t i = first; i < step; ++i)
            decodeStep(c, numStrings, nullptr, nullptr, state);
    } catch (const TraceBinError& e) {
        return errorAt(m_name, e.offset, e.what);
    }
    return state;
}

Expected<Trace> readTraceFile(const std::string& path)
{
    // The magic decides: a binary trace is mapped, anything else is read as JSON.
    char head[sizeof kTraceMagic] = {};
    size_t got = 0;
    if (FILE* f = std::fopen(path.c_str(), "rb")) {
        got = std::fread(head, 1, sizeof head, f);
        std::fclose(f);
    } else {
        return Error{"cannot open trace file", SourcePos{path, 0, 0}};
    }
    if (isBinaryTrace(std::string_view(head, got))) {
        Expected<TraceFile> file = TraceFile::open(path);
        if (!file)
            return file.error();
        return file->load();
    }
    std::string text;
    if (!io::readFileText(path, text))
        return Error{"cannot open trace file", SourcePos{path, 0, 0}};
    Expected<Trace> trace = Trace::fromJson(text);
    if (!trace)
        return Error{trace.error().message, SourcePos{path, 0, 0}};
    return trace;
}

} // namespace shardx
