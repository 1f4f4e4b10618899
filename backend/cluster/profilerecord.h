// What TrainDeck keeps per cluster profile besides the profile itself (the last link test, the nodes'
// memory): one JSON file per profile, $XDG_CONFIG_HOME/traindeck/<kind>/<profile>.json, with the profile's
// name and when it was measured, written whole and read back with errors that name the file.
#pragma once

#include "common/result.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonObject>
#include <QString>

namespace traindeck::cluster {

struct ProfileRecord {
    Q_DECLARE_TR_FUNCTIONS(traindeck::cluster::ProfileRecord)

  public:
    QDateTime measuredAt;
    QJsonObject body; // the record's own keys (besides "profile" and "measured_at")

    static QString pathFor(const QString& kind, const QString& profile);
    // Written whole (temporary file, then rename), 0600 like the profiles.
    static Status save(const QString& kind, const QString& profile, const QDateTime& measuredAt, QJsonObject body);
    // missing: the message when there is no file ("no link test saved for this profile"); what: what the
    // file should be ("a link test"), for a file too large to be one.
    static Result<ProfileRecord> load(const QString& kind, const QString& profile, const QString& missing,
                                      const QString& what);
};

} // namespace traindeck::cluster
