// --screenshots DIR: writes a PNG of every page (and every Monitor tab) of a main window.
#pragma once

#include "common/result.h"

#include <QString>
#include <QStringList>

namespace traindeck::gui {

class MainWindow;

// The files written; fails when the directory cannot be made or any picture cannot be written (the
// failure's diagnostics name each).
Result<QStringList> writeScreenshots(MainWindow* window, const QString& dir);

} // namespace traindeck::gui
