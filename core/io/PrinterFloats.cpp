// MLIR printer (PrinterInternal.h): floats exactly as LLVM APFloat::toString and MLIR print them.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/io/PrinterInternal.h"

namespace shardx::io::detail {

namespace {

/// Minimal unsigned big integer (little-endian 32-bit limbs) for exact decimal expansion.
struct BigUInt {
    std::vector<uint32_t> limbs;

    explicit BigUInt(uint64_t v)
    {
        while (v) {
            limbs.push_back(static_cast<uint32_t>(v));
            v >>= 32;
        }
    }
    bool isZero() const { return limbs.empty(); }
    void trim()
    {
        while (!limbs.empty() && limbs.back() == 0)
            limbs.pop_back();
    }
    unsigned activeBits() const
    {
        if (limbs.empty())
            return 0;
        unsigned bits = static_cast<unsigned>(limbs.size() - 1) * 32;
        uint32_t top = limbs.back();
        while (top) {
            ++bits;
            top >>= 1;
        }
        return bits;
    }
    void mulSmall(uint32_t m)
    {
        uint64_t carry = 0;
        for (uint32_t& l : limbs) {
            uint64_t t = static_cast<uint64_t>(l) * m + carry;
            l = static_cast<uint32_t>(t);
            carry = t >> 32;
        }
        if (carry)
            limbs.push_back(static_cast<uint32_t>(carry));
    }
    uint32_t divSmall(uint32_t d)
    {
        uint64_t rem = 0;
        for (size_t i = limbs.size(); i-- > 0;) {
            uint64_t cur = (rem << 32) | limbs[i];
            limbs[i] = static_cast<uint32_t>(cur / d);
            rem = cur % d;
        }
        trim();
        return static_cast<uint32_t>(rem);
    }
    void shiftLeft(unsigned n)
    {
        if (limbs.empty())
            return;
        unsigned words = n / 32, bits = n % 32;
        if (bits) {
            uint32_t carry = 0;
            for (uint32_t& l : limbs) {
                uint32_t nl = (l << bits) | carry;
                carry = l >> (32 - bits);
                l = nl;
            }
            if (carry)
                limbs.push_back(carry);
        }
        limbs.insert(limbs.begin(), words, 0u);
    }
};

struct FloatSemantics {
    int precision; ///< significand bits including the implicit one
    int minExp;    ///< exponent of the smallest normal
    double maxFinite;
};

FloatSemantics semanticsOf(const std::string& t)
{
    if (t == "f64")
        return {53, -1022, 1.7976931348623157e308};
    if (t == "f16")
        return {11, -14, 65504.0};
    if (t == "bf16")
        return {8, -126, 3.3895313892515355e38};
    if (t == "f8E5M2" || t == "f8E5M2FNUZ")
        return {3, -14, 57344.0};
    if (t == "f8E4M3FN" || t == "f8E4M3FNUZ" || t == "f8E4M3B11FNUZ" || t == "f8E4M3")
        return {4, -6, 448.0};
    return {24, -126, 3.4028234663852886e38};
}

/// `x` rounded (to nearest even) to a float of semantics `s`; +-inf on overflow.
double roundTo(double x, const FloatSemantics& s)
{
    if (x == 0 || std::isnan(x) || std::isinf(x))
        return x;
    int e;
    std::frexp(x, &e); // |x| in [2^(e-1), 2^e)
    int exp = std::max(e - 1, s.minExp);
    double quantum = std::ldexp(1.0, exp - (s.precision - 1));
    double r = std::nearbyint(x / quantum) * quantum;
    if (std::fabs(r) > s.maxFinite)
        return r < 0 ? -INFINITY : INFINITY;
    return r;
}

void adjustToPrecision(BigUInt& sig, int& exp, unsigned formatPrecision)
{
    unsigned bits = sig.activeBits();
    unsigned bitsRequired = (formatPrecision * 196 + 58) / 59;
    if (bits <= bitsRequired)
        return;
    unsigned tensRemovable = (bits - bitsRequired) * 59 / 196;
    if (!tensRemovable)
        return;
    exp += static_cast<int>(tensRemovable);
    unsigned left = tensRemovable;
    while (left >= 9) {
        sig.divSmall(1000000000u);
        left -= 9;
    }
    uint32_t p = 1;
    while (left--)
        p *= 10;
    if (p > 1)
        sig.divSmall(p);
}

void adjustToPrecision(std::vector<char>& buffer, int& exp, unsigned formatPrecision)
{
    size_t n = buffer.size();
    if (n <= formatPrecision)
        return;
    size_t first = n - formatPrecision;
    if (buffer[first - 1] < '5') {
        while (first < n && buffer[first] == '0')
            ++first;
        exp += static_cast<int>(first);
        buffer.erase(buffer.begin(), buffer.begin() + static_cast<long>(first));
        return;
    }
    for (size_t i = first; i != n; ++i) {
        if (buffer[i] == '9') {
            ++first;
        } else {
            ++buffer[i];
            break;
        }
    }
    if (first == n) {
        exp += static_cast<int>(first);
        buffer.assign(1, '1');
        return;
    }
    exp += static_cast<int>(first);
    buffer.erase(buffer.begin(), buffer.begin() + static_cast<long>(first));
}

/// LLVM's APFloat::toString for a finite value of the given precision (bits).
std::string apFloatToString(double v, int precisionBits, unsigned formatPrecision, unsigned formatMaxPadding,
                            bool truncateZero)
{
    std::string str;
    if (std::signbit(v))
        str += '-';
    if (v == 0) {
        if (!formatMaxPadding) {
            if (truncateZero) {
                str += "0.0E+0";
            } else {
                str += "0.0";
                if (formatPrecision > 1)
                    str.append(formatPrecision - 1, '0');
                str += "e+00";
            }
        } else {
            str += '0';
        }
        return str;
    }
    if (!formatPrecision)
        formatPrecision = 2 + static_cast<unsigned>(precisionBits) * 59 / 196;

    int e2;
    double f = std::frexp(std::fabs(v), &e2);
    uint64_t mant = static_cast<uint64_t>(std::ldexp(f, 53));
    int exp = e2 - 53;
    while (mant && !(mant & 1)) {
        mant >>= 1;
        ++exp;
    }
    BigUInt sig(mant);
    if (exp > 0) {
        sig.shiftLeft(static_cast<unsigned>(exp));
        exp = 0;
    } else if (exp < 0) {
        int texp = -exp;
        while (texp >= 13) {
            sig.mulSmall(1220703125u); // 5^13
            texp -= 13;
        }
        uint32_t p = 1;
        while (texp--)
            p *= 5;
        if (p > 1)
            sig.mulSmall(p);
    }
    adjustToPrecision(sig, exp, formatPrecision);

    std::vector<char> buffer; // least significant digit first
    bool inTrail = true;
    while (!sig.isZero()) {
        uint32_t d = sig.divSmall(10);
        if (inTrail && !d) {
            ++exp;
        } else {
            buffer.push_back(static_cast<char>('0' + d));
            inTrail = false;
        }
    }
    adjustToPrecision(buffer, exp, formatPrecision);
    unsigned nDigits = static_cast<unsigned>(buffer.size());

    bool scientific;
    if (!formatMaxPadding) {
        scientific = true;
    } else if (exp >= 0) {
        scientific =
            static_cast<unsigned>(exp) > formatMaxPadding || nDigits + static_cast<unsigned>(exp) > formatPrecision;
    } else {
        int msd = exp + static_cast<int>(nDigits - 1);
        scientific = msd >= 0 ? false : static_cast<unsigned>(-msd) > formatMaxPadding;
    }

    if (scientific) {
        exp += static_cast<int>(nDigits - 1);
        str += buffer[nDigits - 1];
        str += '.';
        if (nDigits == 1 && truncateZero)
            str += '0';
        else
            for (unsigned i = 1; i != nDigits; ++i)
                str += buffer[nDigits - 1 - i];
        if (!truncateZero && formatPrecision > nDigits - 1)
            str.append(formatPrecision - nDigits + 1, '0');
        str += truncateZero ? 'E' : 'e';
        str += exp >= 0 ? '+' : '-';
        if (exp < 0)
            exp = -exp;
        std::string expDigits = std::to_string(exp);
        if (!truncateZero && expDigits.size() < 2)
            expDigits = "0" + expDigits;
        str += expDigits;
        return str;
    }
    if (exp >= 0) {
        for (unsigned i = 0; i != nDigits; ++i)
            str += buffer[nDigits - 1 - i];
        str.append(static_cast<size_t>(exp), '0');
        return str;
    }
    int nWhole = exp + static_cast<int>(nDigits);
    unsigned i = 0;
    if (nWhole > 0) {
        for (; i != static_cast<unsigned>(nWhole); ++i)
            str += buffer[nDigits - i - 1];
        str += '.';
    } else {
        str += "0.";
        str.append(static_cast<size_t>(-nWhole), '0');
    }
    for (; i != nDigits; ++i)
        str += buffer[nDigits - i - 1];
    return str;
}

bool parsesBackTo(const std::string& s, double v, const std::string& type)
{
    double back;
    if (type == "f32")
        back = static_cast<double>(std::strtof(s.c_str(), nullptr));
    else
        back = roundTo(std::strtod(s.c_str(), nullptr), semanticsOf(type));
    return back == v && std::signbit(back) == std::signbit(v);
}

uint64_t halfBits(double v, int expBits, int mantBits)
{
    // IEEE-like encoding of a value already representable in the format.
    uint64_t sign = std::signbit(v) ? 1 : 0;
    int bias = (1 << (expBits - 1)) - 1;
    uint64_t e = 0, m = 0;
    if (std::isnan(v)) {
        e = (1u << expBits) - 1;
        m = 1ull << (mantBits - 1);
    } else if (std::isinf(v)) {
        e = (1u << expBits) - 1;
    } else if (v != 0) {
        int ex;
        double f = std::frexp(std::fabs(v), &ex); // f in [0.5, 1)
        int unbiased = ex - 1;
        if (unbiased + bias <= 0) {
            m = static_cast<uint64_t>(std::ldexp(std::fabs(v), bias - 1 + mantBits));
        } else {
            e = static_cast<uint64_t>(unbiased + bias);
            m = static_cast<uint64_t>(std::ldexp(f * 2 - 1, mantBits));
        }
    }
    return (sign << (expBits + mantBits)) | (e << mantBits) | m;
}

std::string hexBits(const std::string& type, double v)
{
    uint64_t bits;
    if (type == "f64") {
        std::memcpy(&bits, &v, 8);
    } else if (type == "f16") {
        bits = halfBits(v, 5, 10);
    } else if (type == "bf16") {
        float f = static_cast<float>(v);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        bits = b >> 16;
    } else {
        float f = static_cast<float>(v);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        bits = b;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(bits));
    return buf;
}

} // namespace

void appendFloat(std::string& out, double value, const std::string& elementType)
{
    FloatSemantics sem = semanticsOf(elementType);
    // The value must be one of the type's values (MLIR rounds literals to the type).
    if (elementType == "f32")
        value = static_cast<double>(static_cast<float>(value));
    else if (elementType != "f64")
        value = roundTo(value, sem);
    if (!std::isnan(value) && !std::isinf(value)) {
        std::string s = apFloatToString(value, sem.precision, 6, 0, false);
        if (parsesBackTo(s, value, elementType)) {
            out += s;
            return;
        }
        s = apFloatToString(value, sem.precision, 0, 3, true);
        if (s.find('.') != std::string::npos) {
            out += s;
            return;
        }
    }
    out += hexBits(elementType, value);
}

} // namespace shardx::io::detail
