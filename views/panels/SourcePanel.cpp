// SourcePanel: the source text, a line-number gutter, and the highlighted line.
#include "views/panels/SourcePanel.h"

#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QPainter>
#include <QTextBlock>
#include <QVBoxLayout>

#include "views/session/SessionContext.h"

namespace shardx::views {

class Gutter : public QWidget {
public:
    explicit Gutter(SourceView* view) : QWidget(view), m_view(view) {}
    QSize sizeHint() const override { return {m_view->gutterWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent* event) override { m_view->paintGutter(event); }

private:
    SourceView* m_view;
};

SourceView::SourceView(QWidget* parent) : QPlainTextEdit(parent), m_gutter(new Gutter(this))
{
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    connect(this, &QPlainTextEdit::blockCountChanged, this, [this] { setViewportMargins(gutterWidth(), 0, 0, 0); });
    connect(this, &QPlainTextEdit::updateRequest, this, [this](const QRect& rect, int dy) {
        if (dy)
            m_gutter->scroll(0, dy);
        else
            m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
    });
    setViewportMargins(gutterWidth(), 0, 0, 0);
}

int SourceView::gutterWidth() const
{
    int digits = 1;
    for (int n = std::max(1, blockCount()); n >= 10; n /= 10)
        ++digits;
    return 12 + fontMetrics().horizontalAdvance(QLatin1Char('9')) * digits;
}

void SourceView::resizeEvent(QResizeEvent* event)
{
    QPlainTextEdit::resizeEvent(event);
    const QRect cr = contentsRect();
    m_gutter->setGeometry(QRect(cr.left(), cr.top(), gutterWidth(), cr.height()));
}

void SourceView::paintGutter(QPaintEvent* event)
{
    QPainter p(m_gutter);
    p.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
    QTextBlock block = firstVisibleBlock();
    int number = block.blockNumber();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    int bottom = top + qRound(blockBoundingRect(block).height());
    while (block.isValid() && top <= event->rect().bottom()) {
        if (block.isVisible() && bottom >= event->rect().top()) {
            const bool current = number + 1 == m_line;
            p.setPen(palette().color(current ? QPalette::Active : QPalette::Disabled, QPalette::Text));
            QFont f = font();
            f.setBold(current);
            p.setFont(f);
            p.drawText(0, top, m_gutter->width() - 6, fontMetrics().height(), Qt::AlignRight,
                       QString::number(number + 1));
        }
        block = block.next();
        top = bottom;
        bottom = top + qRound(blockBoundingRect(block).height());
        ++number;
    }
}

void SourceView::showLine(int line, int col)
{
    m_line = line;
    QTextBlock block = document()->findBlockByNumber(std::max(0, line - 1));
    if (!block.isValid())
        return;
    QTextCursor c(block);
    c.movePosition(QTextCursor::Right, QTextCursor::MoveAnchor, std::max(0, std::min(col - 1, block.length() - 1)));
    setTextCursor(c);
    QTextEdit::ExtraSelection sel;
    QColor bg = palette().color(QPalette::Highlight);
    bg.setAlpha(60);
    sel.format.setBackground(bg);
    sel.format.setProperty(QTextFormat::FullWidthSelection, true);
    sel.cursor = c;
    sel.cursor.clearSelection();
    setExtraSelections({sel});
    centerCursor();
    m_gutter->update();
}

SourcePanel::SourcePanel(SessionContext& context, QWidget* parent)
    : QWidget(parent), m_context(context), m_view(new SourceView(this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view);
    connect(&m_context, &SessionContext::opened, this, [this] {
        m_pending = m_context.filePath();
        if (m_dockShown && isVisible())
            load(m_pending);
    });
    connect(&m_context, &SessionContext::closed, this, [this] {
        m_file.clear();
        m_pending.clear();
        m_view->clear();
    });
    connect(&m_context, &SessionContext::sourceRequested, this, [this](const QString& file, int line, int col) {
        if (load(file.isEmpty() ? m_context.filePath() : file))
            m_view->showLine(line, col);
        if (QWidget* dock = parentWidget())
            dock->raise();
    });
    // The selected op's line (ops passes made have none).
    connect(&m_context, &SessionContext::selectionChanged, this, [this](int value, int op) {
        const Session* s = m_context.session();
        if (!s || !isVisible())
            return;
        const SourcePos pos = op >= 0 ? s->opPosition(op) : s->valuePosition(value);
        if (pos.isKnown() && load(QString::fromStdString(pos.file)))
            m_view->showLine(pos.line, pos.col);
    });
}

void SourcePanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_dockShown && !m_pending.isEmpty())
        load(m_pending);
}

void SourcePanel::setDockShown(bool shown)
{
    m_dockShown = shown;
    if (shown && !m_pending.isEmpty())
        load(m_pending);
}

bool SourcePanel::load(const QString& path)
{
    const QString file = path; // `path` may be m_pending itself
    m_pending.clear();
    if (file.isEmpty())
        return false;
    if (file == m_file)
        return true;
    QFile f(file);
    // Large files are shown up to 32 MB (a 100k-op module is about 22 MB).
    if (!f.open(QIODevice::ReadOnly) || f.size() > (32 << 20))
        return false;
    m_view->setPlainText(QString::fromUtf8(f.readAll()));
    m_file = file;
    return true;
}

} // namespace shardx::views
