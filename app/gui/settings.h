// User settings (QSettings "TrainDeck/traindeck"): runs directory, language, plot palette, refresh.
#pragma once

#include "plotstyle.h"

#include <QString>

namespace traindeck::gui {

class Settings {
  public:
    // Where runs live; default traindeck::paths::defaultRunsDir(). A --runs-dir flag overrides it for
    // the session (setRunsDirOverride).
    static QString runsDir();
    static void setRunsDir(const QString& dir);
    static void setRunsDirOverride(const QString& dir);

    // "" follows the system locale; otherwise a locale name such as "en" or "zh_CN".
    static QString language();
    static void setLanguage(const QString& language);

    static PaletteKind paletteKind();
    static void setPaletteKind(PaletteKind kind);

    // Monitor refresh period in ms (coalesced redraws), 50..2000, default 100.
    static int refreshMs();
    static void setRefreshMs(int ms);

    // The model directory of the DeepSeek-R1-Distill-Qwen-1.5B preset (Launch page).
    static QString modelDir();
    static void setModelDir(const QString& dir);
};

} // namespace traindeck::gui
