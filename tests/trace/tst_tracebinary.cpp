// Binary traces: round trips against the JSON form, keyframe seeking, streaming from the
// recorder, and truncated or corrupted files read as errors.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/generate/ModelGenerator.h"
#include "core/io/MlirPrinter.h"
#include "core/session/Session.h"
#include "core/trace/TraceBinary.h"
#include "core/trace/TraceCursor.h"
#include "tests/trace/TraceTestSupport.h"

using namespace shardx;
using shardx::testing::recordTrace;
using shardx::testing::replayStates;

namespace {

std::string binaryOf(const Trace& t, int keyframeSteps = 0)
{
    std::ostringstream out;
    TraceBinaryWriter w(out, t.data().initial, keyframeSteps);
    for (const TraceStep& s : t.steps())
        w.step(s);
    w.finish(t.data(), t.numSteps(), t.keyframeInterval());
    return out.str();
}

std::string readText(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::string generatedText(int layers)
{
    generate::TransformerSpec spec;
    spec.layers = layers;
    auto m = generate::generateTransformer(spec);
    return m ? io::printModule(**m) : std::string();
}

/// The sample texts, one per file (split files whole: recordTrace opens them as one module).
std::vector<std::pair<std::string, std::string>> samples()
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& e : std::filesystem::directory_iterator(SHARDX_SOURCE_DIR "/samples"))
        if (e.path().extension() == ".mlir")
            out.emplace_back(e.path().filename().string(), readText(e.path().string()));
    std::sort(out.begin(), out.end());
    return out;
}

/// The offsets where the sections of a binary trace begin, and its length.
std::vector<size_t> sectionBoundaries(const std::string& bytes)
{
    std::vector<size_t> out = {0, 8, 16};
    size_t at = 16;
    while (at + 16 <= bytes.size() - 32) {
        uint64_t len = 0;
        for (int i = 0; i < 8; ++i)
            len |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[at + 8 + i])) << (8 * i);
        at += 16 + len;
        out.push_back(at);
    }
    out.push_back(bytes.size() - 16);
    out.push_back(bytes.size());
    return out;
}

} // namespace

class TestTraceBinary : public QObject {
    Q_OBJECT

private slots:
    void crcIsIeee()
    {
        // The check value of CRC-32/ISO-HDLC (zlib's crc32).
        QCOMPARE(traceCrc32("123456789", 9), 0xCBF43926u);
        QCOMPARE(traceCrc32("", 0), 0u);
        // Continuing from a prefix gives the CRC of the whole.
        QCOMPARE(traceCrc32("56789", 5, traceCrc32("1234", 4)), 0xCBF43926u);
    }

    void roundTripEqualsTheJsonTraceOnSamples()
    {
        int nonEmpty = 0;
        for (const auto& [name, text] : samples())
            for (const char* strategy : {"basic", "aggressive", "pipeline"}) {
                const Trace t = recordTrace(text, strategy);
                const std::string json = t.toJson();
                Expected<Trace> fromJson = Trace::fromJson(json);
                QVERIFY2(fromJson.ok(), fromJson.ok() ? "" : fromJson.error().message.c_str());
                const std::string bytes = binaryOf(t);
                QVERIFY(isBinaryTrace(bytes));
                Expected<TraceFile> file = TraceFile::fromBytes(bytes, name);
                QVERIFY2(file.ok(), file.ok() ? "" : file.error().format().c_str());
                Expected<Trace> back = file->load();
                QVERIFY2(back.ok(), back.ok() ? "" : back.error().format().c_str());
                QVERIFY2(*back == *fromJson, (name + " " + strategy).c_str());
                QCOMPARE(back->keyframeInterval(), fromJson->keyframeInterval());
                QCOMPARE(back->toJson(), json);
                // Written again from what it read, the file is the same.
                QCOMPARE(binaryOf(*back), bytes);
                nonEmpty += t.numSteps() > 0;
            }
        QVERIFY(nonEmpty >= 10);
    }

