// Parser (MlirReaderImpl.h): integer tokens, integer/float attributes, dense arrays and literals, float encodings.
#include <cmath>
#include <cstring>
#include <functional>

#include "core/io/MlirReaderImpl.h"
#include "core/support/Arithmetic.h"

namespace shardx::io::detail {

using namespace ir;

namespace {

/// Float format description for encoding into small floats.
struct FloatFormat {
    int ebits = 8, mbits = 23, bias = 127;
    enum class Special { Ieee, FN, FNUZ, NoNan } special = Special::Ieee;
};

bool floatFormat(const std::string& t, FloatFormat& f)
{
    using S = FloatFormat::Special;
    if (t == "f16")
        f = {5, 10, 15, S::Ieee};
    else if (t == "bf16")
        f = {8, 7, 127, S::Ieee};
    else if (t == "f32")
        f = {8, 23, 127, S::Ieee};
    else if (t == "f64")
        f = {11, 52, 1023, S::Ieee};
    else if (t == "tf32")
        f = {8, 10, 127, S::Ieee};
    else if (t == "f8E5M2")
        f = {5, 2, 15, S::Ieee};
    else if (t == "f8E4M3")
        f = {4, 3, 7, S::Ieee};
    else if (t == "f8E3M4")
        f = {3, 4, 3, S::Ieee};
    else if (t == "f8E4M3FN")
        f = {4, 3, 7, S::FN};
    else if (t == "f8E5M2FNUZ")
        f = {5, 2, 16, S::FNUZ};
    else if (t == "f8E4M3FNUZ")
        f = {4, 3, 8, S::FNUZ};
    else if (t == "f8E4M3B11FNUZ")
        f = {4, 3, 11, S::FNUZ};
    else if (t == "f4E2M1FN")
        f = {2, 1, 1, S::NoNan};
    else if (t == "f6E2M3FN")
        f = {2, 3, 1, S::NoNan};
    else if (t == "f6E3M2FN")
        f = {3, 2, 3, S::NoNan};
    else
        return false;
    return true;
}

int storageBytes(const std::string& t)
{
    if (t == "index")
        return 8;
    if (t == "tf32")
        return 4;
    int w = elementBitWidth(t);
    return w <= 0 ? 0 : (w + 7) / 8;
}

uint64_t encodeFloat(double v, const FloatFormat& f)
{
    if (f.ebits == 11 && f.mbits == 52) {
        uint64_t b;
        std::memcpy(&b, &v, 8);
        return b;
    }
    if (f.ebits == 8 && f.mbits == 23) {
        float x = static_cast<float>(v);
        uint32_t b;
        std::memcpy(&b, &x, 4);
        return b;
    }
    using S = FloatFormat::Special;
    const int total = 1 + f.ebits + f.mbits;
    const uint64_t signBit = uint64_t(1) << (total - 1);
    const uint64_t expMax = (uint64_t(1) << f.ebits) - 1;
    const uint64_t mantMax = (uint64_t(1) << f.mbits) - 1;
    bool neg = std::signbit(v);
    uint64_t sign = neg ? signBit : 0;
    auto nan = [&]() -> uint64_t {
        switch (f.special) {
        case S::Ieee: return (expMax << f.mbits) | (uint64_t(1) << (f.mbits - 1));
        case S::FN: return (expMax << f.mbits) | mantMax;
        case S::FNUZ: return signBit;
        case S::NoNan: return (expMax << f.mbits) | mantMax;
        }
        return 0;
    };
    if (std::isnan(v))
        return nan();
    uint64_t maxBits = f.special == S::Ieee ? ((expMax - 1) << f.mbits) | mantMax
                       : f.special == S::FN ? (expMax << f.mbits) | (mantMax - 1)
                                            : (expMax << f.mbits) | mantMax;
    double a = std::fabs(v);
    if (std::isinf(a)) {
        if (f.special == S::Ieee)
            return sign | (expMax << f.mbits);
        return f.special == S::NoNan ? sign | maxBits : nan();
    }
    if (a == 0)
        return f.special == S::FNUZ ? 0 : sign;
    int e;
    std::frexp(a, &e);
    int E = e - 1; // a = 1.f * 2^E
    int64_t biased = E + f.bias;
    uint64_t bits;
    if (biased >= 1) {
        double m = std::ldexp(a, -E) - 1.0;
        double mr = std::nearbyint(std::ldexp(m, f.mbits));
        uint64_t mant = static_cast<uint64_t>(mr);
        if (mant > mantMax) {
            mant = 0;
            ++biased;
        }
        if (biased > static_cast<int64_t>(expMax))
            bits = UINT64_MAX;
        else
            bits = (static_cast<uint64_t>(biased) << f.mbits) | mant;
    } else {
        double mr = std::nearbyint(std::ldexp(a, f.mbits - (1 - f.bias)));
        bits = static_cast<uint64_t>(mr); // may round up into the smallest normal: still correct
    }
    if (bits > maxBits || (f.special == S::Ieee && bits >= (expMax << f.mbits))) {
        if (f.special == S::Ieee)
            return sign | (expMax << f.mbits);
        return f.special == S::NoNan ? sign | maxBits : nan();
    }
    if (bits == 0 && f.special == S::FNUZ)
        return 0;
    return sign | bits;
}

double decodeFloat(uint64_t bits, const FloatFormat& f)
{
    if (f.ebits == 11 && f.mbits == 52) {
        double d;
        std::memcpy(&d, &bits, 8);
        return d;
    }
    if (f.ebits == 8 && f.mbits == 23) {
        uint32_t b = static_cast<uint32_t>(bits);
        float x;
        std::memcpy(&x, &b, 4);
        return x;
    }
    using S = FloatFormat::Special;
    const int total = 1 + f.ebits + f.mbits;
    const uint64_t expMax = (uint64_t(1) << f.ebits) - 1;
    const uint64_t mantMax = (uint64_t(1) << f.mbits) - 1;
    bool neg = (bits >> (total - 1)) & 1;
    uint64_t ex = (bits >> f.mbits) & expMax;
    uint64_t mant = bits & mantMax;
    if (f.special == S::FNUZ && neg && ex == 0 && mant == 0)
        return std::nan("");
    if (f.special == S::Ieee && ex == expMax)
        return mant ? std::nan("") : (neg ? -INFINITY : INFINITY);
    if (f.special == S::FN && ex == expMax && mant == mantMax)
        return std::nan("");
    double v = ex == 0
                   ? std::ldexp(static_cast<double>(mant), 1 - f.bias - f.mbits)
                   : std::ldexp(1.0 + std::ldexp(static_cast<double>(mant), -f.mbits), static_cast<int>(ex) - f.bias);
    return neg ? -v : v;
}

bool fitsInteger(bool neg, uint64_t mag, const std::string& t)
{
    int w = t == "index" ? 64 : elementBitWidth(t);
    if (w <= 0)
        return false;
    bool isUnsigned = t.rfind("ui", 0) == 0;
    bool isSigned = t.rfind("si", 0) == 0;
    if (w >= 64) {
        if (neg)
            return !isUnsigned && mag <= (uint64_t(1) << 63);
        return isSigned ? mag <= static_cast<uint64_t>(INT64_MAX) : true;
    }
    uint64_t lim = uint64_t(1) << w;
    if (neg) {
        if (isUnsigned)
            return mag == 0;
        return mag <= (lim >> 1);
    }
    return isSigned ? mag < (lim >> 1) : mag < lim;
}

/// The `bytes` little-endian bytes of `v`; past its 8 bytes (integers wider than 64 bits) the
/// sign is extended when `negative`, else zeros.
void appendLE(std::vector<uint8_t>& out, uint64_t v, int bytes, bool negative = false)
{
    for (int i = 0; i < bytes; ++i)
        out.push_back(i < 8 ? static_cast<uint8_t>(v >> (8 * i)) : (negative ? 0xFF : 0x00));
}

} // namespace

uint64_t Parser::parseUInt(const Token& t, bool& overflow) const
{
    overflow = false;
    uint64_t v = 0;
    std::string_view s = t.text;
    bool hex = s.size() > 2 && s[0] == '0' && s[1] == 'x';
    for (size_t i = hex ? 2 : 0; i < s.size(); ++i) {
        char c = s[i];
        unsigned d = (c >= '0' && c <= '9') ? c - '0' : ((c | 0x20) - 'a' + 10);
        unsigned base = hex ? 16 : 10;
        if (v > (UINT64_MAX - d) / base) {
            overflow = true;
            return 0;
        }
        v = v * base + d;
    }
    return v;
}

int64_t Parser::parseInt64(std::string_view context)
{
    bool neg = false;
    const size_t start = m_tok.begin; // posOf(start) only for a diagnostic
    if (at(Kind::Minus)) {
        neg = true;
        next();
    }
    if (!at(Kind::Integer))
        errorExpected("integer", context);
    bool ovf = false;
    uint64_t v = parseUInt(m_tok, ovf);
    if (ovf || (!neg && v > static_cast<uint64_t>(INT64_MAX)) || (neg && v > static_cast<uint64_t>(INT64_MAX) + 1))
        error(posOf(start), "integer value too large " + std::string(context));
    next();
    return neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

AttrPtr Parser::parseIntegerOrFloatAttr()
{
    const size_t start = m_tok.begin; // posOf(start) only for a diagnostic
    bool neg = consumeIf(Kind::Minus);
    if (!at(Kind::Integer) && !at(Kind::Float))
        errorExpected("integer or float literal");
    Token lit = m_tok;
    next();
    Type type;
    if (at(Kind::Colon)) {
        next();
        type = parseType();
    }
    std::string tn = type.kind() == Type::Kind::Scalar ? type.name() : std::string();
    FloatFormat ff;
    bool isFloatType = !tn.empty() && floatFormat(tn, ff);
    if (lit.kind == Kind::Float || isFloatType) {
        if (type.isNone())
            type = Type::scalar("f64");
        else if (!isFloatType)
            error(posOf(start), "floating point value not valid for specified type '" + type.toString() + "'");
        double v;
        if (lit.kind == Kind::Integer && lit.text.size() > 2 && lit.text[1] == 'x') {
            bool ovf = false;
            uint64_t bits = parseUInt(lit, ovf);
            if (ovf || neg)
                error(posOf(start), "hexadecimal float literal should not have a leading minus or overflow");
            v = decodeFloat(bits, ff);
        } else {
            v = std::strtod(std::string(lit.text).c_str(), nullptr);
            if (neg)
                v = -v;
            // Round to the attribute's type, as MLIR's APFloat does (0.9 : f32 is 0.899999976).
            if (isFloatType && tn != "f64")
                v = decodeFloat(encodeFloat(v, ff), ff);
        }
        return makeAttr(FloatAttr{v, type});
    }
    if (type.isNone()) {
        type = Type::scalar("i64");
        tn = "i64";
    }
    bool ovf = false;
    uint64_t mag = parseUInt(lit, ovf);
    if (ovf)
        error(posOf(start), "integer constant out of range for attribute");
    if (tn.empty() || !(isIntegerElementType(tn) || tn == "index"))
        error(posOf(start), "integer literal not valid for specified type '" + type.toString() + "'");
    if (!fitsInteger(neg, mag, tn))
        error(posOf(start), "integer constant out of range for attribute of type '" + tn + "'");
    int64_t v = neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
    if (tn == "i1")
        return makeAttr(IntegerAttr{v, type});
    return makeAttr(IntegerAttr{v, type});
}

AttrPtr Parser::parseDenseArray()
{
    next(); // array
    expect(Kind::Less, "after 'array'");
    SourcePos tp = pos();
    Type et = parseType();
    if (et.kind() != Type::Kind::Scalar)
        error(tp, "expected integer or float type in dense array, found '" + et.toString() + "'");
    if (!isDenseArrayElementType(et.name()))
        error(tp, "a dense array's element type is one of i1, i8, i16, i32, i64, f32, f64, not '" + et.name() + "'");
    DenseArrayAttr a;
    a.elementType = et.name();
    FloatFormat ff;
    bool isF = floatFormat(a.elementType, ff);
    if (consumeIf(Kind::Colon)) {
        while (true) {
            SourcePos ep = pos();
            if (atKeyword("true") || atKeyword("false")) {
                if (a.elementType != "i1")
                    errorHere("boolean literal requires an i1 dense array");
                a.ints.push_back(atKeyword("true") ? 1 : 0);
                next();
            } else {
                bool neg = consumeIf(Kind::Minus);
                if (at(Kind::Float)) {
                    if (!isF)
                        errorHere("floating point value in integer dense array");
                    double v = std::strtod(std::string(m_tok.text).c_str(), nullptr);
                    FloatFormat eff;
                    if (a.elementType != "f64" && floatFormat(a.elementType, eff))
                        v = decodeFloat(encodeFloat(v, eff), eff);
                    a.floats.push_back(neg ? -v : v);
                } else if (at(Kind::Integer)) {
                    bool ovf = false;
                    uint64_t mag = parseUInt(m_tok, ovf);
                    if (isF) {
                        a.floats.push_back(neg ? -static_cast<double>(mag) : static_cast<double>(mag));
                    } else {
                        if (ovf || !fitsInteger(neg, mag, a.elementType))
                            error(ep, "integer constant out of range for dense array of '" + a.elementType + "'");
                        a.ints.push_back(neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag));
                    }
                } else {
                    errorExpected("integer or float literal", "in dense array");
                }
                next();
            }
            if (!consumeIf(Kind::Comma))
                break;
        }
    }
    expect(Kind::Greater, "to end dense array");
    return makeAttr(std::move(a));
}

DenseLiteral Parser::parseDenseLiteral()
{
    DenseLiteral lit;
    lit.begin = m_tok.begin;
    if (at(Kind::Greater))
        return lit; // dense<> : empty tensor
    if (at(Kind::String)) {
        std::string s = MlirLexer::unescape(m_tok.text);
        if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
            lit.isHex = true;
            if (s.size() % 2)
                errorHere("hex string in dense literal must have an even number of digits");
            for (size_t i = 2; i + 1 < s.size(); i += 2) {
                auto hv = [&](char h) -> int {
                    if (h >= '0' && h <= '9')
                        return h - '0';
                    h |= 0x20;
                    if (h >= 'a' && h <= 'f')
                        return h - 'a' + 10;
                    errorHere("invalid hex digit in dense literal");
                };
                lit.hexBytes.push_back(static_cast<uint8_t>(hv(s[i]) * 16 + hv(s[i + 1])));
            }
            next();
            return lit;
        }
    }
    // Nested lists; `shape` is taken from the first path and checked for the rest.
    std::vector<int64_t> counts;
    std::vector<int64_t> shape;
    bool shapeKnown = false;
    std::function<void(int)> parseElem = [&](int depth) {
        DepthGuard guard(*this);
        if (at(Kind::LSquare)) {
            next();
            int64_t n = 0;
            if (!at(Kind::RSquare)) {
                while (true) {
                    parseElem(depth + 1);
                    ++n;
                    if (consumeIf(Kind::RSquare))
                        break;
                    expect(Kind::Comma, "or ']' in dense literal");
                }
            } else {
                next();
            }
            if (static_cast<int>(shape.size()) <= depth) {
                if (shapeKnown)
                    errorHere("tensor literal is invalid; ranks are not consistent between elements");
                shape.resize(depth + 1, -1);
            }
            if (shape[depth] == -1)
                shape[depth] = n;
            else if (shape[depth] != n)
                errorHere("tensor literal is invalid; ranks are not consistent between elements");
            return;
        }
        if (!shapeKnown) {
            shapeKnown = true;
            if (static_cast<int>(shape.size()) < depth)
                shape.resize(depth, -1);
        }
        if (static_cast<int>(shape.size()) != depth && shapeKnown && depth < static_cast<int>(shape.size()))
            errorHere("tensor literal is invalid; ranks are not consistent between elements");
        DenseLiteral::Elem e;
        e.tokBegin = m_tok.begin;
        if (atKeyword("true") || atKeyword("false")) {
            e.k = DenseLiteral::Elem::K::Bool;
            e.b = atKeyword("true");
            next();
        } else if (at(Kind::LParen)) {
            next();
            e.k = DenseLiteral::Elem::K::Complex;
            for (int part = 0; part < 2; ++part) {
                bool neg = consumeIf(Kind::Minus);
                if (at(Kind::Float)) {
                    double v = std::strtod(std::string(m_tok.text).c_str(), nullptr);
                    (part ? e.im : e.re) = neg ? -v : v;
                } else if (at(Kind::Integer)) {
                    bool ovf = false;
                    uint64_t mag = parseUInt(m_tok, ovf);
                    if (ovf)
                        errorHere("integer literal overflow in dense literal");
                    (part ? e.im : e.re) = neg ? -static_cast<double>(mag) : static_cast<double>(mag);
                    (part ? e.imI : e.reI) = neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
                } else {
                    errorExpected("number", "in complex literal");
                }
                next();
                if (part == 0)
                    expect(Kind::Comma, "in complex literal");
            }
            expect(Kind::RParen, "to end complex literal");
        } else if (at(Kind::String)) {
            e.k = DenseLiteral::Elem::K::String;
            e.s = MlirLexer::unescape(m_tok.text);
            next();
        } else {
            e.neg = consumeIf(Kind::Minus);
            if (at(Kind::Float)) {
                e.k = DenseLiteral::Elem::K::Float;
                e.f = std::strtod(std::string(m_tok.text).c_str(), nullptr);
                if (e.neg)
                    e.f = -e.f;
            } else if (at(Kind::Integer)) {
                e.k = DenseLiteral::Elem::K::Int;
                bool ovf = false;
                e.mag = parseUInt(m_tok, ovf);
                e.hexInt = m_tok.text.size() > 2 && m_tok.text[1] == 'x';
                if (ovf)
                    errorHere("integer literal " + describeToken(m_tok) + " overflows 64 bits in dense literal");
            } else {
                errorExpected("element literal", "in dense literal");
            }
            next();
        }
        lit.elems.push_back(std::move(e));
        if (lit.elems.size() > (size_t(1) << 31))
            errorHere("dense literal too large");
    };
    parseElem(0);
    for (int64_t d : shape)
        lit.shape.push_back(d < 0 ? 0 : d);
    (void)counts;
    return lit;
}

