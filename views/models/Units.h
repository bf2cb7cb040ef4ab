// Units: how the views write byte counts and times (exact with digit grouping, or short).
#pragma once

#include <cstdint>

#include <QString>

namespace shardx::views {

/// `3,072` (digit groups of the user's locale, also under the C locale).
QString countText(int64_t n);
/// `3,072 B`.
QString bytesText(int64_t bytes);
/// `3.0 KiB`, `12.5 MiB`; exact below 1 KiB (`512 B`).
QString shortBytesText(int64_t bytes);
/// Microseconds with one decimal: `30.1`.
QString microsecondsText(double seconds);

} // namespace shardx::views