    void streamedTraceEqualsTheRecordedOne()
    {
        // The Session streams the trace to the file while propagating: it reads back as the
        // trace kept in memory, and without keeping it the file is the same.
        const std::string text = generatedText(3);
        QVERIFY(!text.empty());
        const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                          ("shardx-tracebinary-" + std::to_string(QCoreApplication::applicationPid()));
        std::filesystem::create_directories(dir);
        for (const char* strategy : {"aggressive", "pipeline"}) {
            std::string files[2];
            for (int keep = 1; keep >= 0; --keep) {
                Session session;
                QVERIFY(session.openText(text, "gen.mlir"));
                PropagationRequest request;
                request.strategy = strategy;
                request.traceFile = (dir / (std::string(strategy) + std::to_string(keep) + ".shxtrace")).string();
                request.keepTrace = keep != 0;
                const PropagationResult result = session.propagate(request);
                QVERIFY2(result.ok, result.diagnostics.formatAll().c_str());
                QCOMPARE(session.trace() != nullptr, keep != 0);
                Expected<Trace> read = readTraceFile(request.traceFile);
                QVERIFY2(read.ok(), read.ok() ? "" : read.error().format().c_str());
                QCOMPARE(read->numSteps(), result.steps);
                if (keep) {
                    QVERIFY(*read == *session.trace());
                    QCOMPARE(read->toJson(), session.trace()->toJson());
                }
                files[keep] = readText(request.traceFile);
            }
            QCOMPARE(files[0], files[1]);
            // saveTrace writes binary, or JSON for a .json path; openTrace reads both.
            Session session;
            QVERIFY(session.openText(text, "gen.mlir"));
            PropagationRequest request;
            request.strategy = strategy;
            QVERIFY(session.propagate(request).ok);
            const std::string bin = (dir / "saved.trace").string(), json = (dir / "saved.json").string();
            QVERIFY(session.saveTrace(bin).ok());
            QVERIFY(session.saveTrace(json).ok());
            QVERIFY(isBinaryTrace(readText(bin)));
            QCOMPARE(readText(json), session.trace()->toJson());
            for (const std::string& path : {bin, json}) {
                Session reopened;
                QVERIFY2(reopened.openTrace(path), reopened.diagnostics().formatAll().c_str());
                QVERIFY(*reopened.trace() == *session.trace());
            }
        }
        std::filesystem::remove_all(dir);
    }

    void keyframeSeekEqualsReplayFromTheStart()
    {
        const Trace t = recordTrace(generatedText(2), "pipeline");
        QVERIFY(t.numSteps() > 100);
        const std::vector<std::vector<int>> states = replayStates(t);
        for (int keyframeSteps : {1, 7, 64, 0}) {
            const std::string bytes = binaryOf(t, keyframeSteps);
            Expected<TraceFile> file = TraceFile::fromBytes(bytes, "t");
            QVERIFY(file.ok());
            QCOMPARE(file->numSteps(), t.numSteps());
            TraceCursor cursor(t);
            for (size_t k = 0; k <= t.numSteps(); k += (keyframeSteps == 1 ? 1 : 3)) {
                Expected<std::vector<int>> s = file->stateAfter(k);
                QVERIFY(s.ok());
                QVERIFY2(*s == states[k], ("step " + std::to_string(k)).c_str());
                cursor.seek(k);
                QVERIFY(cursor.state() == states[k]);
            }
            QVERIFY(file->stateAfter(t.numSteps()).ok());
            QVERIFY(!file->stateAfter(t.numSteps() + 1).ok());
        }
    }

