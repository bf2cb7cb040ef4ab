// GraphTheme: the colours and fonts of the dataflow graph, taken from the widget palette (light or
// dark), with one stable colour per mesh axis.
#pragma once

#include <QColor>
#include <QFont>
#include <QHash>
#include <QPainter>
#include <QPalette>
#include <QRectF>
#include <QString>

#include <string>
#include <vector>

namespace shardx::views {

struct GraphTheme {
    bool dark = false;
    QColor background;
    QColor text;
    QColor mutedText;
    QColor nodeFill;   ///< a value with no sharding at all
    QColor replicated; ///< a sharding without axes on any dimension ("unsharded grey")
    QColor nodeBorder;
    QColor argumentFill;   ///< arguments without a sharding
    QColor groupFill;      ///< collapsed groups
    QColor clusterFill[2]; ///< expanded groups, alternating with depth
    QColor clusterBorder;
    QColor titleText;
    QColor edge;
    QColor edgeLabelBackground;
    QColor selection;    ///< the selected node
    QColor stepAccent;   ///< the op of the current step and the edges it propagated along
    QColor sourceAccent; ///< edges the current step's shardings came from
    QColor conflict;
    QFont nodeFont;
    QFont nodeBoldFont;
    QFont labelFont; ///< edge labels
    QFont titleFont; ///< group titles
    double titleHeight = 24;

    /// The theme for `palette` (dark when its window colour is dark), fonts from `font`.
    static GraphTheme fromPalette(const QPalette& palette, const QFont& font);

    /// Colours for the axes of the mesh, in order: the same name gets the same colour every time
    /// (assigned in declaration order from a palette of eight, then by a hash of the name).
    void setAxes(const std::vector<std::string>& axisNames);
    /// The colour of axis `name` (sub-axes take their axis' colour), strong for legends.
    QColor axisColour(const QString& name) const;
    /// The same, softened to fill a node behind text.
    QColor axisFill(const QString& name) const;

private:
    QHash<QString, QColor> m_axes;
};

/// `a` and `b` mixed: `t` = 0 gives `a`, 1 gives `b`.
QColor mixColours(const QColor& a, const QColor& b, double t);

/// The rounded, slightly translucent panel the overlays (legend, overview) draw over the graph;
/// leaves `p` antialiased.
void paintOverlayPanel(QPainter& p, const QRectF& rect, const GraphTheme& t);

} // namespace shardx::views
