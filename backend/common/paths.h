// Where TrainDeck keeps its files by default (XDG base directories).
#pragma once

#include <QString>

namespace traindeck::paths {

// $XDG_CONFIG_HOME/traindeck: cluster profiles.
QString configDir();
// $XDG_DATA_HOME/traindeck: run history.
QString dataDir();
// dataDir()/runs unless overridden by --runs-dir.
QString defaultRunsDir();

}  // namespace traindeck::paths
