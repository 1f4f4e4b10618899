// QCustomPlot for targets built with QT_NO_KEYWORDS: its header uses `signals` and `foreach`.
#pragma once

#ifndef signals
#define signals Q_SIGNALS
#define TRAINDECK_QCP_UNDEF_SIGNALS
#endif
#ifndef foreach
#define foreach Q_FOREACH
#define TRAINDECK_QCP_UNDEF_FOREACH
#endif

#include <qcustomplot.h>

#ifdef TRAINDECK_QCP_UNDEF_SIGNALS
#undef signals
#undef TRAINDECK_QCP_UNDEF_SIGNALS
#endif
#ifdef TRAINDECK_QCP_UNDEF_FOREACH
#undef foreach
#undef TRAINDECK_QCP_UNDEF_FOREACH
#endif
