// Interpreter: element-wise ops (arithmetic, logic, comparisons, select, clamp, conversions, constants).
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/exec/Interpreter.h"
#include "core/ir/StablehloAttrs.h"

namespace shardx::exec {

namespace {

// Floats: the IEEE maximum/minimum StableHLO takes (NaN propagates, -0 < +0).
template <typename T> T ewMaximum(T a, T b)
{
    if (std::isnan(a) || std::isnan(b))
        return std::numeric_limits<T>::quiet_NaN();
    if (a == b)
        return std::signbit(a) ? b : a;
    return a > b ? a : b;
}

template <typename T> T ewMinimum(T a, T b)
{
    if (std::isnan(a) || std::isnan(b))
        return std::numeric_limits<T>::quiet_NaN();
    if (a == b)
        return std::signbit(a) ? a : b;
    return a < b ? a : b;
}

/// One float binary op in T (float for f32/f16/bf16, double for f64).
template <typename T> T ewFloatBinary(BinaryKind kind, T a, T b, bool& ok)
{
    switch (kind) {
    case BinaryKind::Add: return a + b;
    case BinaryKind::Subtract: return a - b;
    case BinaryKind::Multiply: return a * b;
    case BinaryKind::Divide: return a / b;
    case BinaryKind::Remainder: return std::fmod(a, b);
    case BinaryKind::Maximum: return ewMaximum(a, b);
    case BinaryKind::Minimum: return ewMinimum(a, b);
    case BinaryKind::Power: return std::pow(a, b);
    case BinaryKind::Atan2: return std::atan2(a, b);
    default: ok = false; return T(0);
    }
}

/// One integer binary op on values of `bits` bits (signed or not), wrapping like the type.
int64_t ewIntBinary(BinaryKind kind, int64_t a, int64_t b, int bits, bool isUnsigned)
{
    const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    const uint64_t mask = bits >= 64 ? ~uint64_t(0) : ((uint64_t(1) << bits) - 1);
    switch (kind) {
    case BinaryKind::Add: return static_cast<int64_t>(ua + ub);
    case BinaryKind::Subtract: return static_cast<int64_t>(ua - ub);
    case BinaryKind::Multiply: return static_cast<int64_t>(ua * ub);
    case BinaryKind::Divide:
        if (isUnsigned)
            return b == 0 ? static_cast<int64_t>(mask) : static_cast<int64_t>(ua / ub);
        if (b == 0)
            return -1;
        if (b == -1)
            return static_cast<int64_t>(uint64_t(0) - ua); // wraps for the minimum value
        return a / b;
    case BinaryKind::Remainder:
        if (isUnsigned)
            return b == 0 ? a : static_cast<int64_t>(ua % ub);
        if (b == 0)
            return a;
        if (b == -1)
            return 0;
        return a % b;
    case BinaryKind::Maximum:
        if (isUnsigned)
            return ua > ub ? a : b;
        return a > b ? a : b;
    case BinaryKind::Minimum:
        if (isUnsigned)
            return ua < ub ? a : b;
        return a < b ? a : b;
    case BinaryKind::And: return a & b;
    case BinaryKind::Or: return a | b;
    case BinaryKind::Xor: return a ^ b;
    case BinaryKind::ShiftLeft: return ub >= static_cast<uint64_t>(bits) ? 0 : static_cast<int64_t>(ua << ub);
    case BinaryKind::ShiftRightLogical:
        return ub >= static_cast<uint64_t>(bits) ? 0 : static_cast<int64_t>((ua & mask) >> ub);
    case BinaryKind::ShiftRightArithmetic: {
        if (isUnsigned)
            return ub >= static_cast<uint64_t>(bits) ? 0 : static_cast<int64_t>((ua & mask) >> ub);
        const uint64_t shift = ub >= static_cast<uint64_t>(bits) ? static_cast<uint64_t>(bits - 1) : ub;
        return a >> shift;
    }
    case BinaryKind::Power: {
        if (b < 0 && !isUnsigned)
            return a == 1 ? 1 : (a == -1 ? (b % 2 ? -1 : 1) : 0);
        uint64_t result = 1, base = ua, e = ub;
        while (e) {
            if (e & 1)
                result *= base;
            base *= base;
            e >>= 1;
        }
        return static_cast<int64_t>(result);
    }
    default: return 0;
    }
}

} // namespace

std::optional<BinaryKind> binaryKindOf(const std::string& n)
{
    static const std::unordered_map<std::string, BinaryKind> kinds = {
        {"stablehlo.add", BinaryKind::Add},
        {"stablehlo.subtract", BinaryKind::Subtract},
        {"stablehlo.multiply", BinaryKind::Multiply},
        {"stablehlo.divide", BinaryKind::Divide},
        {"stablehlo.remainder", BinaryKind::Remainder},
        {"stablehlo.maximum", BinaryKind::Maximum},
        {"stablehlo.minimum", BinaryKind::Minimum},
        {"stablehlo.power", BinaryKind::Power},
        {"stablehlo.and", BinaryKind::And},
        {"stablehlo.or", BinaryKind::Or},
        {"stablehlo.xor", BinaryKind::Xor},
        {"stablehlo.shift_left", BinaryKind::ShiftLeft},
        {"stablehlo.shift_right_arithmetic", BinaryKind::ShiftRightArithmetic},
        {"stablehlo.shift_right_logical", BinaryKind::ShiftRightLogical},
        {"stablehlo.atan2", BinaryKind::Atan2},
    };
    auto it = kinds.find(n);
    if (it == kinds.end())
        return std::nullopt;
    return it->second;
}

void applyBinary(BinaryKind kind, const Tensor& a, int64_t ia, const Tensor& b, int64_t ib, Tensor& out, int64_t io)
{
    const ElementType& t = out.elementType();
    bool ok = true;
    switch (t.kind) {
    case ElementKind::Float:
        if (t.bits == 64)
            out.setFloat(io, ewFloatBinary<double>(kind, a.getFloat(ia), b.getFloat(ib), ok));
        else
            out.setFloat(io, ewFloatBinary<float>(kind, static_cast<float>(a.getFloat(ia)),
                                                  static_cast<float>(b.getFloat(ib)), ok));
        break;
    case ElementKind::Bool: {
        const bool x = a.getInt(ia) != 0, y = b.getInt(ib) != 0;
        switch (kind) {
        case BinaryKind::And:
        case BinaryKind::Multiply:
        case BinaryKind::Minimum: out.setInt(io, x && y); break;
        case BinaryKind::Or:
        case BinaryKind::Add:
        case BinaryKind::Maximum: out.setInt(io, x || y); break;
        case BinaryKind::Xor: out.setInt(io, x != y); break;
        default: ok = false;
        }
        break;
    }
    case ElementKind::Complex: {
        auto x = a.getComplex(ia), y = b.getComplex(ib);
        switch (kind) {
        case BinaryKind::Add: out.setComplex(io, x + y); break;
        case BinaryKind::Subtract: out.setComplex(io, x - y); break;
        case BinaryKind::Multiply: out.setComplex(io, x * y); break;
        case BinaryKind::Divide: out.setComplex(io, x / y); break;
        default: ok = false;
        }
        break;
    }
    case ElementKind::Int: out.setInt(io, ewIntBinary(kind, a.getInt(ia), b.getInt(ib), t.bits, t.isUnsigned)); break;
    }
    if (!ok)
        throw ExecError{"operation not defined on " + t.name, {}};
}

namespace {

std::vector<Tensor> ewBinaryOp(OpContext& ctx)
{
    auto kind = binaryKindOf(ctx.op.name());
    const Tensor& a = ctx.in(0);
    const Tensor& b = ctx.in(1);
    if (a.numElements() != b.numElements())
        ctx.fail("operands of different shapes " + a.typeString() + " and " + b.typeString());
    Tensor out = ctx.result(0);
    try {
        for (int64_t i = 0; i < out.numElements(); ++i)
            applyBinary(*kind, a, i, b, i, out, i);
    } catch (const ExecError& e) {
        ctx.fail(e.message);
    }
    return {std::move(out)};
}

enum class UnaryKind {
    Abs,
    Negate,
    Exp,
    ExpM1,
    Log,
    Log1p,
    Sqrt,
    Rsqrt,
    Cbrt,
    Tanh,
    Logistic,
    Sine,
    Cosine,
    Tan,
    Floor,
    Ceil,
    RoundAfz,
    RoundEven,
    Sign,
    Not,
    IsFinite,
    Popcnt,
    Clz,
    Real,
    Imag
};

template <typename T> T ewFloatUnary(UnaryKind k, T x)
{
    switch (k) {
    case UnaryKind::Abs: return std::fabs(x);
    case UnaryKind::Negate: return -x;
    case UnaryKind::Exp: return std::exp(x);
    case UnaryKind::ExpM1: return std::expm1(x);
    case UnaryKind::Log: return std::log(x);
    case UnaryKind::Log1p: return std::log1p(x);
    case UnaryKind::Sqrt: return std::sqrt(x);
    case UnaryKind::Rsqrt: return T(1) / std::sqrt(x);
    case UnaryKind::Cbrt: return std::cbrt(x);
    case UnaryKind::Tanh: return std::tanh(x);
    case UnaryKind::Logistic: return T(1) / (T(1) + std::exp(-x));
    case UnaryKind::Sine: return std::sin(x);
    case UnaryKind::Cosine: return std::cos(x);
    case UnaryKind::Tan: return std::tan(x);
    case UnaryKind::Floor: return std::floor(x);
    case UnaryKind::Ceil: return std::ceil(x);
    case UnaryKind::RoundAfz: return std::round(x);
    case UnaryKind::RoundEven: return std::nearbyint(x);
    case UnaryKind::Sign:
        if (std::isnan(x))
            return x;
        return x > T(0) ? T(1) : x < T(0) ? T(-1) : x;
    default: return x;
    }
}

std::vector<Tensor> ewUnaryOp(OpContext& ctx)
{
    static const std::unordered_map<std::string, UnaryKind> kinds = {
        {"stablehlo.abs", UnaryKind::Abs},
        {"stablehlo.negate", UnaryKind::Negate},
        {"stablehlo.exponential", UnaryKind::Exp},
        {"stablehlo.exponential_minus_one", UnaryKind::ExpM1},
        {"stablehlo.log", UnaryKind::Log},
        {"stablehlo.log_plus_one", UnaryKind::Log1p},
        {"stablehlo.sqrt", UnaryKind::Sqrt},
        {"stablehlo.rsqrt", UnaryKind::Rsqrt},
        {"stablehlo.cbrt", UnaryKind::Cbrt},
        {"stablehlo.tanh", UnaryKind::Tanh},
        {"stablehlo.logistic", UnaryKind::Logistic},
        {"stablehlo.sine", UnaryKind::Sine},
        {"stablehlo.cosine", UnaryKind::Cosine},
        {"stablehlo.tan", UnaryKind::Tan},
        {"stablehlo.floor", UnaryKind::Floor},
        {"stablehlo.ceil", UnaryKind::Ceil},
        {"stablehlo.round_nearest_afz", UnaryKind::RoundAfz},
        {"stablehlo.round_nearest_even", UnaryKind::RoundEven},
        {"stablehlo.sign", UnaryKind::Sign},
        {"stablehlo.not", UnaryKind::Not},
        {"stablehlo.is_finite", UnaryKind::IsFinite},
        {"stablehlo.popcnt", UnaryKind::Popcnt},
        {"stablehlo.count_leading_zeros", UnaryKind::Clz},
        {"stablehlo.real", UnaryKind::Real},
        {"stablehlo.imag", UnaryKind::Imag},
    };
    const UnaryKind k = kinds.at(ctx.op.name());
    const Tensor& x = ctx.in(0);
    Tensor out = ctx.result(0);
    if (out.numElements() != x.numElements())
        ctx.fail("result and operand differ in size");
    const ElementType& t = x.elementType();
    for (int64_t i = 0; i < x.numElements(); ++i) {
        if (k == UnaryKind::IsFinite) {
            out.setInt(i, std::isfinite(x.getFloat(i)));
        } else if (k == UnaryKind::Real || k == UnaryKind::Imag) {
            auto c = x.getComplex(i);
            out.setFloat(i, k == UnaryKind::Real ? c.real() : c.imag());
        } else if (t.isFloat()) {
            if (t.bits == 64)
                out.setFloat(i, ewFloatUnary<double>(k, x.getFloat(i)));
            else
                out.setFloat(i, ewFloatUnary<float>(k, static_cast<float>(x.getFloat(i))));
        } else if (t.isBool()) {
            if (k != UnaryKind::Not)
                ctx.fail("not defined on i1");
            out.setInt(i, x.getInt(i) ? 0 : 1);
        } else if (t.isComplex()) {
            auto c = x.getComplex(i);
            switch (k) {
            case UnaryKind::Negate: out.setComplex(i, -c); break;
            case UnaryKind::Exp: out.setComplex(i, std::exp(c)); break;
            case UnaryKind::Log: out.setComplex(i, std::log(c)); break;
            case UnaryKind::Sqrt: out.setComplex(i, std::sqrt(c)); break;
            case UnaryKind::Abs: out.setFloat(i, std::abs(c)); break;
            default: ctx.fail("not supported on complex numbers");
            }
        } else {
            const int64_t v = x.getInt(i);
            const uint64_t mask = t.bits >= 64 ? ~uint64_t(0) : ((uint64_t(1) << t.bits) - 1);
            switch (k) {
            case UnaryKind::Abs: out.setInt(i, v < 0 ? static_cast<int64_t>(uint64_t(0) - uint64_t(v)) : v); break;
            case UnaryKind::Negate: out.setInt(i, static_cast<int64_t>(uint64_t(0) - uint64_t(v))); break;
            case UnaryKind::Not: out.setInt(i, ~v); break;
            case UnaryKind::Sign: out.setInt(i, v > 0 ? 1 : v < 0 ? -1 : 0); break;
            case UnaryKind::Popcnt: out.setInt(i, std::popcount(static_cast<uint64_t>(v) & mask)); break;
            case UnaryKind::Clz:
                out.setInt(i, std::countl_zero(static_cast<uint64_t>(v) & mask) - (64 - t.bits));
                break;
            default: ctx.fail("not defined on " + t.name);
            }
        }
    }
    return {std::move(out)};
}

/// `#stablehlo<comparison_direction GT>` -> "GT".
std::vector<Tensor> ewCompareOp(OpContext& ctx)
{
    const std::string dir = stablehlo::enumKeyword(ctx.op.attr("comparison_direction"));
    const std::string type = stablehlo::enumKeyword(ctx.op.attr("compare_type"));
    const Tensor& a = ctx.in(0);
    const Tensor& b = ctx.in(1);
    Tensor out = ctx.result(0);
    const ElementType& t = a.elementType();
    auto decide = [&](int cmp, bool unordered) -> bool {
        if (dir == "EQ")
            return !unordered && cmp == 0;
        if (dir == "NE")
            return unordered || cmp != 0;
        if (unordered)
            return false;
        if (dir == "LT")
            return cmp < 0;
        if (dir == "LE")
            return cmp <= 0;
        if (dir == "GT")
            return cmp > 0;
        if (dir == "GE")
            return cmp >= 0;
        ctx.fail("unknown comparison_direction '" + dir + "'");
    };
    for (int64_t i = 0; i < out.numElements(); ++i) {
        int cmp = 0;
        bool unordered = false;
        if (t.isFloat()) {
            double x = a.getFloat(i), y = b.getFloat(i);
            if (type == "TOTALORDER") {
                // Total order: compare the sign-magnitude bit patterns.
                auto key = [](double d) {
                    int64_t bits;
                    std::memcpy(&bits, &d, 8);
                    return bits < 0 ? static_cast<int64_t>(0x8000000000000000ull - static_cast<uint64_t>(bits) - 1)
                                    : bits;
                };
                const int64_t kx = key(x), ky = key(y);
                cmp = kx < ky ? -1 : kx > ky ? 1 : 0;
            } else if (std::isnan(x) || std::isnan(y)) {
                unordered = true;
            } else {
                cmp = x < y ? -1 : x > y ? 1 : 0;
            }
        } else if (t.isComplex()) {
            auto x = a.getComplex(i), y = b.getComplex(i);
            cmp = x == y ? 0 : 1;
        } else if (t.isUnsigned || t.isBool() || type == "UNSIGNED") {
            const uint64_t x = static_cast<uint64_t>(a.getInt(i)), y = static_cast<uint64_t>(b.getInt(i));
            cmp = x < y ? -1 : x > y ? 1 : 0;
        } else {
            const int64_t x = a.getInt(i), y = b.getInt(i);
            cmp = x < y ? -1 : x > y ? 1 : 0;
        }
        out.setInt(i, decide(cmp, unordered));
    }
    return {std::move(out)};
}

std::vector<Tensor> ewSelectOp(OpContext& ctx)
{
    const Tensor& pred = ctx.in(0);
    const Tensor& onTrue = ctx.in(1);
    const Tensor& onFalse = ctx.in(2);
    Tensor out = ctx.result(0);
    const bool scalarPred = pred.numElements() == 1 && pred.rank() == 0;
    for (int64_t i = 0; i < out.numElements(); ++i) {
        const bool p = pred.getInt(scalarPred ? 0 : i) != 0;
        out.copyElement(i, p ? onTrue : onFalse, i);
    }
    return {std::move(out)};
}

std::vector<Tensor> ewClampOp(OpContext& ctx)
{
    const Tensor& lo = ctx.in(0);
    const Tensor& x = ctx.in(1);
    const Tensor& hi = ctx.in(2);
    Tensor out = ctx.result(0);
    const bool scalarLo = lo.rank() == 0, scalarHi = hi.rank() == 0;
    for (int64_t i = 0; i < out.numElements(); ++i) {
        // clamp = min(max(operand, min), max), as StableHLO defines it.
        applyBinary(BinaryKind::Maximum, x, i, lo, scalarLo ? 0 : i, out, i);
        applyBinary(BinaryKind::Minimum, out, i, hi, scalarHi ? 0 : i, out, i);
    }
    return {std::move(out)};
}

std::vector<Tensor> ewConvertOp(OpContext& ctx)
{
    const Tensor& x = ctx.in(0);
    Tensor out = ctx.result(0);
    const ElementType& from = x.elementType();
    const ElementType& to = out.elementType();
    for (int64_t i = 0; i < out.numElements(); ++i) {
        if (to.isBool()) {
            out.setInt(i, from.isFloat()     ? x.getFloat(i) != 0.0
                          : from.isComplex() ? x.getComplex(i) != 0.0
                                             : x.getInt(i) != 0);
        } else if (to.isComplex()) {
            out.setComplex(i, x.getComplex(i));
        } else if (to.isFloat()) {
            if (from.isFloat() || from.isComplex()) {
                const double v = x.getFloat(i);
                // f64 -> f16/bf16 goes through float (one rounding to float, then to 16 bits).
                out.setFloat(i, to.bits == 64 ? v : static_cast<double>(static_cast<float>(v)));
            } else if (from.isUnsigned && from.bits == 64) {
                const uint64_t u = static_cast<uint64_t>(x.getInt(i));
                out.setFloat(i, to.bits == 64 ? static_cast<double>(u) : static_cast<double>(static_cast<float>(u)));
            } else {
                const int64_t v = x.getInt(i);
                out.setFloat(i, to.bits == 64 ? static_cast<double>(v) : static_cast<double>(static_cast<float>(v)));
            }
        } else {
            if (from.isFloat() || from.isComplex()) {
                // Float to integer truncates toward zero; NaN gives 0 and out-of-range values saturate.
                double v = std::trunc(x.getFloat(i));
                int64_t r;
                const double lo = to.isUnsigned ? 0.0 : -std::ldexp(1.0, to.bits - 1);
                const double hi = to.isUnsigned ? std::ldexp(1.0, to.bits) - 1 : std::ldexp(1.0, to.bits - 1) - 1;
                if (std::isnan(v))
                    r = 0;
                else if (v <= lo)
                    r = to.isUnsigned
                            ? 0
                            : (to.bits == 64 ? std::numeric_limits<int64_t>::min() : static_cast<int64_t>(lo));
                else if (v >= hi)
                    r = to.isUnsigned && to.bits == 64 ? -1
                        : to.bits == 64                ? std::numeric_limits<int64_t>::max()
                                                       : static_cast<int64_t>(hi);
                else if (to.isUnsigned && to.bits == 64)
                    r = static_cast<int64_t>(static_cast<uint64_t>(v));
                else
                    r = static_cast<int64_t>(v);
                out.setInt(i, r);
            } else {
                out.setInt(i, x.getInt(i));
            }
        }
    }
    return {std::move(out)};
}

std::vector<Tensor> ewBitcastConvertOp(OpContext& ctx)
{
    const Tensor& x = ctx.in(0);
    Tensor out = ctx.result(0);
    if (out.bytes().size() != x.bytes().size())
        ctx.fail("bitcast between types of different sizes is not supported");
    out.bytes() = x.bytes();
    if (out.elementType().isBool())
        for (auto& b : out.bytes())
            b = b ? 1 : 0;
    return {std::move(out)};
}

std::vector<Tensor> ewConstantOp(OpContext& ctx)
{
    const ir::Attribute* value = ctx.op.attr("value");
    if (!value)
        ctx.fail("missing attribute 'value'");
    const auto* dense = value->as<ir::DenseElementsAttr>();
    if (!dense)
        ctx.fail("only dense<...> values are supported");
    std::string error;
    auto t = tensorFromDense(*dense, error);
    if (!t)
        ctx.fail(error);
    return {std::move(*t)};
}

std::vector<Tensor> ewIdentityOp(OpContext& ctx)
{
    std::vector<Tensor> out;
    for (unsigned i = 0; i < ctx.numIn(); ++i)
        out.push_back(ctx.in(i));
    return out;
}

} // namespace

void registerElementwiseOps(HandlerMap& map)
{
    for (const char* n : {"stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.divide",
                          "stablehlo.remainder", "stablehlo.maximum", "stablehlo.minimum", "stablehlo.power",
                          "stablehlo.and", "stablehlo.or", "stablehlo.xor", "stablehlo.shift_left",
                          "stablehlo.shift_right_arithmetic", "stablehlo.shift_right_logical", "stablehlo.atan2"})
        map[n] = ewBinaryOp;
    for (const char* n : {"stablehlo.abs",
                          "stablehlo.negate",
                          "stablehlo.exponential",
                          "stablehlo.exponential_minus_one",
                          "stablehlo.log",
                          "stablehlo.log_plus_one",
                          "stablehlo.sqrt",
                          "stablehlo.rsqrt",
                          "stablehlo.cbrt",
                          "stablehlo.tanh",
                          "stablehlo.logistic",
                          "stablehlo.sine",
                          "stablehlo.cosine",
                          "stablehlo.tan",
                          "stablehlo.floor",
                          "stablehlo.ceil",
                          "stablehlo.round_nearest_afz",
                          "stablehlo.round_nearest_even",
                          "stablehlo.sign",
                          "stablehlo.not",
                          "stablehlo.is_finite",
                          "stablehlo.popcnt",
                          "stablehlo.count_leading_zeros",
                          "stablehlo.real",
                          "stablehlo.imag"})
        map[n] = ewUnaryOp;
    map["stablehlo.compare"] = ewCompareOp;
    map["stablehlo.select"] = ewSelectOp;
    map["stablehlo.clamp"] = ewClampOp;
    map["stablehlo.convert"] = ewConvertOp;
    map["stablehlo.bitcast_convert"] = ewBitcastConvertOp;
    map["stablehlo.constant"] = ewConstantOp;
    map["arith.constant"] = ewConstantOp;
    // What propagation leaves of a constant (Shardy's import turns stablehlo.constant into it).
    map["sdy.constant"] = ewConstantOp;
    map["stablehlo.optimization_barrier"] = ewIdentityOp;
    // Sharding annotations of a global (unpartitioned) program leave its values unchanged.
    map["sdy.sharding_constraint"] = ewIdentityOp;
    map["sdy.reshard"] = ewIdentityOp;
    map["sdy.propagation_barrier"] = ewIdentityOp;
    map["sdy.sharding_group"] = ewIdentityOp;
}

} // namespace shardx::exec
