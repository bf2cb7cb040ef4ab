// GraphLegend: what the graph's colours and marks mean (one swatch per mesh axis).
#pragma once

#include <QPixmap>
#include <QString>
#include <QVector>
#include <QWidget>

#include <string>
#include <vector>

namespace shardx::views {

struct GraphTheme;

/// A small panel drawn over the graph: each mesh axis with its colour and size, then the
/// replicated and unknown fills, the current step's marks and the conflict mark.
class GraphLegend : public QWidget {
    Q_OBJECT

public:
    GraphLegend(const GraphTheme* theme, QWidget* parent = nullptr);

    void setAxes(const std::vector<std::string>& names, const std::vector<int64_t>& sizes);
    QSize sizeHint() const override;
    /// Draws the legend again (the theme changed).
    void refresh();

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    /// Draws the legend into `p` (the cached picture).
    void draw(QPainter& p) const;

    struct Axis {
        QString name;
        qint64 size = 0;
    };
    const GraphTheme* m_theme;
    QVector<Axis> m_axes;
    /// The legend as drawn: it sits over the graph, which repaints under it in every frame while
    /// the view pans; the legend itself changes only with the axes, the theme or its size.
    QPixmap m_picture;
};

} // namespace shardx::views
