// sdy.manual_computation (JAX's shard_map) in a global program on the reference interpreter: each device along
// the manual axes runs the body on its block, with the body's collectives between those devices, and the blocks
// are put back together by out_shardings. The expectations are derived by hand in the comments.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

#include "core/exec/TensorIo.h"
#include "tests/exec/ExecTestSupport.h"

using namespace shardx;
using namespace shardx::testing;

namespace {

/// The error of running @f of `text` on `args` (empty when it ran).
std::string manualRunError(const std::string& text, const std::vector<exec::Tensor>& args)
{
    auto m = parseProgram(text);
    if (!m)
        return "parse failed";
    exec::ReferenceExecutor ex;
    auto r = ex.runFunction(*m, "f", args);
    return r ? std::string() : r.error().format();
}

std::string manualReadFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
}

/// 0, 1, 2, ... in `shape`.
exec::Tensor manualIota(const std::string& type, std::vector<int64_t> shape)
{
    exec::Tensor t = tensorOf(type, shape, {});
    for (int64_t i = 0; i < t.numElements(); ++i)
        t.setFloat(i, static_cast<double>(i));
    return t;
}

const char* kMatmulFile = SHARDX_SOURCE_DIR "/tests/exec/data/shard_map_matmul.mlir";

/// x[i][k] = 100 i + k (16x32); w[k][j] = k / 8 + 1 where k % 8 == j, else 0 (32x8).
std::vector<exec::Tensor> manualMatmulInputs()
{
    exec::Tensor x = tensorOf("f32", {16, 32}, {});
    for (int64_t i = 0; i < 16; ++i)
        for (int64_t k = 0; k < 32; ++k)
            x.setFloat(i * 32 + k, static_cast<double>(100 * i + k));
    exec::Tensor w = tensorOf("f32", {32, 8}, {});
    for (int64_t k = 0; k < 32; ++k)
        w.setFloat(k * 8 + k % 8, static_cast<double>(k / 8 + 1));
    return {x, w};
}

} // namespace

class TestManualComputation : public QObject {
    Q_OBJECT

private:
    struct Cli {
        int exitCode = -1;
        QString out;
        QString err;
    };

    Cli cli(const QStringList& args, const QStringList& env = {})
    {
        QProcess p;
        if (!env.isEmpty()) {
            QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
            for (const QString& kv : env)
                e.insert(kv.section('=', 0, 0), kv.section('=', 1));
            p.setProcessEnvironment(e);
        }
        p.start(QStringLiteral(SHARDX_BINARY_DIR "/app/cli/shardx-cli"), args);
        p.closeWriteChannel();
        if (!p.waitForFinished(120000))
            return {};
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }

