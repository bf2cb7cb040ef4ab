// TaggedSlotIndex: find and insert through probes, collisions, growth, and tags that spare reading entries.
#include <QtTest>

#include <cstdint>
#include <string>
#include <vector>

#include "core/support/TaggedSlotIndex.h"

using namespace shardx;

namespace {

/// Entries kept by the test as the index's users keep theirs: by number, with their hash.
struct Table {
    std::vector<uint64_t> keys;
    std::vector<size_t> hashes;
    TaggedSlotIndex index;
    int compared = 0; ///< how many entries `same` was asked about

    TaggedSlotIndex::Probe find(uint64_t key, size_t hash)
    {
        return index.find(hash, [&](uint32_t entry) {
            ++compared;
            return keys[entry] == key;
        });
    }
    /// Adds `key` if absent, growing at half load; returns its entry.
    uint32_t add(uint64_t key, size_t hash)
    {
        if (2 * (keys.size() + 1) > index.slotCount()) {
            index.reset(index.empty() ? 4 : 2 * index.slotCount());
            for (size_t k = 0; k < keys.size(); ++k)
                index.place(hashes[k], static_cast<uint32_t>(k));
        }
        const TaggedSlotIndex::Probe p = find(key, hash);
        if (p.entry != TaggedSlotIndex::kAbsent)
            return p.entry;
        keys.push_back(key);
        hashes.push_back(hash);
        index.insert(p, static_cast<uint32_t>(keys.size() - 1));
        return static_cast<uint32_t>(keys.size() - 1);
    }
};

size_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    return static_cast<size_t>(x);
}

} // namespace

class TestTaggedSlotIndex : public QObject {
    Q_OBJECT

private slots:
    void findsWhatWasAddedThroughGrowth()
    {
        Table t;
        for (uint64_t k = 0; k < 20000; ++k)
            QCOMPARE(t.add(k * 7 + 3, mix(k * 7 + 3)), static_cast<uint32_t>(k));
        QVERIFY(t.index.slotCount() >= 40000);
        for (uint64_t k = 0; k < 20000; ++k) {
            const TaggedSlotIndex::Probe p = t.find(k * 7 + 3, mix(k * 7 + 3));
            QCOMPARE(p.entry, static_cast<uint32_t>(k));
        }
        // Adding again finds the entry instead of adding a second one.
        QCOMPARE(t.add(3, mix(3)), 0u);
        QCOMPARE(t.keys.size(), size_t(20000));
        // Absent keys end at an empty slot.
        for (uint64_t k = 0; k < 1000; ++k)
            QCOMPARE(t.find(k * 7 + 4, mix(k * 7 + 4)).entry, TaggedSlotIndex::kAbsent);
    }

    void equalHashesAreToldApartBySame()
    {
        // Every key has the same hash: one probe sequence, each entry's tag equal, so `same`
        // decides (the index must not return a wrong entry for an equal tag).
        Table t;
        for (uint64_t k = 0; k < 300; ++k)
            QCOMPARE(t.add(k, 12345), static_cast<uint32_t>(k));
        for (uint64_t k = 0; k < 300; ++k)
            QCOMPARE(t.find(k, 12345).entry, static_cast<uint32_t>(k));
        QCOMPARE(t.find(999, 12345).entry, TaggedSlotIndex::kAbsent);
    }

    void tagsSpareReadingOtherEntries()
    {
        // Keys whose hashes share the slot bits but differ in the top bits collide on one probe
        // sequence; the tags tell them apart without asking `same` about the others.
        Table t;
        const size_t low = 5;
        std::vector<size_t> hashes;
        for (uint64_t k = 0; k < 64; ++k)
            hashes.push_back(low | (static_cast<size_t>(k + 1) << 57)); // top bits only
        for (uint64_t k = 0; k < 64; ++k)
            t.add(k, hashes[k]);
        QVERIFY(t.index.slotCount() >= 128 && t.index.slotCount() <= 256); // 7 or 8 tag bits kept: 57..63 distinct
        t.compared = 0;
        for (uint64_t k = 0; k < 64; ++k)
            QCOMPARE(t.find(k, hashes[k]).entry, static_cast<uint32_t>(k));
        QCOMPARE(t.compared, 64); // one comparison each: the entry itself
        t.compared = 0;
        QCOMPARE(t.find(1000, low | (size_t{100} << 57)).entry, TaggedSlotIndex::kAbsent);
        QCOMPARE(t.compared, 0);
    }

    void prefetchIsHarmless()
    {
        Table t;
        t.add(1, mix(1));
        t.index.prefetch(mix(1));
        t.index.prefetch(~size_t{0});
        QCOMPARE(t.find(1, mix(1)).entry, 0u);
    }
};

QTEST_APPLESS_MAIN(TestTaggedSlotIndex)
#include "tst_taggedslotindex.moc"
