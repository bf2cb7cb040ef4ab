// BreakpointModel: the debugger's breakpoints as a checkable list (checked = enabled).
#pragma once

#include <QAbstractListModel>

#include "core/trace/Breakpoints.h"

namespace shardx::views {

class SessionContext;

/// Mirrors SessionContext::breakpoints(); checking a row enables it, setData writes back.
class BreakpointModel : public QAbstractListModel {
    Q_OBJECT

public:
    enum Role { HitsRole = Qt::UserRole }; ///< int: steps of the trace the breakpoint hits

    explicit BreakpointModel(SessionContext& context, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

private:
    void reload();

    SessionContext& m_context;
    std::vector<Breakpoint> m_breakpoints;
    std::vector<int> m_hits;
};

} // namespace shardx::views
