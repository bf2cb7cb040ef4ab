// ShardColors: the colours of the shard map (one per slice of a tensor), for light and dark palettes.
#pragma once

#include <QColor>
#include <QPalette>

namespace shardx::views {

/// The fill of slice `index` of `count` (a region group of a ShardedLayout): distinct, soft
/// colours that keep dark text readable on a light palette and light text on a dark one. The
/// first twelve are a fixed qualitative set; more are spread around the hue circle.
QColor sliceColor(int index, int count, const QPalette& palette);
/// Text drawn on `fill`: the palette's dark or light text, whichever contrasts more.
QColor textOn(const QColor& fill);
/// True for a dark palette (dark window colour).
bool isDarkPalette(const QPalette& palette);

} // namespace shardx::views
