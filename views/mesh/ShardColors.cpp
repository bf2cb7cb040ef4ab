// ShardColors: slice colours.
#include "views/mesh/ShardColors.h"

#include <array>

namespace shardx::views {

namespace {

// A qualitative set (after ColorBrewer Set3 and Tableau 10), ordered so that neighbours differ.
constexpr std::array<QRgb, 12> kLight = {0x8ecae6, 0xffb86b, 0x9bd99b, 0xf4a6a6, 0xc5b0e6, 0x86d6cf,
                                         0xf5b8dc, 0xe0e07a, 0xa8b8f0, 0xd9b99b, 0xc9c9c9, 0xf0cf8a};

} // namespace

bool isDarkPalette(const QPalette& palette) { return palette.color(QPalette::Window).lightness() < 128; }

QColor sliceColor(int index, int count, const QPalette& palette)
{
    QColor c;
    if (count <= static_cast<int>(kLight.size())) {
        c = QColor::fromRgb(kLight[static_cast<size_t>(index) % kLight.size()]);
    } else {
        // Golden-angle hues, two lightness bands so that neighbours differ in both.
        const int hue = static_cast<int>((index * 137.508)) % 360;
        c = QColor::fromHsl(hue, 150, index % 2 ? 185 : 165);
    }
    if (isDarkPalette(palette)) {
        // Same hues, deeper: light text stays readable and the fills do not glare.
        c = QColor::fromHsl(c.hslHue(), std::min(c.hslSaturation(), 95), 100);
    }
    return c;
}

QColor textOn(const QColor& fill)
{
    const double luma = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
    return luma > 0.5 ? QColor(0x1d, 0x1f, 0x23) : QColor(0xf2, 0xf3, 0xf5);
}

} // namespace shardx::views
