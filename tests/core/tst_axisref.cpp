// Tests of AxisRef relations, orders and list operations (SDY.md 1.2).
#include <QtTest>

#include "core/mesh/AxisRef.h"
#include "core/mesh/Mesh.h"
#include "core/mesh/MeshVerifier.h"

using namespace shardx;

namespace {
AxisRef full(const char* n) { return AxisRef(n); }
AxisRef sub(const char* n, int64_t pre, int64_t size) { return AxisRef(n, pre, size); }
const Mesh& mesh8()
{
    static const Mesh m({{"a", 8}, {"b", 8}, {"x", 8}});
    return m;
}
QString str(const std::optional<AxisRef>& a)
{
    return a ? QString::fromStdString(a->toString()) : QStringLiteral("none");
}
QString str(const std::vector<AxisRef>& l)
{
    QStringList parts;
    for (const AxisRef& a : l)
        parts << QString::fromStdString(a.toString());
    return "{" + parts.join(", ") + "}";
}
} // namespace

class TestAxisRef : public QObject {
    Q_OBJECT
private slots:
    void sizesAndPrinting()
    {
        const Mesh& m = mesh8();
        QCOMPARE(full("a").size(m), 8);
        QCOMPARE(sub("a", 2, 4).size(m), 4);
        QCOMPARE(full("a").preSize(), 1);
        QCOMPARE(sub("a", 2, 4).preSize(), 2);
        QCOMPARE(full("a").nextPreSize(m), 8);
        QCOMPARE(sub("a", 2, 2).nextPreSize(m), 4);
        QCOMPARE(full("nope").size(m), 0);
        QCOMPARE(QString::fromStdString(full("a").toString()), QStringLiteral("\"a\""));
        QCOMPARE(QString::fromStdString(sub("a", 2, 4).toString()), QStringLiteral("\"a\":(2)4"));
        QCOMPARE(QString::fromStdString(full("q\"x").toString()), QStringLiteral("\"q\\22x\""));
    }
    void containsRelation()
    {
        const Mesh& m = mesh8();
        QVERIFY(contains(full("a"), sub("a", 2, 2), m));
        QVERIFY(contains(full("a"), full("a"), m));
        QVERIFY(!contains(sub("a", 1, 4), sub("a", 2, 4), m));
        QVERIFY(contains(sub("a", 1, 4), sub("a", 2, 2), m));
        QVERIFY(!contains(sub("a", 1, 4), full("a"), m));
        QVERIFY(!contains(full("a"), full("b"), m));
        QVERIFY(contains(sub("a", 2, 4), sub("a", 2, 4), m));
    }
    void prefixSuffix()
    {
        const Mesh& m = mesh8();
        QVERIFY(isPrefixOf(sub("a", 1, 2), full("a"), m));
        QVERIFY(isPrefixOf(sub("a", 2, 2), sub("a", 2, 4), m));
        QVERIFY(!isPrefixOf(sub("a", 2, 2), full("a"), m));
        QVERIFY(isSuffixOf(sub("a", 2, 4), full("a"), m));
        QVERIFY(isSuffixOf(sub("a", 4, 2), sub("a", 1, 8), m));
        QVERIFY(!isSuffixOf(sub("a", 2, 2), full("a"), m));
        QVERIFY(isSuffixOf(full("a"), full("a"), m));
        QVERIFY(!isPrefixOf(sub("b", 1, 2), full("a"), m));
    }
    void overlapsAndCoexist()
    {
        QVERIFY(overlaps(sub("a", 1, 4), sub("a", 2, 4)));
        QVERIFY(!overlaps(sub("a", 1, 2), sub("a", 4, 2)));
        QVERIFY(!overlaps(sub("a", 1, 2), sub("a", 2, 2)));
        QVERIFY(overlaps(full("a"), sub("a", 4, 2)));
        QVERIFY(!overlaps(full("a"), full("b")));
        QVERIFY(!canCoexist(sub("a", 1, 2), sub("a", 1, 3)));
        QVERIFY(canCoexist(sub("a", 1, 4), sub("a", 2, 4)));
        QVERIFY(canCoexist(full("a"), sub("a", 1, 3)));
        QVERIFY(canCoexist(sub("a", 1, 2), sub("b", 1, 3)));
        QVERIFY(canCoexist(sub("a", 1, 2), sub("a", 4, 2)));  // disjoint, 4 % 2 == 0
        QVERIFY(!canCoexist(sub("a", 1, 2), sub("a", 3, 2))); // gap 3 not a multiple of 2
        QVERIFY(!canCoexist(sub("a", 1, 4), sub("a", 2, 3))); // overlap, 6 % 4 != 0
    }
    void overlapPart()
    {
        QCOMPARE(str(overlap(sub("a", 1, 4), sub("a", 2, 4))), QStringLiteral("\"a\":(2)2"));
        QCOMPARE(str(overlap(full("a"), sub("a", 2, 4))), QStringLiteral("\"a\":(2)4"));
        QCOMPARE(str(overlap(sub("a", 2, 4), full("a"))), QStringLiteral("\"a\":(2)4"));
        QCOMPARE(str(overlap(sub("a", 1, 2), sub("a", 2, 2))), QStringLiteral("none"));
        QCOMPARE(str(overlap(sub("a", 1, 2), sub("a", 1, 3))), QStringLiteral("none"));
    }
    void withoutOverlap()
    {
        const Mesh& m = mesh8();
        QCOMPARE(str(prefixWithoutOverlap(full("a"), sub("a", 2, 2))), QStringLiteral("\"a\":(1)2"));
        QCOMPARE(str(suffixWithoutOverlap(full("a"), sub("a", 2, 2), m)), QStringLiteral("\"a\":(4)2"));
        QCOMPARE(str(prefixWithoutOverlap(sub("a", 1, 2), sub("a", 4, 2))), QStringLiteral("\"a\":(1)2"));
        QCOMPARE(str(prefixWithoutOverlap(sub("a", 2, 4), sub("a", 1, 4))), QStringLiteral("none"));
        QCOMPARE(str(suffixWithoutOverlap(sub("a", 1, 4), sub("a", 2, 4), m)), QStringLiteral("none"));
        QCOMPARE(str(suffixWithoutOverlap(sub("a", 2, 4), sub("a", 1, 4), m)), QStringLiteral("\"a\":(4)2"));
        QCOMPARE(str(prefixWithoutOverlap(sub("a", 1, 2), sub("a", 1, 3))), QStringLiteral("none"));
        // the primitive keeps an un-normalised full-size sub-axis
        QCOMPARE(str(prefixWithoutOverlap(full("a"), sub("a", 8, 1))), QStringLiteral("\"a\":(1)8"));
    }
    void commonPrefix()
    {
        const Mesh& m = mesh8();
        QCOMPARE(str(greatestCommonPrefix(sub("a", 1, 2), sub("a", 1, 4), m)), QStringLiteral("\"a\":(1)2"));
        QCOMPARE(str(greatestCommonPrefix(sub("a", 1, 4), sub("a", 1, 2), m)), QStringLiteral("\"a\":(1)2"));
        QCOMPARE(str(greatestCommonPrefix(full("a"), sub("a", 1, 4), m)), QStringLiteral("\"a\":(1)4"));
        QCOMPARE(str(greatestCommonPrefix(sub("a", 2, 2), sub("a", 1, 4), m)), QStringLiteral("none"));
        QCOMPARE(str(greatestCommonPrefix(sub("a", 1, 2), sub("a", 1, 3), m)), QStringLiteral("none"));
        QCOMPARE(str(greatestCommonPrefix(full("a"), full("b"), m)), QStringLiteral("none"));
    }
    void mergeRelation()
    {
        Mesh m({{"a", 8}, {"b", 8}});
        QVERIFY(canMerge(sub("a", 2, 4), sub("a", 8, 2)));
        QVERIFY(!canMerge(sub("a", 2, 2), sub("a", 8, 2)));
        QVERIFY(!canMerge(full("a"), sub("a", 8, 2)));
        QVERIFY(!canMerge(sub("a", 1, 2), sub("b", 2, 2)));
        QCOMPARE(QString::fromStdString(merge(sub("b", 1, 2), sub("b", 2, 4), m).toString()), QStringLiteral("\"b\""));
        QCOMPARE(QString::fromStdString(merge(sub("b", 1, 2), sub("b", 2, 2), m).toString()),
                 QStringLiteral("\"b\":(1)4"));
        QCOMPARE(QString::fromStdString(merge(sub("b", 2, 2), sub("b", 4, 2), m).toString()),
                 QStringLiteral("\"b\":(2)4"));
    }
    void orders()
    {
        Mesh m({{"y", 4}, {"x", 8}});
        QVERIFY(lessIntraAxis(sub("x", 1, 2), full("x")));
        QVERIFY(lessIntraAxis(full("x"), sub("x", 2, 2)));
        QVERIFY(!lessIntraAxis(full("x"), sub("x", 1, 2)));
        QVERIFY(lessIntraAxis(sub("x", 1, 2), sub("x", 1, 4)));
        QVERIFY(lessIntraAxis(sub("x", 1, 4), sub("x", 2, 2)));
        QVERIFY(!lessIntraAxis(full("x"), full("x")));
        QVERIFY(lessInMeshOrder(full("y"), full("x"), m)); // mesh position, not name
        QVERIFY(!lessInMeshOrder(full("x"), full("y"), m));
        QVERIFY(lessInMeshOrder(full("y"), sub("x", 1, 2), m));
        QVERIFY(lessByName(full("x"), full("y")));
        QVERIFY(lessByName(sub("x", 1, 2), full("x")));
    }
    void sortAndMergeLists()
    {
        Mesh m({{"y", 4}, {"x", 8}});
        QCOMPARE(str(sortAndMerge({sub("x", 2, 4), full("y"), sub("x", 1, 2)}, m)), QStringLiteral("{\"y\", \"x\"}"));
        QCOMPARE(str(sortAndMerge({sub("x", 4, 2), sub("x", 1, 2)}, m)), QStringLiteral("{\"x\":(1)2, \"x\":(4)2}"));
        QCOMPARE(str(sortAndMerge({sub("x", 4, 2), sub("x", 2, 2)}, m)), QStringLiteral("{\"x\":(2)4}"));
        QCOMPARE(str(sortAndMerge({}, m)), QStringLiteral("{}"));
        std::vector<AxisRef> list{full("y"), sub("x", 1, 2)};
        addAxisOrMerge(list, sub("x", 2, 2), m);
        QCOMPARE(str(list), QStringLiteral("{\"y\", \"x\":(1)4}"));
        addAxisOrMerge(list, sub("x", 4, 2), m);
        QCOMPARE(str(list), QStringLiteral("{\"y\", \"x\"}"));
        addAxisOrMerge(list, full("y"), m);
        QCOMPARE(str(list), QStringLiteral("{\"y\", \"x\", \"y\"}"));
    }
    void difference()
    {
        Mesh m({{"x", 8}, {"y", 4}});
        QCOMPARE(str(axisListDifference({full("x")}, {sub("x", 2, 2)}, m)), QStringLiteral("{\"x\":(1)2, \"x\":(4)2}"));
        QCOMPARE(str(axisListDifference({full("x"), full("y")}, {full("y")}, m)), QStringLiteral("{\"x\"}"));
        QCOMPARE(str(axisListDifference({full("x")}, {sub("x", 1, 2), sub("x", 4, 2)}, m)),
                 QStringLiteral("{\"x\":(2)2}"));
        QCOMPARE(str(axisListDifference({sub("x", 1, 4)}, {full("x")}, m)), QStringLiteral("{}"));
        QCOMPARE(str(axisListDifference({}, {full("x")}, m)), QStringLiteral("{}"));
        QCOMPARE(str(axisListDifference({full("y")}, {}, m)), QStringLiteral("{\"y\"}"));
    }
    void suffixRemovalAndAppend()
    {
        // SDY.md 2.12 remove-suffix: the last axis is dropped when equal, else cut to its prefix.
        Mesh m({{"x", 8}, {"y", 4}});
        std::vector<AxisRef> list{full("y"), full("x")};
        QVERIFY(removeSuffix(list, {sub("x", 4, 2)}, m) == nullptr);
        QCOMPARE(str(list), QStringLiteral("{\"y\", \"x\":(1)4}"));
        QVERIFY(removeSuffix(list, {full("y"), sub("x", 1, 4)}, m) == nullptr);
        QCOMPARE(str(list), QStringLiteral("{}"));
        // "x":(1)2 is no suffix of "x": it is returned and the list is left as reduced so far.
        list = {full("y"), full("x")};
        const std::vector<AxisRef> bad{sub("x", 1, 2)};
        QCOMPARE(removeSuffix(list, bad, m), &bad[0]);
        QCOMPARE(str(list), QStringLiteral("{\"y\", \"x\"}"));
        const std::vector<AxisRef> twice{sub("x", 1, 2), full("x")};
        QCOMPARE(removeSuffix(list, twice, m), &twice[0]);
        QCOMPARE(str(list), QStringLiteral("{\"y\"}"));
        // Appending merges each axis into the last one where it can.
        list = {full("y"), sub("x", 1, 2)};
        addAxesOrMerge(list, {sub("x", 2, 4), full("y")}, m);
        QCOMPARE(str(list), QStringLiteral("{\"y\", \"x\", \"y\"}"));
    }
    void product()
    {
        Mesh m({{"x", 8}, {"y", 4}});
        QCOMPARE(axesProduct({full("x"), sub("y", 1, 2)}, m), 16);
        QCOMPARE(axesProduct({}, m), 1);
    }
    void meshPrinting()
    {
        QCOMPARE(QString::fromStdString(Mesh({{"a", 2}, {"b", 4}}).toString()), QStringLiteral("<[\"a\"=2, \"b\"=4]>"));
        QCOMPARE(QString::fromStdString(Mesh({{"q\"x", 2}}).toString()), QStringLiteral("<[\"q\\22x\"=2]>"));
        QCOMPARE(QString::fromStdString(Mesh({{"a", 2}}, {1, 0}).toString()),
                 QStringLiteral("<[\"a\"=2], device_ids=[1, 0]>"));
        QCOMPARE(QString::fromStdString(Mesh({}, {3}).toString()), QStringLiteral("<[], device_ids=[3]>"));
    }
    void meshVerification_data()
    {
        QTest::addColumn<QString>("axes"); // "a=2,b=0"
        QTest::addColumn<QString>("ids");
        QTest::addColumn<QString>("errorPart");
        QTest::newRow("ok") << "a=2,b=4"
                            << ""
                            << "";
        QTest::newRow("ok ids") << "a=2,b=2"
                                << "3,1,2,0"
                                << "";
        QTest::newRow("ok identity ids") << "a=2"
                                         << "0,1"
                                         << "";
        QTest::newRow("empty") << ""
                               << ""
                               << "";
        QTest::newRow("maximal") << ""
                                 << "5"
                                 << "";
        QTest::newRow("size 0") << "a=2,b=0"
                                << ""
                                << "axis size";
        QTest::newRow("negative id") << ""
                                     << "-1"
                                     << "non-negative";
        QTest::newRow("two ids no axes") << ""
                                         << "1,0"
                                         << "at most one device id";
        QTest::newRow("dup name") << "a=2,b=2,a=4"
                                  << ""
                                  << "duplicate axis name";
        QTest::newRow("count") << "a=2"
                               << "0"
                               << "must match";
        QTest::newRow("dup ids") << "a=2"
                                 << "1,1"
                                 << "iota";
        QTest::newRow("gap ids") << "a=2"
                                 << "2,1"
                                 << "iota";
    }
    void meshVerification()
    {
        QFETCH(QString, axes);
        QFETCH(QString, ids);
        QFETCH(QString, errorPart);
        std::vector<MeshAxis> ax;
        for (const QString& p : axes.split(',', Qt::SkipEmptyParts))
            ax.push_back({p.section('=', 0, 0).toStdString(), p.section('=', 1).toLongLong()});
        std::vector<int64_t> idv;
        for (const QString& p : ids.split(',', Qt::SkipEmptyParts))
            idv.push_back(p.toLongLong());
        auto err = verifyMesh(ax, idv);
        if (errorPart.isEmpty()) {
            QVERIFY2(!err, err ? err->c_str() : "");
        } else {
            QVERIFY(err);
            QVERIFY2(QString::fromStdString(*err).contains(errorPart), err->c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestAxisRef)
#include "tst_axisref.moc"
