// NotationField: one notation of a sharding in the inspector: a caption, selectable text with a copy
// button, and the notes or the explanation under it.
#pragma once

#include <QStringList>
#include <QWidget>

class QLabel;
class QTextEdit;
class QToolButton;

namespace shardx::views {

/// A read-only, selectable, copyable box of code (wrapped to the panel's width, as high as its text) (a sharding in
/// some notation) under a caption, with notes (what the notation leaves out) or, when the notation cannot express the
/// sharding, the explanation instead of the text.
class NotationField : public QWidget {
    Q_OBJECT

public:
    explicit NotationField(const QString& caption, QWidget* parent = nullptr);

    /// Shows `text` with `notes` under it (an empty text shows `explanation` instead).
    void setContent(const QString& text, const QStringList& notes = {}, const QString& explanation = {});
    void clear() { setContent({}); }
    QString text() const;
    /// The notes or explanation as shown.
    QString notesText() const;
    /// The read-only text box.
    QTextEdit* textBox() const { return m_edit; }
    void setCaption(const QString& caption);
    /// What the empty field says (default: "not expressible").
    void setEmptyText(const QString& text);

private:
    QLabel* m_caption;
    QTextEdit* m_edit;
    QToolButton* m_copy;
    QLabel* m_notes;
};

} // namespace shardx::views
