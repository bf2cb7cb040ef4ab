// LayoutMetrics: how big the viewer draws nodes, boxes and titles, so that the core sizes them
// without a font engine (the viewer measures its fonts once and hands the advances over).
#pragma once

#include <array>
#include <string_view>

namespace shardx::layout {

/// Sizes in pixels. The defaults approximate a 9 pt sans-serif font; a viewer fills `advance`
/// and `boldAdvance` from its own font metrics (QFontMetricsF::horizontalAdvance per character).
struct LayoutMetrics {
    LayoutMetrics();

    std::array<float, 128> advance{};     ///< width of each ASCII character, regular weight
    std::array<float, 128> boldAdvance{}; ///< and bold (a node's first line)
    double otherAdvance = 8;              ///< any other character (UTF-8 sequences count once)
    double lineHeight = 15;

    double nodePaddingX = 10;
    double nodePaddingY = 5;
    double minNodeWidth = 56;
    double maxNodeWidth = 220;
    double maxGroupWidth = 300;
    double groupTitleHeight = 24; ///< the title bar of an expanded group
    double groupPadding = 10;     ///< between an expanded group's frame and its contents
    double collapsedExtra = 6;    ///< a collapsed group's box is this much taller (its "stack")
    double expanderWidth = 16;    ///< room for a collapsed group's expander glyph
    double portSize = 4;
    double nodeSeparation = 24;
    double rankSeparation = 28;
    /// A group's layout draws expanded children inside itself (dot clusters) while it shows at
    /// most this many items; beyond, an expanded child is laid out on its own and placed as a box.
    int inlineBudget = 160;

    /// Width of `text` in the regular (or bold) font.
    double textWidth(std::string_view text, bool bold = false) const;
};

} // namespace shardx::layout
