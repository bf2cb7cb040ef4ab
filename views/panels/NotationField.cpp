// NotationField: caption, code box, copy button, notes.
#include "views/panels/NotationField.h"

#include <algorithm>
#include <cmath>

#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QTextEdit>
#include <QToolButton>
#include <QVBoxLayout>

#include "views/app/Icons.h"

namespace shardx::views {

namespace {

/// A read-only text box as high as its text at its width: long shardings (an explicit device
/// list) wrap instead of scrolling out of sight.
class CodeBox : public QTextEdit {
public:
    explicit CodeBox(QWidget* parent) : QTextEdit(parent)
    {
        setReadOnly(true);
        setAcceptRichText(false);
        setLineWrapMode(QTextEdit::WidgetWidth);
        setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
        setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
        setTabChangesFocus(true);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        document()->setDocumentMargin(3);
        connect(document(), &QTextDocument::contentsChanged, this, &CodeBox::fit);
        fit();
    }

protected:
    void resizeEvent(QResizeEvent* event) override
    {
        QTextEdit::resizeEvent(event);
        fit();
    }

private:
    void fit()
    {
        document()->setTextWidth(viewport()->width());
        const int text = static_cast<int>(std::ceil(document()->size().height()));
        setFixedHeight(std::max(text, fontMetrics().height() + 6) + 2 * frameWidth());
    }
};

} // namespace

NotationField::NotationField(const QString& caption, QWidget* parent)
    : QWidget(parent),
      m_caption(new QLabel(caption, this)),
      m_edit(new CodeBox(this)),
      m_copy(new QToolButton(this)),
      m_notes(new QLabel(this))
{
    m_caption->setForegroundRole(QPalette::PlaceholderText);
    m_caption->setWordWrap(true); // a narrow dock wraps it instead of growing a horizontal scroll bar
    m_edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_edit->setPlaceholderText(tr("not expressible"));
    m_copy->setIcon(themedIcon(QStringLiteral("copy")));
    m_copy->setToolTip(tr("Copy %1").arg(caption));
    m_copy->setAutoRaise(true);
    m_notes->setWordWrap(true);
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notes->setForegroundRole(QPalette::PlaceholderText);
    m_notes->setVisible(false);
    QFont small = m_notes->font();
    small.setPointSizeF(small.pointSizeF() * 0.92);
    m_notes->setFont(small);

    auto* row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(2);
    row->addWidget(m_edit, 1);
    row->addWidget(m_copy);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_caption);
    layout->addLayout(row);
    layout->addWidget(m_notes);
    connect(m_copy, &QToolButton::clicked, this, [this] {
        if (!m_edit->toPlainText().isEmpty())
            QApplication::clipboard()->setText(m_edit->toPlainText());
    });
}

void NotationField::setContent(const QString& text, const QStringList& notes, const QString& explanation)
{
    if (m_edit->toPlainText() != text)
        m_edit->setPlainText(text);
    m_copy->setEnabled(!text.isEmpty());
    QString shown;
    if (text.isEmpty() && !explanation.isEmpty())
        shown = explanation;
    else if (!notes.isEmpty())
        shown = QStringLiteral("• ") + notes.join(QStringLiteral("\n• "));
    m_notes->setText(shown);
    m_notes->setForegroundRole(text.isEmpty() && !explanation.isEmpty() ? QPalette::WindowText
                                                                        : QPalette::PlaceholderText);
    m_notes->setVisible(!shown.isEmpty());
}

void NotationField::setCaption(const QString& caption) { m_caption->setText(caption); }
void NotationField::setEmptyText(const QString& text) { m_edit->setPlaceholderText(text); }

QString NotationField::text() const { return m_edit->toPlainText(); }
QString NotationField::notesText() const { return m_notes->text(); }

} // namespace shardx::views
