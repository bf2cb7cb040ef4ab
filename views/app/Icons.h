// Icons: the project's SVG icon set (resources/icons), drawn in the palette's text colour.
#pragma once

#include <QIcon>
#include <QString>

class QWidget;

namespace shardx::views {

/// The icon `name` (resources/icons/<name>.svg). The SVG's `currentColor` is painted in the
/// palette's text colour at draw time (disabled: the disabled colour), so icons follow the light
/// and dark palettes and stay sharp at any device pixel ratio.
QIcon themedIcon(const QString& name);
/// The application icon (in its own colours).
QIcon appIcon();
/// Repaints `root` and its children after a palette change.
void refreshIcons(QWidget* root);

} // namespace shardx::views
