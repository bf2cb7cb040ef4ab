// TensorIo: seeded inputs and .npy reading and writing.
#include "core/exec/TensorIo.h"

#include <cstring>
#include <fstream>
#include <sstream>

namespace shardx::exec {

namespace {

uint64_t tioSplitMix(uint64_t& state)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/// NumPy's descr for an element type ("" when it has none).
std::string tioDescr(const ElementType& t)
{
    switch (t.kind) {
    case ElementKind::Bool: return "|b1";
    case ElementKind::Float: return t.bits == 64 ? "<f8" : t.bits == 32 || t.isBf16 ? "<f4" : "<f2";
    case ElementKind::Complex: return t.bits == 128 ? "<c16" : "<c8";
    case ElementKind::Int:
        if (t.bits == 8)
            return t.isUnsigned ? "|u1" : "|i1";
        return std::string("<") + (t.isUnsigned ? "u" : "i") + std::to_string(t.bits / 8);
    }
    return "";
}

std::optional<ElementType> tioTypeOfDescr(const std::string& d)
{
    static const std::pair<const char*, const char*> table[] = {
        {"<f4", "f32"},          {"<f8", "f64"},           {"<f2", "f16"},  {"|b1", "i1"},
        {"|i1", "i8"},           {"|u1", "ui8"},           {"<i2", "i16"},  {"<i4", "i32"},
        {"<i8", "i64"},          {"<u2", "ui16"},          {"<u4", "ui32"}, {"<u8", "ui64"},
        {"<c8", "complex<f32>"}, {"<c16", "complex<f64>"},
    };
    for (const auto& [descr, name] : table)
        if (d == descr)
            return elementTypeFromName(name);
    return std::nullopt;
}

/// The text of `'key': value` in a .npy header dict (up to the next top-level comma).
std::string tioHeaderField(const std::string& header, const std::string& key)
{
    const size_t at = header.find("'" + key + "'");
    if (at == std::string::npos)
        return "";
    size_t i = header.find(':', at);
    if (i == std::string::npos)
        return "";
    ++i;
    while (i < header.size() && header[i] == ' ')
        ++i;
    size_t end = i;
    int depth = 0;
    for (; end < header.size(); ++end) {
        const char c = header[end];
        if (c == '(' || c == '[')
            ++depth;
        else if (c == ')' || c == ']')
            --depth;
        else if ((c == ',' || c == '}') && depth == 0)
            break;
    }
    return header.substr(i, end - i);
}

} // namespace

Tensor randomTensor(const ElementType& type, const std::vector<int64_t>& shape, uint64_t seed)
{
    Tensor t(type, shape);
    uint64_t state = seed;
    for (int64_t i = 0; i < t.numElements(); ++i) {
        const uint64_t r = tioSplitMix(state);
        switch (type.kind) {
        case ElementKind::Bool: t.setInt(i, static_cast<int64_t>(r & 1)); break;
        case ElementKind::Float: t.setFloat(i, (static_cast<double>(r % 128) - 64.0) / 16.0); break;
        case ElementKind::Complex:
            t.setComplex(
                i, {(static_cast<double>(r % 128) - 64.0) / 16.0, (static_cast<double>((r >> 8) % 128) - 64.0) / 16.0});
            break;
        case ElementKind::Int:
            t.setInt(i, type.isUnsigned ? static_cast<int64_t>(r % 16) : static_cast<int64_t>(r % 16) - 8);
            break;
        }
    }
    return t;
}

Expected<Tensor> readNpy(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        return Error{"cannot open '" + path + "'", {path, 0, 0}};
    std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto fail = [&](const std::string& what) { return Error{"not a readable .npy file: " + what, {path, 0, 0}}; };
    if (data.size() < 10 || data.compare(0, 6, "\x93NUMPY") != 0)
        return fail("no NumPy magic");
    const int major = static_cast<unsigned char>(data[6]);
    size_t headerLen, headerStart;
    if (major == 1) {
        headerLen =
            static_cast<unsigned char>(data[8]) | (static_cast<size_t>(static_cast<unsigned char>(data[9])) << 8);
        headerStart = 10;
    } else if (major == 2 || major == 3) {
        if (data.size() < 12)
            return fail("truncated header");
        headerLen = 0;
        for (int k = 3; k >= 0; --k)
            headerLen = (headerLen << 8) | static_cast<unsigned char>(data[static_cast<size_t>(8 + k)]);
        headerStart = 12;
    } else {
        return fail("format version " + std::to_string(major));
    }
    if (headerStart + headerLen > data.size())
        return fail("truncated header");
    const std::string header = data.substr(headerStart, headerLen);
    std::string descr = tioHeaderField(header, "descr");
    if (descr.size() >= 2)
        descr = descr.substr(1, descr.size() - 2);
    auto type = tioTypeOfDescr(descr);
    if (!type)
        return fail("element type '" + descr + "' is not supported");
    if (tioHeaderField(header, "fortran_order").rfind("False", 0) != 0)
        return fail("Fortran order is not supported");
    std::string shapeText = tioHeaderField(header, "shape");
    std::vector<int64_t> shape;
    for (char& c : shapeText)
        if (c == '(' || c == ')' || c == ',')
            c = ' ';
    std::istringstream is(shapeText);
    for (int64_t d; is >> d;) {
        if (d < 0)
            return fail("negative dimension");
        shape.push_back(d);
    }
    Tensor t(*type, shape);
    const size_t body = headerStart + headerLen;
    if (data.size() - body != t.bytes().size())
        return fail("holds " + std::to_string(data.size() - body) + " bytes of data, expected " +
                    std::to_string(t.bytes().size()));
    std::memcpy(t.bytes().data(), data.data() + body, t.bytes().size());
    if (type->isBool())
        for (auto& b : t.bytes())
            b = b ? 1 : 0;
    return t;
}

Status writeNpy(const std::string& path, const Tensor& t)
{
    Tensor data = t;
    if (t.elementType().isBf16) {
        data = Tensor(*elementTypeFromName("f32"), t.shape());
        for (int64_t i = 0; i < t.numElements(); ++i)
            data.setFloat(i, t.getFloat(i));
    }
    // NumPy's tuple spelling: (), (3,), (2, 3).
    std::string shape = "(";
    for (int d = 0; d < data.rank(); ++d)
        shape += (d ? ", " : "") + std::to_string(data.dim(d));
    shape += data.rank() == 1 ? ",)" : ")";
    std::string header =
        "{'descr': '" + tioDescr(data.elementType()) + "', 'fortran_order': False, 'shape': " + shape + ", }";
    // Pad so that the data starts at a multiple of 64 bytes; the header ends with a newline.
    const size_t total = 10 + header.size() + 1;
    header += std::string((64 - total % 64) % 64, ' ') + "\n";
    std::ofstream f(path, std::ios::binary);
    if (!f)
        return Error{"cannot write '" + path + "'", {path, 0, 0}};
    const uint16_t len = static_cast<uint16_t>(header.size());
    f.write("\x93NUMPY\x01\x00", 8);
    const char lenBytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
    f.write(lenBytes, 2);
    f.write(header.data(), static_cast<std::streamsize>(header.size()));
    f.write(reinterpret_cast<const char*>(data.bytes().data()), static_cast<std::streamsize>(data.bytes().size()));
    if (!f)
        return Error{"cannot write '" + path + "'", {path, 0, 0}};
    return Status::success();
}

} // namespace shardx::exec
