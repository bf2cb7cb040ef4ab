// GraphTheme: palette-derived colours and the axis colour table.
#include "views/graph/GraphTheme.h"

#include <QPainter>

namespace shardx::views {

namespace {

// Eight hues far apart (Tableau 10 without its red, which marks conflicts), strong enough for
// legends and stripes; softened towards the background to fill nodes.
const QColor kAxisLight[] = {QColor(0x4e, 0x79, 0xa7), QColor(0xf2, 0x8e, 0x2b), QColor(0x59, 0xa1, 0x4f),
                             QColor(0xb0, 0x7a, 0xa1), QColor(0x76, 0xb7, 0xb2), QColor(0xed, 0xc9, 0x48),
                             QColor(0x9c, 0x75, 0x5f), QColor(0xff, 0x9d, 0xa7)};
const QColor kAxisDark[] = {QColor(0x6f, 0x9f, 0xd8), QColor(0xff, 0xa5, 0x4c), QColor(0x7c, 0xc8, 0x6e),
                            QColor(0xd3, 0x9b, 0xc6), QColor(0x8f, 0xd6, 0xd0), QColor(0xf7, 0xd8, 0x6a),
                            QColor(0xc2, 0x9a, 0x82), QColor(0xff, 0xb4, 0xbc)};

QString baseAxisName(const QString& name)
{
    // `x:(1)2` (a sub-axis key) and `"x":(1)2` (printed) both belong to `x`.
    QString n = name;
    if (n.startsWith('"')) {
        const qsizetype end = n.indexOf('"', 1);
        return end > 0 ? n.mid(1, end - 1) : n.mid(1);
    }
    const qsizetype colon = n.indexOf(':');
    return colon > 0 ? n.left(colon) : n;
}

} // namespace

QColor mixColours(const QColor& a, const QColor& b, double t)
{
    auto mix = [t](double x, double y) { return x + (y - x) * t; };
    return QColor::fromRgbF(
        static_cast<float>(mix(a.redF(), b.redF())), static_cast<float>(mix(a.greenF(), b.greenF())),
        static_cast<float>(mix(a.blueF(), b.blueF())), static_cast<float>(mix(a.alphaF(), b.alphaF())));
}

GraphTheme GraphTheme::fromPalette(const QPalette& palette, const QFont& font)
{
    GraphTheme t;
    const QColor window = palette.color(QPalette::Window);
    t.dark = window.lightness() < 128;
    t.background = palette.color(QPalette::Base);
    t.text = palette.color(QPalette::Text);
    t.mutedText = mixColours(t.text, t.background, 0.4);
    t.nodeFill = t.dark ? mixColours(t.background, Qt::white, 0.07) : t.background;
    t.replicated = t.dark ? mixColours(t.background, Qt::white, 0.2) : QColor(0xdc, 0xde, 0xe2);
    t.nodeBorder = t.dark ? mixColours(t.background, Qt::white, 0.38) : QColor(0x8a, 0x90, 0x99);
    t.argumentFill = t.nodeFill;
    t.groupFill = t.dark ? mixColours(t.background, Qt::white, 0.12) : QColor(0xee, 0xf0, 0xf4);
    t.clusterFill[0] = t.dark ? mixColours(t.background, Qt::white, 0.035) : QColor(0xf6, 0xf7, 0xf9);
    t.clusterFill[1] = t.dark ? mixColours(t.background, Qt::white, 0.07) : QColor(0xee, 0xf0, 0xf3);
    t.clusterBorder = t.dark ? mixColours(t.background, Qt::white, 0.22) : QColor(0xc8, 0xcc, 0xd3);
    t.titleText = mixColours(t.text, t.background, 0.2);
    t.edge = mixColours(t.text, t.background, t.dark ? 0.45 : 0.5);
    t.edgeLabelBackground = t.background;
    t.edgeLabelBackground.setAlphaF(0.85f);
    t.selection = palette.color(QPalette::Highlight);
    t.stepAccent = t.dark ? QColor(0xff, 0xc1, 0x07) : QColor(0xe0, 0x8e, 0x00);
    t.sourceAccent = t.dark ? QColor(0x6c, 0xa8, 0xff) : QColor(0x25, 0x63, 0xeb);
    t.conflict = t.dark ? QColor(0xff, 0x6b, 0x6b) : QColor(0xd6, 0x27, 0x28);
    t.nodeFont = font;
    t.nodeFont.setPointSizeF(font.pointSizeF() > 0 ? font.pointSizeF() * 0.95 : 9);
    t.nodeBoldFont = t.nodeFont;
    t.nodeBoldFont.setBold(true);
    t.labelFont = font;
    t.labelFont.setPointSizeF(font.pointSizeF() > 0 ? font.pointSizeF() * 0.8 : 7.5);
    t.titleFont = font;
    t.titleFont.setPointSizeF(font.pointSizeF() > 0 ? font.pointSizeF() * 0.95 : 9);
    t.titleFont.setBold(true);
    return t;
}

void GraphTheme::setAxes(const std::vector<std::string>& axisNames)
{
    m_axes.clear();
    const QColor* table = dark ? kAxisDark : kAxisLight;
    int next = 0;
    for (const std::string& name : axisNames) {
        const QString n = QString::fromStdString(name);
        if (m_axes.contains(n))
            continue;
        m_axes.insert(n, table[next % 8]);
        ++next;
    }
}

QColor GraphTheme::axisColour(const QString& name) const
{
    const QString base = baseAxisName(name);
    if (auto it = m_axes.find(base); it != m_axes.end())
        return *it;
    const QColor* table = dark ? kAxisDark : kAxisLight;
    return table[qHash(base) % 8];
}

QColor GraphTheme::axisFill(const QString& name) const
{
    return mixColours(axisColour(name), background, dark ? 0.45 : 0.55);
}

void paintOverlayPanel(QPainter& p, const QRectF& rect, const GraphTheme& t)
{
    p.setRenderHint(QPainter::Antialiasing, true);
    QColor back = t.background;
    back.setAlphaF(0.93f);
    p.setPen(QPen(t.clusterBorder, 1));
    p.setBrush(back);
    p.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);
}

} // namespace shardx::views
