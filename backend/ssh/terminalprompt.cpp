#include "ssh/terminalprompt.h"

#include <cstdio>
#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

namespace traindeck::ssh {

namespace {

std::optional<QByteArray> readLineFd(int fd)
{
    QByteArray line;
    char c;
    bool any = false;
    for (;;) {
        const ssize_t n = ::read(fd, &c, 1);
        if (n <= 0)
            break;
        any = true;
        if (c == '\n')
            break;
        line.append(c);
    }
    if (!any)
        return std::nullopt;
    if (line.endsWith('\r'))
        line.chop(1);
    return line;
}

} // namespace

bool stdinIsTerminal()
{
    return ::isatty(STDIN_FILENO) == 1;
}

std::optional<QByteArray> readSecretFromTerminal(const QString& prompt)
{
    const int fd = ::open("/dev/tty", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    const QByteArray p = prompt.toLocal8Bit() + ' ';
    (void)!::write(fd, p.constData(), size_t(p.size()));
    termios old{};
    const bool haveTermios = ::tcgetattr(fd, &old) == 0;
    if (haveTermios) {
        termios quiet = old;
        quiet.c_lflag &= ~tcflag_t(ECHO);
        quiet.c_lflag |= ECHONL;
        ::tcsetattr(fd, TCSAFLUSH, &quiet);
    }
    std::optional<QByteArray> line = readLineFd(fd);
    if (haveTermios)
        ::tcsetattr(fd, TCSAFLUSH, &old);
    ::close(fd);
    return line;
}

bool askYesNoOnTerminal(const QString& question)
{
    const int fd = ::open("/dev/tty", O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return false;
    const QByteArray q = question.toLocal8Bit() + " [y/N] ";
    (void)!::write(fd, q.constData(), size_t(q.size()));
    const std::optional<QByteArray> answer = readLineFd(fd);
    ::close(fd);
    if (!answer)
        return false;
    const QByteArray a = answer->trimmed().toLower();
    return a == "y" || a == "yes";
}

std::optional<QByteArray> readLineFromStdin()
{
    return readLineFd(STDIN_FILENO);
}

} // namespace traindeck::ssh
