// Interpreter: dot_general, dot and convolution, summed from zero over the contracting indices in
// row-major order (convolution: input spatial dimensions, then the input feature), in the element
// type (f32 in float: no wider accumulator; the target is compiled without FMA contraction).
#include <complex>

#include "core/exec/Interpreter.h"
#include "core/ir/StablehloAttrs.h"

namespace shardx::exec {

namespace {

/// The products of one result element: pairs of element positions of lhs and rhs (-1: a zero of padding).
struct LinTerms {
    std::vector<int64_t> lhs, rhs;
    void clear()
    {
        lhs.clear();
        rhs.clear();
    }
    void add(int64_t l, int64_t r)
    {
        lhs.push_back(l);
        rhs.push_back(r);
    }
};

/// Sums the products of `terms` into element `o` of `out`, in the element type of `out`.
class LinAccumulator {
public:
    LinAccumulator(const Tensor& lhs, const Tensor& rhs, const Tensor& out) : m_type(out.elementType())
    {
        load(lhs, m_lf, m_ld, m_li, m_lc);
        load(rhs, m_rf, m_rd, m_ri, m_rc);
    }

    void sumInto(const LinTerms& t, Tensor& out, int64_t o) const
    {
        const size_t n = t.lhs.size();
        switch (m_type.kind) {
        case ElementKind::Float:
            if (m_type.bits == 32) {
                float acc = 0.0f;
                for (size_t j = 0; j < n; ++j) {
                    const float p = lf(t.lhs[j]) * rf(t.rhs[j]);
                    acc = acc + p;
                }
                out.setFloat(o, acc);
            } else if (m_type.bits == 64) {
                double acc = 0.0;
                for (size_t j = 0; j < n; ++j) {
                    const double p = ld(t.lhs[j]) * rd(t.rhs[j]);
                    acc = acc + p;
                }
                out.setFloat(o, acc);
            } else {
                // f16 / bf16: each product and sum rounded to the 16-bit format.
                float acc = 0.0f;
                for (size_t j = 0; j < n; ++j) {
                    const float p = round16(lf(t.lhs[j]) * rf(t.rhs[j]));
                    acc = round16(acc + p);
                }
                out.setFloat(o, acc);
            }
            return;
        case ElementKind::Complex: {
            std::complex<double> acc = 0.0;
            for (size_t j = 0; j < n; ++j)
                acc += lc(t.lhs[j]) * rc(t.rhs[j]);
            out.setComplex(o, acc);
            return;
        }
        case ElementKind::Bool: {
            bool acc = false;
            for (size_t j = 0; j < n; ++j)
                acc = acc || (li(t.lhs[j]) && ri(t.rhs[j]));
            out.setInt(o, acc);
            return;
        }
        case ElementKind::Int: {
            uint64_t acc = 0; // wraps like the element type once truncated
            for (size_t j = 0; j < n; ++j)
                acc += static_cast<uint64_t>(li(t.lhs[j])) * static_cast<uint64_t>(ri(t.rhs[j]));
            out.setInt(o, static_cast<int64_t>(acc));
            return;
        }
        }
    }

private:
    void load(const Tensor& t, std::vector<float>& f, std::vector<double>& d, std::vector<int64_t>& i,
              std::vector<std::complex<double>>& c) const
    {
        const int64_t n = t.numElements();
        switch (m_type.kind) {
        case ElementKind::Float:
            if (m_type.bits == 64) {
                d.resize(static_cast<size_t>(n));
                for (int64_t k = 0; k < n; ++k)
                    d[static_cast<size_t>(k)] = t.getFloat(k);
            } else {
                f.resize(static_cast<size_t>(n));
                for (int64_t k = 0; k < n; ++k)
                    f[static_cast<size_t>(k)] = static_cast<float>(t.getFloat(k));
            }
            break;
        case ElementKind::Complex:
            c.resize(static_cast<size_t>(n));
            for (int64_t k = 0; k < n; ++k)
                c[static_cast<size_t>(k)] = t.getComplex(k);
            break;
        default:
            i.resize(static_cast<size_t>(n));
            for (int64_t k = 0; k < n; ++k)
                i[static_cast<size_t>(k)] = t.getInt(k);
        }
    }
    float round16(float v) const { return m_type.isBf16 ? bf16ToFloat(floatToBf16(v)) : halfToFloat(floatToHalf(v)); }
    float lf(int64_t k) const { return k < 0 ? 0.0f : m_lf[static_cast<size_t>(k)]; }
    float rf(int64_t k) const { return k < 0 ? 0.0f : m_rf[static_cast<size_t>(k)]; }
    double ld(int64_t k) const { return k < 0 ? 0.0 : m_ld[static_cast<size_t>(k)]; }
    double rd(int64_t k) const { return k < 0 ? 0.0 : m_rd[static_cast<size_t>(k)]; }
    int64_t li(int64_t k) const { return k < 0 ? 0 : m_li[static_cast<size_t>(k)]; }
    int64_t ri(int64_t k) const { return k < 0 ? 0 : m_ri[static_cast<size_t>(k)]; }
    std::complex<double> lc(int64_t k) const { return k < 0 ? 0.0 : m_lc[static_cast<size_t>(k)]; }
    std::complex<double> rc(int64_t k) const { return k < 0 ? 0.0 : m_rc[static_cast<size_t>(k)]; }