DenseElementsAttr Parser::buildDense(const DenseLiteral& lit, const Type& type, const SourcePos& typePos)
{
    DenseElementsAttr out;
    out.type = type;
    if (!type.isTensor() && type.kind() != Type::Kind::Opaque)
        error(typePos, "elements literal must be a shaped type, found '" + type.toString() + "'");
    if (!type.hasStaticShape())
        error(typePos, "elements literal type must have static shape");
    int64_t n = type.numElements();
    std::string et = type.elementType();
    bool isComplex = et.rfind("complex<", 0) == 0;
    std::string part = isComplex ? et.substr(8, et.size() - 9) : et;
    int partBytes = storageBytes(part);
    FloatFormat ff;
    bool isF = floatFormat(part, ff);
    bool isInt = isIntegerElementType(part) || part == "index";
    bool isString = !isF && !isInt;
    int elemBytes = partBytes * (isComplex ? 2 : 1);
    if (lit.isHex) {
        if (elemBytes == 0)
            error(typePos, "hex dense literal requires a numeric element type");
        size_t nb = lit.hexBytes.size();
        if (et == "i1") {
            // Bit-packed as MLIR stores i1, a 0x00/0xFF splat byte, or one byte per element.
            std::string why;
            std::optional<std::vector<uint8_t>> elements = ir::i1ElementsFromRawData(lit.hexBytes, n, out.splat, why);
            if (!elements)
                error(posOf(lit.begin), why);
            out.data = std::move(*elements);
        } else {
            const std::optional<int64_t> bytes = checkedMul(n, elemBytes);
            if (nb == static_cast<size_t>(elemBytes) && n != 1)
                out.splat = true;
            else if (!bytes || nb != static_cast<size_t>(*bytes))
                error(posOf(lit.begin), "elements hex data size is invalid for provided type: " + std::to_string(nb) +
                                            " bytes for " + std::to_string(n) + " elements of " + et);
            out.data = lit.hexBytes;
        }
    } else if (isString) {
        for (const auto& e : lit.elems) {
            if (e.k != DenseLiteral::Elem::K::String)
                error(posOf(e.tokBegin), "expected string element for element type '" + et + "'");
            out.strings.push_back(e.s);
        }
        out.splat = lit.shape.empty() && out.strings.size() == 1;
        return out;
    } else {
        if (lit.elems.empty() && lit.shape.empty() && n == 0) {
            return out;
        } else if (lit.shape.empty() && lit.elems.size() == 1) {
            out.splat = true;
        } else {
            if (lit.shape != type.shape()) {
                auto str = [](const std::vector<int64_t>& s) {
                    std::string r = "[";
                    for (size_t i = 0; i < s.size(); ++i)
                        r += (i ? ", " : "") + std::to_string(s[i]);
                    return r + "]";
                };
                error(posOf(lit.begin), "inferred shape of elements literal (" + str(lit.shape) +
                                            ") does not match type (" + str(type.shape()) + ")");
            }
        }
        out.data.reserve(lit.elems.size() * static_cast<size_t>(elemBytes));
        auto writeScalar = [&](const DenseLiteral::Elem& e, bool neg, uint64_t mag, double fv, bool isFloatLit,
                               bool hex) {
            if (isInt) {
                if (isFloatLit)
                    error(posOf(e.tokBegin), "expected integer elements, but parsed floating-point");
                if (!fitsInteger(neg, mag, part))
                    error(posOf(e.tokBegin), "integer constant out of range for type '" + part + "'");
                uint64_t v = neg ? 0 - mag : mag;
                appendLE(out.data, v, partBytes, neg && mag != 0);
            } else {
                uint64_t bits;
                if (!isFloatLit && hex)
                    bits = mag;
                else
                    bits =
                        encodeFloat(isFloatLit ? fv : (neg ? -static_cast<double>(mag) : static_cast<double>(mag)), ff);
                appendLE(out.data, bits, partBytes);
            }
        };
        for (const auto& e : lit.elems) {
            using K = DenseLiteral::Elem::K;
            if (isComplex) {
                if (e.k != K::Complex)
                    error(posOf(e.tokBegin), "expected complex element '(re, im)' for element type '" + et + "'");
                if (isInt) {
                    for (int64_t v : {e.reI, e.imI})
                        appendLE(out.data, static_cast<uint64_t>(v), partBytes, v < 0);
                } else {
                    appendLE(out.data, encodeFloat(e.re, ff), partBytes);
                    appendLE(out.data, encodeFloat(e.im, ff), partBytes);
                }
                continue;
            }
            switch (e.k) {
            case K::Bool:
                if (!isInt)
                    error(posOf(e.tokBegin), "boolean element for non-integer element type '" + et + "'");
                appendLE(out.data, e.b ? 1 : 0, partBytes);
                break;
            case K::Int: writeScalar(e, e.neg, e.mag, 0, false, e.hexInt); break;
            case K::Float: writeScalar(e, false, 0, e.f, true, false); break;
            default: error(posOf(e.tokBegin), "unexpected element kind for element type '" + et + "'");
            }
        }
    }
    // MLIR stores a literal whose elements are all equal as a splat.
    if (!out.splat && elemBytes > 0 && out.data.size() >= static_cast<size_t>(elemBytes) && n > 0) {
        bool same = true;
        for (size_t i = static_cast<size_t>(elemBytes); i < out.data.size() && same; ++i)
            same = out.data[i] == out.data[i % static_cast<size_t>(elemBytes)];
        if (same) {
            out.splat = true;
            out.data.resize(static_cast<size_t>(elemBytes));
        }
    }
    return out;
}

AttrPtr Parser::parseDenseAttrAfterKeyword()
{
    next(); // dense
    expect(Kind::Less, "after 'dense'");
    DenseLiteral lit = parseDenseLiteral();
    expect(Kind::Greater, "to end dense literal");
    expect(Kind::Colon, "after dense literal (elements attributes need a type)");
    SourcePos tp = pos();
    Type t = parseType();
    return makeAttr(buildDense(lit, t, tp));
}

} // namespace shardx::io::detail
