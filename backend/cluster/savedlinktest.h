// A profile's last link test, kept so that a run's diagnosis can compare the allreduce it achieved
// with what the links between its hosts measured (docs/users/diagnosis.md): the checks area writes it after
// a link test, the operations layer reads it for a run of that profile.
//   $XDG_CONFIG_HOME/traindeck/links/<profile>.json
#pragma once

#include "common/result.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QList>
#include <QString>

namespace traindeck::cluster {

struct SavedLink {
    QString hostA, hostB;     // host names the ranks reported
    double bandwidthMbps = 0; // one way, megabit/s
    double latencyUs = 0;     // one way
};

struct SavedLinkTest {
    Q_DECLARE_TR_FUNCTIONS(traindeck::cluster::SavedLinkTest)

  public:
    QString profile;
    QDateTime measuredAt;
    QList<SavedLink> links;

    static QString pathFor(const QString& profile);
    // Written whole (temporary file, then rename), 0600 like the profiles.
    Status save() const;
    // An error naming the file when there is none for the profile or it is damaged.
    static Result<SavedLinkTest> load(const QString& profile);
};

} // namespace traindeck::cluster