    ElementType m_type;
    std::vector<float> m_lf, m_rf;
    std::vector<double> m_ld, m_rd;
    std::vector<int64_t> m_li, m_ri;
    std::vector<std::complex<double>> m_lc, m_rc;
};

bool linContains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

std::vector<Tensor> linDotGeneral(OpContext& ctx, const stablehlo::DotDimensionNumbers& dn)
{
    const Tensor& lhs = ctx.in(0);
    const Tensor& rhs = ctx.in(1);
    Tensor out = ctx.result(0);
    if (dn.lhsBatching.size() != dn.rhsBatching.size() || dn.lhsContracting.size() != dn.rhsContracting.size())
        ctx.fail("batching or contracting dimensions of lhs and rhs differ in number");
    std::vector<int64_t> lhsFree, rhsFree;
    for (int d = 0; d < lhs.rank(); ++d)
        if (!linContains(dn.lhsBatching, d) && !linContains(dn.lhsContracting, d))
            lhsFree.push_back(d);
    for (int d = 0; d < rhs.rank(); ++d)
        if (!linContains(dn.rhsBatching, d) && !linContains(dn.rhsContracting, d))
            rhsFree.push_back(d);
    if (static_cast<size_t>(out.rank()) != dn.lhsBatching.size() + lhsFree.size() + rhsFree.size())
        ctx.fail("result rank does not match the dimension numbers");
    const auto ls = rowMajorStrides(lhs.shape());
    const auto rs = rowMajorStrides(rhs.shape());
    // Offsets of every contracting index, in row-major order of the contracting dimensions as listed.
    std::vector<int64_t> cshape;
    for (size_t k = 0; k < dn.lhsContracting.size(); ++k) {
        const int64_t n = lhs.dim(static_cast<int>(dn.lhsContracting[k]));
        if (n != rhs.dim(static_cast<int>(dn.rhsContracting[k])))
            ctx.fail("contracting dimensions differ in size");
        cshape.push_back(n);
    }
    std::vector<int64_t> lc, rc;
    {
        std::vector<int64_t> c(cshape.size(), 0);
        for (int64_t j = 0; j < elementCount(cshape); ++j, nextIndex(c, cshape)) {
            int64_t l = 0, r = 0;
            for (size_t k = 0; k < c.size(); ++k) {
                l += c[k] * ls[static_cast<size_t>(dn.lhsContracting[k])];
                r += c[k] * rs[static_cast<size_t>(dn.rhsContracting[k])];
            }
            lc.push_back(l);
            rc.push_back(r);
        }
    }
    LinAccumulator acc(lhs, rhs, out);
    LinTerms terms;
    std::vector<int64_t> idx(out.rank(), 0);
    for (int64_t o = 0; o < out.numElements(); ++o, nextIndex(idx, out.shape())) {
        int64_t lbase = 0, rbase = 0;
        size_t p = 0;
        for (size_t k = 0; k < dn.lhsBatching.size(); ++k, ++p) {
            lbase += idx[p] * ls[static_cast<size_t>(dn.lhsBatching[k])];
            rbase += idx[p] * rs[static_cast<size_t>(dn.rhsBatching[k])];
        }
        for (int64_t d : lhsFree)
            lbase += idx[p++] * ls[static_cast<size_t>(d)];
        for (int64_t d : rhsFree)
            rbase += idx[p++] * rs[static_cast<size_t>(d)];
        terms.clear();
        for (size_t j = 0; j < lc.size(); ++j)
            terms.add(lbase + lc[j], rbase + rc[j]);
        acc.sumInto(terms, out, o);
    }
    return {std::move(out)};
}

std::vector<Tensor> linDotGeneralOp(OpContext& ctx)
{
    std::string error;
    auto dn = stablehlo::dotDimensionNumbers(ctx.op, &error);
    if (!dn)
        ctx.fail("bad dot_dimension_numbers: " + error);
    return linDotGeneral(ctx, *dn);
}

std::vector<Tensor> linDotOp(OpContext& ctx)
{
    stablehlo::DotDimensionNumbers dn;
    if (ctx.in(0).rank() < 1 || ctx.in(1).rank() < 1)
        ctx.fail("operands must have rank 1 or 2");
    dn.lhsContracting = {ctx.in(0).rank() - 1};
    dn.rhsContracting = {0};
    return linDotGeneral(ctx, dn);
}

std::vector<Tensor> linConvolutionOp(OpContext& ctx)
{
    std::string error;
    auto dn = stablehlo::convDimensionNumbers(ctx.op, &error);
    if (!dn)
        ctx.fail("bad dimension_numbers: " + error);
    const Tensor& lhs = ctx.in(0);
    const Tensor& rhs = ctx.in(1);
    Tensor out = ctx.result(0);
    const size_t ns = dn->inputSpatial.size();
    if (dn->kernelSpatial.size() != ns || dn->outputSpatial.size() != ns)
        ctx.fail("spatial dimensions differ in number");
    const auto strides = ctx.intsOr("window_strides", std::vector<int64_t>(ns, 1));
    const auto lhsDil = ctx.intsOr("lhs_dilation", std::vector<int64_t>(ns, 1));
    const auto rhsDil = ctx.intsOr("rhs_dilation", std::vector<int64_t>(ns, 1));
    std::vector<int64_t> padLo(ns, 0);
    if (ctx.op.attr("padding")) {
        const auto pad = ctx.ints("padding");
        if (pad.size() != 2 * ns)
            ctx.fail("padding does not match the spatial dimensions");
        for (size_t k = 0; k < ns; ++k)
            padLo[k] = pad[2 * k];
    }
    std::vector<bool> reversal(ns, false);
    if (const ir::Attribute* rev = ctx.op.attr("window_reversal")) {
        auto v = stablehlo::intList(rev);
        if (v && v->size() == ns)
            for (size_t k = 0; k < ns; ++k)
                reversal[k] = (*v)[k] != 0;
    }
    const int64_t fgc = ctx.integerOr("feature_group_count", 1);
    const int64_t bgc = ctx.integerOr("batch_group_count", 1);
    if (strides.size() != ns || lhsDil.size() != ns || rhsDil.size() != ns || fgc < 1 || bgc < 1)
        ctx.fail("window attributes do not match the spatial dimensions");
    const int64_t outF = out.dim(static_cast<int>(dn->outputFeature));
    const int64_t outB = out.dim(static_cast<int>(dn->outputBatch));
    const int64_t kif = rhs.dim(static_cast<int>(dn->kernelInputFeature));
    if (outF % fgc != 0 || outF % bgc != 0)
        ctx.fail("output features are not divisible by the group counts");
    std::vector<int64_t> kshape;
    for (int64_t d : dn->kernelSpatial)
        kshape.push_back(rhs.dim(static_cast<int>(d)));
    const auto ls = rowMajorStrides(lhs.shape());
    const auto rs = rowMajorStrides(rhs.shape());
    LinAccumulator acc(lhs, rhs, out);
    LinTerms terms;
    std::vector<int64_t> idx(out.rank(), 0), k(ns, 0);
    for (int64_t o = 0; o < out.numElements(); ++o, nextIndex(idx, out.shape())) {
        const int64_t ob = idx[static_cast<size_t>(dn->outputBatch)];
        const int64_t of = idx[static_cast<size_t>(dn->outputFeature)];
        const int64_t lb = ob + (bgc > 1 ? (of / (outF / bgc)) * outB : 0);
        const int64_t featureBase = fgc > 1 ? (of / (outF / fgc)) * kif : 0;
        terms.clear();
        std::fill(k.begin(), k.end(), 0);
        do {
            // Input spatial position of this kernel position, or a zero of padding / lhs dilation.
            int64_t lpos = lb * ls[static_cast<size_t>(dn->inputBatch)];
            bool zero = false;
            int64_t rpos = of * rs[static_cast<size_t>(dn->kernelOutputFeature)];
            for (size_t s = 0; s < ns; ++s) {
                const int64_t os = idx[static_cast<size_t>(dn->outputSpatial[s])];
                const int64_t p = os * strides[s] + k[s] * rhsDil[s] - padLo[s];
                const int64_t dim = lhs.dim(static_cast<int>(dn->inputSpatial[s]));
                if (p < 0 || p % lhsDil[s] != 0 || p / lhsDil[s] >= dim)
                    zero = true;
                else
                    lpos += (p / lhsDil[s]) * ls[static_cast<size_t>(dn->inputSpatial[s])];
                const int64_t ks = reversal[s] ? kshape[s] - 1 - k[s] : k[s];
                rpos += ks * rs[static_cast<size_t>(dn->kernelSpatial[s])];
            }
            for (int64_t f = 0; f < kif; ++f)
                terms.add(zero ? -1 : lpos + (featureBase + f) * ls[static_cast<size_t>(dn->inputFeature)],
                          rpos + f * rs[static_cast<size_t>(dn->kernelInputFeature)]);
        } while (nextIndex(k, kshape));
        acc.sumInto(terms, out, o);
    }
    return {std::move(out)};
}

} // namespace

void registerLinalgOps(HandlerMap& map)
{
    map["stablehlo.dot_general"] = linDotGeneralOp;
    map["stablehlo.dot"] = linDotOp;
    map["stablehlo.convolution"] = linConvolutionOp;
}

} // namespace shardx::exec
