// PointerMap: insert, find, overwrite, erase with tombstones, growth and churn.
#include <QtTest>

#include <string>
#include <vector>

#include "core/support/PointerMap.h"

using namespace shardx;

class TestPointerMap : public QObject {
    Q_OBJECT

private slots:
    void insertFindErase()
    {
        PointerMap<int, int> map;
        std::vector<int> objects(5000);
        QVERIFY(!map.find(&objects[0]));
        QVERIFY(!map.erase(&objects[0]));
        for (size_t i = 0; i < objects.size(); ++i)
            map.insert(&objects[i], static_cast<int>(i));
        QCOMPARE(map.size(), objects.size());
        for (size_t i = 0; i < objects.size(); ++i)
            QCOMPARE(*map.find(&objects[i]), static_cast<int>(i));
        // Erase every other key: the tombstones must not hide keys probed past them.
        for (size_t i = 0; i < objects.size(); i += 2)
            QCOMPARE(map.erase(&objects[i]), std::optional<int>(static_cast<int>(i)));
        QVERIFY(!map.erase(&objects[0]));
        QCOMPARE(map.size(), objects.size() / 2);
        for (size_t i = 0; i < objects.size(); ++i)
            QCOMPARE(map.contains(&objects[i]), i % 2 == 1);
        // Re-insert (reusing tombstones) and overwrite.
        for (size_t i = 0; i < objects.size(); i += 2)
            map.insert(&objects[i], 7);
        map.insert(&objects[1], 8);
        QCOMPARE(*map.find(&objects[0]), 7);
        QCOMPARE(*map.find(&objects[1]), 8);
        QCOMPARE(map.size(), objects.size());
        QVERIFY(!map.find(nullptr));
    }

    void churnKeepsEveryKey()
    {
        // Erasing and re-inserting far more keys than the capacity fills the table with
        // tombstones; rebuilding must clear them without losing a key.
        PointerMap<int, size_t> map;
        std::vector<int> objects(3000);
        for (size_t i = 0; i < objects.size(); ++i)
            map.insert(&objects[i], i);
        for (int round = 1; round <= 20; ++round)
            for (size_t i = 0; i < objects.size(); ++i) {
                QVERIFY(map.erase(&objects[i]).has_value());
                map.insert(&objects[i], i + static_cast<size_t>(round));
            }
        QCOMPARE(map.size(), objects.size());
        for (size_t i = 0; i < objects.size(); ++i)
            QCOMPARE(*map.find(&objects[i]), i + 20);
        map.clear();
        QCOMPARE(map.size(), size_t(0));
        QVERIFY(!map.contains(&objects[0]));
    }

    void nonTrivialValuesAndReserve()
    {
        PointerMap<int, std::string> map;
        map.reserve(1000);
        std::vector<int> objects(1000);
        for (size_t i = 0; i < objects.size(); ++i)
            map.insert(&objects[i], "value " + std::to_string(i));
        *map.find(&objects[3]) += "!";
        QCOMPARE(*map.find(&objects[3]), std::string("value 3!"));
        QCOMPARE(map.erase(&objects[999]), std::optional<std::string>("value 999"));
        QCOMPARE(map.size(), size_t(999));
    }
};

QTEST_APPLESS_MAIN(TestPointerMap)
#include "tst_pointermap.moc"
