// Icons: an icon engine that renders the SVGs of resources/icons in the current palette.
#include "views/app/Icons.h"

#include <QApplication>
#include <QFile>
#include <QHash>
#include <QIconEngine>
#include <QPainter>
#include <QPixmap>
#include <QSvgRenderer>
#include <QWidget>

namespace shardx::views {

namespace {

/// The SVG text of `name`, cached.
const QByteArray& svgText(const QString& name)
{
    static QHash<QString, QByteArray> cache;
    auto it = cache.find(name);
    if (it == cache.end()) {
        QFile f(QStringLiteral(":/icons/%1.svg").arg(name));
        it = cache.insert(name, f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray());
    }
    return *it;
}

class TintedSvgEngine : public QIconEngine {
public:
    explicit TintedSvgEngine(QString name) : m_name(std::move(name)) {}

    void paint(QPainter* painter, const QRect& rect, QIcon::Mode mode, QIcon::State) override
    {
        QByteArray svg = svgText(m_name);
        if (svg.isEmpty())
            return;
        const QPalette pal = QApplication::palette();
        QColor color = pal.color(mode == QIcon::Disabled ? QPalette::Disabled : QPalette::Active, QPalette::WindowText);
        if (mode == QIcon::Selected)
            color = pal.color(QPalette::HighlightedText);
        svg.replace("currentColor", color.name().toLatin1());
        QSvgRenderer renderer(svg);
        renderer.render(painter, QRectF(rect));
    }

    QPixmap pixmap(const QSize& size, QIcon::Mode mode, QIcon::State state) override
    {
        QPixmap pm(size);
        pm.fill(Qt::transparent);
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        paint(&p, QRect(QPoint(0, 0), size), mode, state);
        return pm;
    }

    QIconEngine* clone() const override { return new TintedSvgEngine(m_name); }
    QString key() const override { return QStringLiteral("shardx-tinted-svg"); }

private:
    QString m_name;
};

} // namespace

QIcon themedIcon(const QString& name) { return QIcon(new TintedSvgEngine(name)); }

QIcon appIcon() { return QIcon(QStringLiteral(":/icons/shardx.svg")); }

void refreshIcons(QWidget* root)
{
    if (!root)
        return;
    root->update();
    for (QWidget* w : root->findChildren<QWidget*>())
        w->update();
}

} // namespace shardx::views
