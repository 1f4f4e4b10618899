// --screenshots DIR: writes a PNG of every page (and every Monitor tab) of a main window.
#pragma once

#include <QString>
#include <QStringList>

namespace traindeck::gui {

class MainWindow;

// Returns the files written; errors go to *error.
QStringList writeScreenshots(MainWindow* window, const QString& dir, QString* error = nullptr);

} // namespace traindeck::gui
