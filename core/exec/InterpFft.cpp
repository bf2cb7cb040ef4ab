// Interpreter: stablehlo.fft (FFT, IFFT, RFFT, IRFFT) as direct DFTs in complex<double>, dimension by dimension
// from the innermost, so that a batch split across devices gives bitwise the same rows.
#include <cmath>
#include <complex>
#include <numbers>

#include "core/exec/Interpreter.h"
#include "core/ir/StablehloAttrs.h"

namespace shardx::exec {

namespace {

using FftComplex = std::complex<double>;

/// A dense complex array in row-major order.
struct FftArray {
    std::vector<int64_t> shape;
    std::vector<FftComplex> data;
};

/// The DFT of every line along `dim` of `a` (sign -1: forward; +1: inverse, divided by n), taking the
/// first `inLen` elements of each line (missing ones read as zeros) and producing `outLen` elements.
FftArray fftAlong(const FftArray& a, size_t dim, int64_t inLen, int64_t outLen, int64_t n, int sign)
{
    FftArray out;
    out.shape = a.shape;
    out.shape[dim] = outLen;
    out.data.assign(static_cast<size_t>(elementCount(out.shape)), FftComplex(0, 0));
    const auto is = rowMajorStrides(a.shape);
    const auto os = rowMajorStrides(out.shape);
    std::vector<int64_t> outer = a.shape;
    outer[dim] = 1;
    std::vector<int64_t> idx(outer.size(), 0);
    const int64_t available = std::min(inLen, a.shape[dim]);
    for (int64_t o = 0; o < elementCount(outer); ++o, nextIndex(idx, outer)) {
        int64_t ibase = 0, obase = 0;
        for (size_t d = 0; d < idx.size(); ++d) {
            ibase += idx[d] * is[d];
            obase += idx[d] * os[d];
        }
        for (int64_t k = 0; k < outLen; ++k) {
            FftComplex sum(0, 0);
            for (int64_t t = 0; t < available; ++t) {
                const double angle =
                    sign * 2.0 * std::numbers::pi * static_cast<double>((k * t) % n) / static_cast<double>(n);
                sum += a.data[static_cast<size_t>(ibase + t * is[dim])] * FftComplex(std::cos(angle), std::sin(angle));
            }
            if (sign > 0)
                sum /= static_cast<double>(n);
            out.data[static_cast<size_t>(obase + k * os[dim])] = sum;
        }
    }
    return out;
}

std::vector<Tensor> fftOp(OpContext& ctx)
{
    const std::string type = stablehlo::enumKeyword(ctx.op.attr("fft_type"));
    const auto lengths = ctx.ints("fft_length");
    const Tensor& x = ctx.in(0);
    Tensor out = ctx.result(0);
    const size_t k = lengths.size();
    if (k == 0 || k > static_cast<size_t>(x.rank()))
        ctx.fail("fft_length must name 1 to rank dimensions");
    const size_t first = static_cast<size_t>(x.rank()) - k;
    FftArray a;
    a.shape = x.shape();
    a.data.resize(static_cast<size_t>(x.numElements()));
    for (int64_t i = 0; i < x.numElements(); ++i)
        a.data[static_cast<size_t>(i)] = x.getComplex(i);
    const size_t last = static_cast<size_t>(x.rank()) - 1;
    if (type == "FFT" || type == "IFFT") {
        const int sign = type == "FFT" ? -1 : 1;
        for (size_t d = last + 1; d-- > first;)
            a = fftAlong(a, d, lengths[d - first], lengths[d - first], lengths[d - first], sign);
    } else if (type == "RFFT") {
        // Real input: the innermost dimension keeps n/2 + 1 frequencies, then the others.
        const int64_t n = lengths[k - 1];
        a = fftAlong(a, last, n, n / 2 + 1, n, -1);
        for (size_t d = last; d-- > first;)
            a = fftAlong(a, d, lengths[d - first], lengths[d - first], lengths[d - first], -1);
    } else if (type == "IRFFT") {
        for (size_t d = last; d-- > first;)
            a = fftAlong(a, d, lengths[d - first], lengths[d - first], lengths[d - first], 1);
        // The innermost dimension holds n/2 + 1 frequencies; the rest are their conjugates.
        const int64_t n = lengths[k - 1];
        const int64_t half = a.shape[last];
        FftArray full;
        full.shape = a.shape;
        full.shape[last] = n;
        full.data.assign(static_cast<size_t>(elementCount(full.shape)), FftComplex(0, 0));
        for (int64_t i = 0; i < elementCount(full.shape); ++i) {
            const int64_t row = i / n, f = i % n;
            if (f < half)
                full.data[static_cast<size_t>(i)] = a.data[static_cast<size_t>(row * half + f)];
            else if (n - f < half)
                full.data[static_cast<size_t>(i)] = std::conj(a.data[static_cast<size_t>(row * half + (n - f))]);
        }
        a = fftAlong(full, last, n, n, n, 1);
    } else {
        ctx.fail("unknown fft_type '" + type + "'");
    }
    if (static_cast<int64_t>(a.data.size()) != out.numElements())
        ctx.fail("result shape does not match fft_length");
    for (int64_t i = 0; i < out.numElements(); ++i) {
        if (out.elementType().isComplex())
            out.setComplex(i, a.data[static_cast<size_t>(i)]);
        else
            out.setFloat(i, out.elementType().bits == 64 ? a.data[static_cast<size_t>(i)].real()
                                                         : static_cast<float>(a.data[static_cast<size_t>(i)].real()));
    }
    return {std::move(out)};
}

std::vector<Tensor> fftComplexOp(OpContext& ctx)
{
    Tensor out = ctx.result(0);
    for (int64_t i = 0; i < out.numElements(); ++i)
        out.setComplex(i, {ctx.in(0).getFloat(i), ctx.in(1).getFloat(i)});
    return {std::move(out)};
}

} // namespace

void registerFftOps(HandlerMap& map)
{
    map["stablehlo.fft"] = fftOp;
    map["stablehlo.complex"] = fftComplexOp;
}

} // namespace shardx::exec