    void truncatedFilesAreErrorsAtEveryLength()
    {
        // Cut at every section boundary (and one byte either side), and at every length of a
        // small trace: never a crash, always an error naming the file and the offset.
        const Trace t = recordTrace(samples().front().second, "aggressive");
        QVERIFY(t.numSteps() > 0);
        const std::string bytes = binaryOf(t, 4);
        std::vector<size_t> cuts;
        for (size_t b : sectionBoundaries(bytes))
            for (size_t c : {b - 1, b, b + 1})
                if (c < bytes.size())
                    cuts.push_back(c);
        QVERIFY(cuts.size() > 20);
        for (size_t n = 0; n < bytes.size(); n += 1)
            cuts.push_back(n);
        for (size_t n : cuts) {
            Expected<TraceFile> file = TraceFile::fromBytes(std::string_view(bytes).substr(0, n), "cut.trace");
            Expected<Trace> loaded = file ? file->load() : Expected<Trace>(file.error());
            QVERIFY2(!loaded.ok(), ("length " + std::to_string(n)).c_str());
            QCOMPARE(loaded.error().pos.file, std::string("cut.trace"));
            QVERIFY2(n < 8 || loaded.error().message.rfind("offset ", 0) == 0, loaded.error().message.c_str());
        }
        Expected<TraceFile> cut =
            TraceFile::fromBytes(std::string_view(bytes).substr(0, bytes.size() - 1), "cut.trace");
        QVERIFY(!cut.ok());
        QVERIFY2(cut.error().message.find("truncated") != std::string::npos, cut.error().message.c_str());
    }

    void flippedBytesAreErrorsEverywhere()
    {
        // Any one flipped bit, anywhere, is found by a magic, a version, a length or a checksum.
        const Trace t = recordTrace(samples().front().second, "aggressive");
        const std::string good = binaryOf(t, 4);
        QVERIFY(TraceFile::fromBytes(good, "good").ok());
        for (size_t i = 0; i < good.size(); ++i)
            for (int bit : {0, 5}) {
                std::string bad = good;
                bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
                Expected<TraceFile> file = TraceFile::fromBytes(bad, "bad.trace");
                Expected<Trace> loaded = file ? file->load() : Expected<Trace>(file.error());
                QVERIFY2(!loaded.ok(), ("byte " + std::to_string(i)).c_str());
                if (file) {
                    // Seeking reads only some sections: it may succeed, but never crashes.
                    for (size_t k : {size_t(0), t.numSteps() / 2, t.numSteps()})
                        (void)file->stateAfter(k);
                    (void)file->loadNames();
                }
            }
        std::string bad = good;
        bad[good.size() / 2] ^= 0x10;
        Expected<Trace> loaded = TraceFile::fromBytes(bad, "bad.trace")->load();
        QVERIFY(!loaded.ok());
        QVERIFY2(loaded.error().message.find("checksum") != std::string::npos, loaded.error().message.c_str());
    }

    void readTraceFileTakesEitherFormat()
    {
        const Trace t = recordTrace(samples().front().second, "aggressive");
        const std::filesystem::path dir = std::filesystem::temp_directory_path();
        const std::string json = (dir / "shardx-tst-tracebinary.json").string();
        const std::string bin = (dir / "shardx-tst-tracebinary.bin").string();
        std::ofstream(json, std::ios::binary) << t.toJson();
        std::ofstream(bin, std::ios::binary) << binaryOf(t);
        for (const std::string& path : {json, bin}) {
            Expected<Trace> r = readTraceFile(path);
            QVERIFY2(r.ok(), r.ok() ? "" : r.error().format().c_str());
            QVERIFY(*r == t);
        }
        std::ofstream(json, std::ios::binary) << "{\"format\": 1";
        Expected<Trace> r = readTraceFile(json);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().pos.file, json);
        QVERIFY(!readTraceFile((dir / "shardx-no-such-trace").string()).ok());
        std::filesystem::remove(json);
        std::filesystem::remove(bin);
    }
};

QTEST_APPLESS_MAIN(TestTraceBinary)
#include "tst_tracebinary.moc"
