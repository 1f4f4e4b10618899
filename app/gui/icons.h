// Page and application icons, painted in code (no SVG image plugin needed); the SVG files in
// resources/icons are the same drawings for the desktop entry.
#pragma once

#include <QIcon>
#include <QString>

namespace traindeck::gui {

// "traindeck", "monitor", "runs", "launch", "cluster", "checks", "settings".
QIcon appIcon(const QString& name);

} // namespace traindeck::gui