    QTemporaryDir m_dir;

private slots:
    void fullManualMatmulWithPsum()
    {
        // JAX's export: 2x4 mesh, x [{"data"}, {"model"}] (8x8 blocks), w [{"model"}, {}] (8x8 blocks); device
        // (d, m) multiplies x's block (d, m) by w's block m, and the psum over "model" adds the four.
        // out[i][j] = sum_k x[i][k] w[k][j] = sum_{m=0..3} (100 i + 8 m + j) (m + 1)
        //           = 10 (100 i + j) + 8 (0 + 2 + 6 + 12) = 1000 i + 10 j + 160.
        // Without the psum devices (d, 0..3) would disagree; a block put back in the wrong place moves i.
        auto r = runFunc(manualReadFile(kMatmulFile), "main", manualMatmulInputs());
        QCOMPARE(r.size(), size_t(1));
        QCOMPARE(r[0].shape(), (std::vector<int64_t>{16, 8}));
        Values expect;
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 8; ++j)
                expect.push_back(1000.0 * i + 10.0 * j + 160.0);
        QCOMPARE(valuesOf(r[0]), expect);
    }

    void partialManualKeepsFreeAxesGlobal()
    {
        // Manual over "data" only: the body sees 8x32 blocks (rows split by "data", the columns whole although
        // in_shardings put "model" there: "model" is free). Two instances run, on the devices at model
        // coordinate 0: partition ids 0 and 4 (result 2, put together along "data").
        // Result 0: row sums, added over "data" by the all_reduce (groups pair the devices of one model
        // coordinate): x = iota, x[i][k] = 32 i + k, sum_k x[i][k] + x[i+8][k] = (1024 i + 496) + (1024 (i + 8)
        // + 496) = 2048 i + 9184, replicated. Result 1: 2 x, put back by rows.
        const std::string text = R"(
module {
  sdy.mesh @mesh = <["data"=2, "model"=4]>
  func.func @f(%arg0: tensor<16x32xf32>) -> (tensor<8xf32>, tensor<16x32xf32>, tensor<2xui32>) {
    %0:3 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"data"}, {"model"}]>] out_shardings=[<@mesh, [{}]>, <@mesh, [{"data"}, {"model"}]>, <@mesh, [{"data"}]>] manual_axes={"data"} (%arg1: tensor<8x32xf32>) {
      %c = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %s = stablehlo.reduce(%arg1 init: %c) applies stablehlo.add across dimensions = [1] : (tensor<8x32xf32>, tensor<f32>) -> tensor<8xf32>
      %r = "stablehlo.all_reduce"(%s) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<8xf32>) -> tensor<8xf32>
      %two = stablehlo.constant dense<2.000000e+00> : tensor<8x32xf32>
      %d = stablehlo.multiply %arg1, %two : tensor<8x32xf32>
      %p = stablehlo.partition_id : tensor<ui32>
      %pr = stablehlo.reshape %p : (tensor<ui32>) -> tensor<1xui32>
      sdy.return %r, %d, %pr : tensor<8xf32>, tensor<8x32xf32>, tensor<1xui32>
    } : (tensor<16x32xf32>) -> (tensor<8xf32>, tensor<16x32xf32>, tensor<2xui32>)
    return %0#0, %0#1, %0#2 : tensor<8xf32>, tensor<16x32xf32>, tensor<2xui32>
  }
}
)";
        const exec::Tensor x = manualIota("f32", {16, 32});
        auto r = runFunc(text, "f", {x});
        QCOMPARE(r.size(), size_t(3));
        Values sums, doubled;
        for (int i = 0; i < 8; ++i)
            sums.push_back(2048.0 * i + 9184.0);
        for (int64_t e = 0; e < 16 * 32; ++e)
            doubled.push_back(2.0 * static_cast<double>(e));
        QCOMPARE(valuesOf(r[0]), sums);
        QCOMPARE(valuesOf(r[1]), doubled);
        QCOMPARE(valuesOf(r[2]), (Values{0, 4}));

        // A group across the free axis "model" ([0..7] joins devices 1, 2, 3 that run no instance) is an error at
        // the collective, naming the manual computation.
        std::string bad = text;
        const std::string groups = "dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>";
        bad.replace(bad.find(groups), groups.size(), "dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>");
        const std::string error = manualRunError(bad, {x});
        QVERIFY2(error.find("test.mlir:8:7") != std::string::npos, error.c_str());
        QVERIFY2(error.find("reaches device 1, which differs from it along an axis that is not manual in the body of "
                            "the sdy.manual_computation at 5:5 (manual axes: \"data\")") != std::string::npos,
                 error.c_str());
    }

    void permuteAndAllGatherInTheBody()
    {
        // x = iota(8) split over "x"=4: device d holds [2d, 2d+1]. The permute sends d's block to d+1 (3 to 0),
        // so device d holds block d-1: put back along "x" that is [6, 7, 0, 1, 2, 3, 4, 5]. The all_gather over
        // the four devices gives every device that same vector, replicated (result 1).
        const std::string text = R"(
module {
  sdy.mesh @mesh = <["x"=4]>
  func.func @f(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>, <@mesh, [{}]>] manual_axes={"x"} (%arg1: tensor<2xf32>) {
      %1 = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
      %2 = "stablehlo.all_gather"(%1) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @mesh, axes = [#stablehlo.axis_ref<name = "x">]>, use_global_device_ids}> : (tensor<2xf32>) -> tensor<8xf32>
      sdy.return %1, %2 : tensor<2xf32>, tensor<8xf32>
    } : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
    return %0#0, %0#1 : tensor<8xf32>, tensor<8xf32>
  }
}
)";
        auto r = runFunc(text, "f", {manualIota("f32", {8})});
        QCOMPARE(r.size(), size_t(2));
        QCOMPARE(valuesOf(r[0]), (Values{6, 7, 0, 1, 2, 3, 4, 5}));
        QCOMPARE(valuesOf(r[1]), (Values{6, 7, 0, 1, 2, 3, 4, 5}));
    }

    void permuteInAPartialManualComputation()
    {
        // Mesh data=2 x model=2 (device = 2 data + model), manual over "data": instances on devices 0 and 2. The
        // pairs swap the data halves for both model coordinates; those of devices 1 and 3 (model 1, free) have
        // no instance and are left out. x = iota(4) split by rows: [0, 1] | [2, 3] -> [2, 3, 0, 1].
        const std::string text = R"(
module {
  sdy.mesh @mesh = <["data"=2, "model"=2]>
  func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"data"}]>] out_shardings=[<@mesh, [{"data"}]>] manual_axes={"data"} (%arg1: tensor<2xf32>) {
      %1 = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 2], [2, 0], [1, 3], [3, 1]]> : tensor<4x2xi64>}> : (tensor<2xf32>) -> tensor<2xf32>
      sdy.return %1 : tensor<2xf32>
    } : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
)";
        QCOMPARE(runValues(text, {manualIota("f32", {4})}), (Values{2, 3, 0, 1}));
        // A pair across the free axis "model" (0 -> 1) is an error.
        std::string bad = text;
        bad.replace(bad.find("[[0, 2], [2, 0]"), 15, "[[0, 1], [2, 0]");
        const std::string error = manualRunError(bad, {manualIota("f32", {4})});
        QVERIFY2(error.find("the pair [0, 1] of device") != std::string::npos, error.c_str());
    }

    void subAxesOnANonIotaMesh()
    {
        // PARTITION.md 2.5's mesh: x=2, y=4, device_ids [0, 2, 4, 6, 1, 3, 5, 7]. The operand (iota(8)) is split
        // by ["y":(2)2, "x"]: shard index 2 y2 + x, which is d mod 4 for device d (d and d+4 hold block d mod 4,
        // they differ only along "y":(1)2). The body makes 10 x + partition_id and adds it over "y":(1)2 (groups
        // [0, 4], [2, 6], [1, 5], [3, 7]): block s becomes 20 x + s + (s + 4). Put back:
        // out[e] = 20 e + 2 (e / 2) + 4 = [4, 24, 46, 66, 88, 108, 130, 150].
        const std::string text = R"(
module {
  sdy.mesh @mesh = <["x"=2, "y"=4], device_ids=[0, 2, 4, 6, 1, 3, 5, 7]>
  func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"y":(2)2, "x"}]>] out_shardings=[<@mesh, [{"y":(2)2, "x"}]>] manual_axes={"x", "y"} (%arg1: tensor<2xf32>) {
      %p = stablehlo.partition_id : tensor<ui32>
      %pf = stablehlo.convert %p : (tensor<ui32>) -> tensor<f32>
      %pb = stablehlo.broadcast_in_dim %pf, dims = [] : (tensor<f32>) -> tensor<2xf32>
      %ten = stablehlo.constant dense<1.000000e+01> : tensor<2xf32>
      %m = stablehlo.multiply %arg1, %ten : tensor<2xf32>
      %r = stablehlo.add %m, %pb : tensor<2xf32>
      %s = "stablehlo.all_reduce"(%r) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [2, 6], [1, 5], [3, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }) : (tensor<2xf32>) -> tensor<2xf32>
      sdy.return %s : tensor<2xf32>
    } : (tensor<8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
)";
        QCOMPARE(runValues(text, {manualIota("f32", {8})}), (Values{4, 24, 46, 66, 88, 108, 130, 150}));

        // Without the all_reduce, devices d and d + 4 return 10 x + d and 10 x + d + 4 for the same block, which
        // out_shardings replicate along "y":(1)2: the global value is not defined, and that is the error.
        std::string unreduced = text;
        unreduced.replace(unreduced.find("sdy.return %s"), 13, "sdy.return %r");
        const std::string error = manualRunError(unreduced, {manualIota("f32", {8})});
        QVERIFY2(error.find("result 0: devices 0 and 4 return different values for the same part of it, but "
                            "out_shardings replicate it along (parts of) manual axes {\"y\"}") != std::string::npos,
                 error.c_str());
    }

    void unreducedResultsAreSummed()
    {
        // out_shardings unreduced along "x": the global value is the sum of the devices' values. Each device
        // returns its block of iota(8) (4 blocks of 2): [0+2+4+6, 1+3+5+7] = [12, 16].
        const std::string text = R"(
module {
  sdy.mesh @mesh = <["x"=4]>
  func.func @f(%arg0: tensor<8xf32>) -> tensor<2xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{}], unreduced={"x"}>] manual_axes={"x"} (%arg1: tensor<2xf32>) {
      sdy.return %arg1 : tensor<2xf32>
    } : (tensor<8xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
)";
        QCOMPARE(runValues(text, {manualIota("f32", {8})}), (Values{12, 16}));
    }

    void nestedManualComputations()
    {
        // Mesh data=2 x model=2 (device = 2 data + model). The outer one is manual over "data" (x = iota 4x4,
        // rows split: 2x4 each), the inner one over "model" (columns split: 2x2 each) and adds the two column
        // halves over "model" (groups [0, 1], [2, 3]): out[i][j] = x[i][j] + x[i][j+2] = (4 i + j) + (4 i + j +
        // 2) = 8 i + 2 j + 2.
        const std::string text = R"(
module {
  sdy.mesh @mesh = <["data"=2, "model"=2]>
  func.func @f(%arg0: tensor<4x4xf32>) -> tensor<4x2xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"data"}, {}]>] out_shardings=[<@mesh, [{"data"}, {}]>] manual_axes={"data"} (%arg1: tensor<2x4xf32>) {
      %1 = sdy.manual_computation(%arg1) in_shardings=[<@mesh, [{}, {"model"}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={"model"} (%arg2: tensor<2x2xf32>) {
        %2 = "stablehlo.all_reduce"(%arg2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> ({
        ^bb0(%a: tensor<f32>, %b: tensor<f32>):
          %t = stablehlo.add %a, %b : tensor<f32>
          stablehlo.return %t : tensor<f32>
        }) : (tensor<2x2xf32>) -> tensor<2x2xf32>
        sdy.return %2 : tensor<2x2xf32>
      } : (tensor<2x4xf32>) -> tensor<2x2xf32>
      sdy.return %1 : tensor<2x2xf32>
    } : (tensor<4x4xf32>) -> tensor<4x2xf32>
    return %0 : tensor<4x2xf32>
  }
}
)";
        QCOMPARE(runValues(text, {manualIota("f32", {4, 4})}), (Values{2, 4, 10, 12, 18, 20, 26, 28}));
        // A collective over the outer axis "data" inside the inner body would need the other outer instance's
        // inner devices: a clear error at the collective (line 7), naming the inner computation (line 6) and the
        // outer one (line 5).
        std::string bad = text;
        bad.replace(bad.find("[[0, 1], [2, 3]]"), 16, "[[0, 2], [1, 3]]");
        const std::string error = manualRunError(bad, {manualIota("f32", {4, 4})});
        QVERIFY2(error.find("test.mlir:7:9") != std::string::npos, error.c_str());
        QVERIFY2(error.find("on device 0 of the sdy.manual_computation at 5:5: on device 0 of the "
                            "sdy.manual_computation at 6:7") != std::string::npos,
                 error.c_str());
        QVERIFY2(error.find("reaches device 2") != std::string::npos, error.c_str());
        QVERIFY2(error.find("sdy.manual_computation at 6:7 (manual axes: \"data\", \"model\")") != std::string::npos,
                 error.c_str());
    }

    void aManualComputationInALoop()
    {
        // Three times: every block of 2 (of 4, over "x") becomes the sum of all blocks (psum). x = iota(8):
        // [12, 16] per block after one turn, [48, 64] after two, [192, 256] after three.
        const std::string text = R"(
module {
  sdy.mesh @mesh = <["x"=4]>
  func.func @f(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<3> : tensor<i32>
    %0:2 = stablehlo.while(%i = %c, %x = %arg0) : tensor<i32>, tensor<8xf32>
     cond {
      %1 = stablehlo.compare  LT, %i, %c_0,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = sdy.manual_computation(%x) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%a: tensor<2xf32>) {
        %2 = "stablehlo.all_reduce"(%a) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
        ^bb0(%p: tensor<f32>, %q: tensor<f32>):
          %t = stablehlo.add %p, %q : tensor<f32>
          stablehlo.return %t : tensor<f32>
        }) : (tensor<2xf32>) -> tensor<2xf32>
        sdy.return %2 : tensor<2xf32>
      } : (tensor<8xf32>) -> tensor<8xf32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %3 = stablehlo.add %i, %c_1 : tensor<i32>
      stablehlo.return %3, %1 : tensor<i32>, tensor<8xf32>
    }
    return %0#1 : tensor<8xf32>
  }
}
)";
        QCOMPARE(runValues(text, {manualIota("f32", {8})}), (Values{192, 256, 192, 256, 192, 256, 192, 256}));
    }

    void anErrorInTheBodyNamesItsDeviceAndPlace()
    {
        // An op the interpreter does not run, in the body: the error is at that op (line 6), on the first device
        // that reports it, inside the manual computation of line 5.
        const std::string text = R"(
module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @f(%arg0: tensor<4xf32>) -> tensor<2xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}]>] out_shardings=[<@mesh, [{"x"}]>] manual_axes={"x"} (%a: tensor<2xf32>) {
      %1 = "unknown.op"(%a) : (tensor<2xf32>) -> tensor<1xf32>
      sdy.return %1 : tensor<1xf32>
    } : (tensor<4xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
)";
        const std::string error = manualRunError(text, {manualIota("f32", {4})});
        QVERIFY2(error.find("test.mlir:6:") != std::string::npos, error.c_str());
        QVERIFY2(error.find("op 'unknown.op' is not supported") != std::string::npos, error.c_str());
        QVERIFY2(error.find("on device 0 of the sdy.manual_computation at 5:") != std::string::npos, error.c_str());
    }

    void interpretRunsAShardMapModule()
    {
        // shardx-cli interpret FILE --inputs: the hand-made inputs of fullManualMatmulWithPsum, result row 1
        // (i = 1) begins 1000 + 160 = 1160, 1170.
        const auto in = manualMatmulInputs();
        const QString x = m_dir.filePath("x.npy"), w = m_dir.filePath("w.npy");
        QVERIFY(exec::writeNpy(x.toStdString(), in[0]));
        QVERIFY(exec::writeNpy(w.toStdString(), in[1]));
        Cli r = cli({"interpret", kMatmulFile, "--inputs", x + "," + w, "--save-results", m_dir.path()});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        auto saved = exec::readNpy(m_dir.filePath("result0.npy").toStdString());
        QVERIFY(saved);
        QCOMPARE(saved->getFloat(8), 1160.0);
        QCOMPARE(saved->getFloat(9), 1170.0);
        QCOMPARE(saved->getFloat(15 * 8 + 7), 15000.0 + 70.0 + 160.0);
        // From a seed, as other programs.
        r = cli({"interpret", kMatmulFile, "--seed", "3"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.startsWith("result 0: tensor<16x8xf32> [["), qPrintable(r.out));
    }

    void validateMatchesAndCatchesFaults()
    {
        // The global program (the manual computation run per device here) against the partitioned one (its
        // body inlined, the all_reduce between the 8 devices).
        Cli r = cli({"validate", kMatmulFile, "--backend", "reference"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains("verdict: match (1 value compared on 8 devices)"), qPrintable(r.out));
        // A corrupted all_reduce on device 1 (device (0, 1)) spoils rows 0..7 there only.
        r = cli({"validate", kMatmulFile, "--backend", "reference", "--inject-fault", "collective"});
        QVERIFY2(r.exitCode == 1, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains("injected fault: collective: the results of stablehlo.all_reduce (collective 0 of "
                                "device 1, "),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains("MISMATCH on devices [1]"), qPrintable(r.out));
        r = cli({"validate", kMatmulFile, "--backend", "reference", "--inject-fault", "swap-shards"});
        QVERIFY2(r.exitCode == 1, qPrintable(r.out + r.err));
    }

    void validateComparesTheBodyPerDevice()
    {
        // --intermediates: the body's values are compared per device (the global run has each device's instance),
        // so a corrupted all_reduce (line 10) is the first divergence, on device 1, before the result.
        Cli r = cli({"validate", kMatmulFile, "--intermediates"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains("verdict: match (5 values compared on 8 devices)"), qPrintable(r.out));
        QVERIFY2(r.out.contains(QRegularExpression(
                     "%2 +tensor<8x8xf32> +per device \\(body of the sdy.manual_computation at 8:5\\) .* match")),
                 qPrintable(r.out));
        r = cli({"validate", kMatmulFile, "--intermediates", "--inject-fault", "collective"});
        QVERIFY2(r.exitCode == 1, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains("first divergence %2 (stablehlo.all_reduce) at " + QString(kMatmulFile) +
                                ":10:7 on device 1"),
                 qPrintable(r.out));

        // Manual over "data" only: the dot_general of the body contracts the columns, which the partitioner splits
        // along the free "model": its value is a partial sum on each device (listed as not compared), the tanh
        // after the all_reduce is compared.
        const QString partial = QStringLiteral(SHARDX_SOURCE_DIR "/tests/exec/data/shard_map_partial.mlir");
        r = cli({"validate", partial, "--intermediates", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        const QJsonObject report = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(report["verdict"].toString(), QStringLiteral("match"));
        const QJsonArray skipped = report["skipped"].toArray();
        QCOMPARE(skipped.size(), 1);
        QVERIFY2(skipped[0].toString().startsWith("%1: a partial result"), qPrintable(skipped[0].toString()));
        QStringList compared;
        for (const QJsonValue& row : report["intermediates"].toArray())
            compared << row.toObject()["name"].toString();
        QCOMPARE(compared, QStringList{"%2"});
    }

    void validateOnVulkan()
    {
        const QString icd = QStringLiteral("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json");
        QStringList env = qEnvironmentVariableIsSet("VK_DRIVER_FILES") || !QFile::exists(icd)
                              ? QStringList{}
                              : QStringList{"VK_DRIVER_FILES=" + icd};
        // Under LeakSanitizer (CI's sanitizer build) the child does not check leaks: lavapipe leaks 128 bytes each
        // time it is loaded and is unloaded before the report, which then cannot name (or suppress) it; shardx's
        // own Vulkan code is leak-checked in tst_vulkan*, where the driver stays loaded.
        const QString asan = qEnvironmentVariable("ASAN_OPTIONS");
        env << (asan.isEmpty() ? QStringLiteral("ASAN_OPTIONS=detect_leaks=0")
                               : "ASAN_OPTIONS=" + asan + QStringLiteral(":detect_leaks=0"));
        Cli r = cli({"validate", kMatmulFile, "--backend", "vulkan"}, env);
        if (r.err.contains("no Vulkan") || r.err.contains("this build has no Vulkan"))
            QSKIP("no Vulkan driver");
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains("verdict: match (1 value compared on 8 devices)"), qPrintable(r.out));
        r = cli({"validate", kMatmulFile, "--backend", "vulkan", "--inject-fault", "collective"}, env);
        QVERIFY2(r.exitCode == 1, qPrintable(r.out + r.err));
    }
};

QTEST_GUILESS_MAIN(TestManualComputation)
#include "tst_manualcomputation.moc"
