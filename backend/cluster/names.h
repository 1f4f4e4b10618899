// Validation of host and user names shared by hostfiles and cluster profiles.
#pragma once

#include <QCoreApplication>
#include <QString>

namespace traindeck::cluster {

struct NameCheck {
    bool ok = true;
    int offset = 0;  // index of the offending character in the checked string
    QString message; // translated; empty when ok
};

class Names {
    Q_DECLARE_TR_FUNCTIONS(traindeck::cluster::Names)

  public:
    // An RFC 1123 host name (letters, digits, '-', dot-separated labels of 1..63, at most 253), an
    // IPv4 address or, when allowIpv6, an IPv6 address. Never anything starting with '-'.
    static NameCheck checkHost(const QString& host, bool allowIpv6 = true);
    // A POSIX-style login name: [A-Za-z_][A-Za-z0-9_.-]* (optionally ending in '$'), at most 32.
    static NameCheck checkUser(const QString& user);
    // A profile name usable as a file name: [A-Za-z0-9][A-Za-z0-9._-]*, at most 64.
    static NameCheck checkProfileName(const QString& name);
    // An environment variable name: [A-Za-z_][A-Za-z0-9_]*.
    static NameCheck checkEnvName(const QString& name);
    // True for keys that name a secret, judged by the words of the key: a word that is PASSWORD, PWD, TOKEN,
    // SECRET, KEY, PAT, CREDENTIAL (or their variants), or one that contains PASSWORD, PASSWD, PASSPHRASE,
    // SECRET or CREDENTIAL ("PGPASSWORD"). "HF_TOKEN", "MYSQL_PWD", "GITHUB_PAT", "OPENAI_KEY" are;
    // "TOKENIZERS_PARALLELISM", "tokens_per_s" are not, nor are the settings of the MPI, NCCL, CUDA and
    // OpenMP runtimes (NCCL_*, OMPI_*, CUDA_*, ...: their names only look like it, e.g. NCCL_IB_PKEY), nor
    // the shell's PWD and OLDPWD.
    static bool looksLikeSecretKey(const QString& key);
    // True for values that carry key material inline ("-----BEGIN ... PRIVATE KEY-----").
    static bool looksLikeSecretValue(const QString& value);
};

} // namespace traindeck::cluster
