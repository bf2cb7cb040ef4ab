// SourcePanel: the file as written, with line numbers; shows the line of a problem or of the selection.
#pragma once

#include <QPlainTextEdit>
#include <QWidget>

namespace shardx::views {

class SessionContext;

/// A read-only text view with a line-number gutter.
class SourceView : public QPlainTextEdit {
    Q_OBJECT

public:
    explicit SourceView(QWidget* parent = nullptr);
    int gutterWidth() const;
    /// Highlights `line` (1-based) and puts the cursor at `col`, scrolled to the middle.
    void showLine(int line, int col);
    int highlightedLine() const { return m_line; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    friend class Gutter;
    void paintGutter(QPaintEvent* event);
    QWidget* m_gutter;
    int m_line = 0;
};

class SourcePanel : public QWidget {
    Q_OBJECT

public:
    explicit SourcePanel(SessionContext& context, QWidget* parent = nullptr);
    SourceView* view() const { return m_view; }
    /// Loads `file` unless it is already shown; false when it cannot be read.
    bool load(const QString& file);
    /// The file opened last, when it is not loaded yet (the panel loads it when first shown).
    const QString& pendingFile() const { return m_pending; }
    /// Whether the panel's dock is the one shown among its tabs (QDockWidget::visibilityChanged: a
    /// dock behind another tab is still a visible widget); the text is read when it comes to the front.
    void setDockShown(bool shown);

protected:
    void showEvent(QShowEvent* event) override;

private:
    SessionContext& m_context;
    SourceView* m_view;
    QString m_file;
    /// The program opened but not loaded: its text (as large as the file, and a layout per line)
    /// is read only when the panel is shown or a line of it is asked for.
    QString m_pending;
    bool m_dockShown = true; ///< outside a dock, shown whenever visible
};

} // namespace shardx::views
