// Units: digit grouping, binary prefixes and microseconds.
#include "views/models/Units.h"

#include <QLocale>

namespace shardx::views {

namespace {

QLocale groupingLocale()
{
    QLocale locale;
    // The C locale omits group separators unless asked: 134217728 is hard to read.
    locale.setNumberOptions(locale.numberOptions() & ~QLocale::OmitGroupSeparator);
    return locale;
}

} // namespace

QString countText(int64_t n) { return groupingLocale().toString(static_cast<qlonglong>(n)); }

QString bytesText(int64_t bytes) { return QStringLiteral("%1 B").arg(countText(bytes)); }

QString shortBytesText(int64_t bytes)
{
    static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    if (bytes < 1024 && bytes > -1024)
        return bytesText(bytes);
    double v = static_cast<double>(bytes);
    int unit = -1;
    while ((v >= 1024 || v <= -1024) && unit < 4) {
        v /= 1024;
        ++unit;
    }
    return QStringLiteral("%1 %2").arg(QLocale().toString(v, 'f', 1), QLatin1String(kUnits[unit]));
}

QString microsecondsText(double seconds) { return QLocale().toString(seconds * 1e6, 'f', 1); }

} // namespace shardx::views
