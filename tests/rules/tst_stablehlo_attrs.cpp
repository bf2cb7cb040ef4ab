// Tests of the StableHLO dimension-number parsers used by the rules.
#include <QtTest>

#include "core/ir/StablehloAttrs.h"

using namespace shardx;
using V = std::vector<int64_t>;

class TestStablehloAttrs : public QObject {
    Q_OBJECT
private slots:
    void dot()
    {
        auto d = stablehlo::parseDotDimensionNumbers(
            "lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [1, 0], lhs_contracting_dimensions = [3], "
            "rhs_contracting_dimensions = [2]");
        QVERIFY(d);
        QCOMPARE(d->lhsBatching, (V{0, 1}));
        QCOMPARE(d->rhsBatching, (V{1, 0}));
        QCOMPARE(d->lhsContracting, V{3});
        QCOMPARE(d->rhsContracting, V{2});
        auto empty = stablehlo::parseDotDimensionNumbers("");
        QVERIFY(empty && empty->lhsBatching.empty());
        std::string err;
        QVERIFY(!stablehlo::parseDotDimensionNumbers("lhs_contracting_dimensions = [1]", &err));
        QVERIFY(!err.empty());
        QVERIFY(!stablehlo::parseDotDimensionNumbers("lhs_batching_dimensions = [0", &err));
    }

    void gatherAndScatter()
    {
        auto g = stablehlo::parseGatherDimensionNumbers(
            "offset_dims = [3], collapsed_slice_dims = [1], operand_batching_dims = [0, 2], "
            "start_indices_batching_dims = [1, 0], start_index_map = [1, 3], index_vector_dim = 3");
        QVERIFY(g);
        QCOMPARE(g->offsetDims, V{3});
        QCOMPARE(g->operandBatchingDims, (V{0, 2}));
        QCOMPARE(g->startIndicesBatchingDims, (V{1, 0}));
        QCOMPARE(g->indexVectorDim, int64_t(3));
        auto s = stablehlo::parseScatterDimensionNumbers(
            "update_window_dims = [2, 3], inserted_window_dims = [0], scatter_dims_to_operand_dims = [1, 0], "
            "index_vector_dim = 2");
        QVERIFY(s);
        QCOMPARE(s->updateWindowDims, (V{2, 3}));
        QCOMPARE(s->insertedWindowDims, V{0});
        QVERIFY(s->inputBatchingDims.empty());
        QCOMPARE(s->indexVectorDim, int64_t(2));
    }

    void conv()
    {
        auto c = stablehlo::parseConvDimensionNumbers("[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]");
        QVERIFY(c);
        QCOMPARE(c->inputBatch, int64_t(0));
        QCOMPARE(c->inputFeature, int64_t(3));
        QCOMPARE(c->inputSpatial, (V{1, 2}));
        QCOMPARE(c->kernelInputFeature, int64_t(2));
        QCOMPARE(c->kernelOutputFeature, int64_t(3));
        QCOMPARE(c->kernelSpatial, (V{0, 1}));
        auto t = stablehlo::parseConvDimensionNumbers("[f, 1, b, 0]x[o, i, 1, 0]->[1, b, f, 0]");
        QVERIFY(t);
        QCOMPARE(t->inputSpatial, (V{3, 1}));
        QCOMPARE(t->kernelSpatial, (V{3, 2}));
        QCOMPARE(t->outputBatch, int64_t(1));
        QCOMPARE(t->outputSpatial, (V{3, 0}));
        auto raw = stablehlo::parseConvDimensionNumbers(
            "raw input_batch_dimension = 0, input_feature_dimension = 2, input_spatial_dimensions = [1], "
            "kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 2, kernel_spatial_dimensions = "
            "[0], output_batch_dimension = 0, output_feature_dimension = 2, output_spatial_dimensions = [1]");
        QVERIFY(raw);
        QCOMPARE(raw->inputFeature, int64_t(2));
        QCOMPARE(raw->kernelSpatial, V{0});
        QVERIFY(!stablehlo::parseConvDimensionNumbers("[b, 0, f]x[0, q, o]->[b, 0, f]"));
    }

    void attributeHelpers()
    {
        auto e = ir::makeAttr(ir::OpaqueAttr{"stablehlo", "", "transpose ADJOINT"});
        QCOMPARE(QString::fromStdString(stablehlo::enumKeyword(e.get())), QString("ADJOINT"));
        auto da = ir::makeAttr(ir::DenseArrayAttr{"i64", {1, 2, 3}, {}});
        QCOMPARE(*stablehlo::intList(da.get()), (V{1, 2, 3}));
        ir::DenseElementsAttr de;
        de.type = ir::Type::tensor({2, 2}, "i64");
        for (int64_t v : {-1, 1, 2, -2})
            for (int b = 0; b < 8; ++b)
                de.data.push_back(static_cast<uint8_t>((static_cast<uint64_t>(v) >> (8 * b)) & 0xff));
        auto dea = ir::makeAttr(de);
        QCOMPARE(*stablehlo::intList(dea.get()), (V{-1, 1, 2, -2}));
        ir::DenseElementsAttr splat;
        splat.type = ir::Type::tensor({3}, "i32");
        splat.splat = true;
        splat.data = {0xff, 0xff, 0xff, 0xff};
        auto sa = ir::makeAttr(splat);
        QCOMPARE(*stablehlo::intList(sa.get()), (V{-1, -1, -1}));
    }
};

QTEST_APPLESS_MAIN(TestStablehloAttrs)
#include "tst_stablehlo_attrs.moc"
