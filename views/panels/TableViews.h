// TableViews: the look and behaviour the list tables of the panels share.
#pragma once

class QTableView;

namespace shardx::views {

/// Makes `view` a read-only list: whole rows selected one at a time, no row numbers, compact rows
/// with alternating colours, the last column stretched, and sorting by a click on a header (a
/// third click goes back to the model's order, which is also the order at first).
void setUpListTable(QTableView* view);

} // namespace shardx::views
