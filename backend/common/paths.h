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
// $TRAINDECK_CACHE, else $XDG_CACHE_HOME/traindeck: the demo inputs (corpus, the Qwen tokenizer from
// npm) that scripts/setup-deps.sh puts there. The shell scripts compute the same directory.
QString cacheDir();

} // namespace traindeck::paths
