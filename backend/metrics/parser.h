// Incremental parser for metrics.jsonl (docs/reference/metrics-protocol.md), built on simdjson on-demand.
//
// Feed it bytes in any pieces; it consumes complete lines only and keeps the incomplete tail.
// offset() is the byte offset (in the stream) of the first unconsumed byte, i.e. just after the last
// complete line: a reader that stops and later calls reset(offset(), lineNumber()) on a fresh parser
// and feeds the stream from that offset sees every record exactly once.
#pragma once

#include "metrics/records.h"

#include <QByteArrayView>

#include <memory>

class QIODevice;

namespace traindeck::metrics {

struct ParserStats {
    qint64 lines = 0;        // complete lines consumed (blank and malformed included)
    qint64 records = 0;      // records delivered to the sink
    qint64 malformed = 0;    // lines reported as issues
    qint64 blank = 0;        // empty / whitespace-only lines (skipped, not issues)
    qint64 unknownTypes = 0; // well-formed records of a type this reader does not know (skipped)
    qint64 bytes = 0;        // bytes consumed (complete lines)
};

class MetricsParser {
  public:
    static constexpr qint64 kDefaultMaxLineBytes = 1 << 20;
    static constexpr int kMaxKeptIssues = 1000;

    explicit MetricsParser(MetricsSink* sink = nullptr);
    ~MetricsParser();
    MetricsParser(const MetricsParser&) = delete;
    MetricsParser& operator=(const MetricsParser&) = delete;

    void setSink(MetricsSink* sink);
    MetricsSink* sink() const;

    // Forget buffered bytes and statistics; the next byte fed is at stream offset startOffset and
    // starts line startLine + 1. World size is forgotten too (see setWorldSize).
    void reset(qint64 startOffset = 0, qint64 startLine = 0);

    // Number of ranks the per-rank arrays must have. 0 (default): taken from `hello`, or else from
    // the first `step` seen. Set it when resuming mid-file after the `hello` line.
    void setWorldSize(int n);
    int worldSize() const;

    void setMaxLineBytes(qint64 n);

    // Consume bytes; returns the number of complete lines processed by this call.
    qint64 feed(QByteArrayView bytes);
    qint64 feed(const char* data, qint64 size) { return feed(QByteArrayView(data, size)); }
    // Read everything the device has available now (until read() returns 0/-1); returns bytes read.
    qint64 feed(QIODevice* device);
    // End of input: a non-empty incomplete last line is reported as malformed ("incomplete last
    // line") and dropped. Not needed while tailing a live file.
    void finish();

    // Stream offset just after the last complete line (the resume point).
    qint64 offset() const;
    // Complete lines consumed so far (including startLine given to reset()).
    qint64 lineNumber() const;
    // Bytes held back because their line is not complete yet.
    qint64 pendingBytes() const;

    const ParserStats& stats() const;
    // The first kMaxKeptIssues issues (all issues also go to the sink).
    const QList<ParseIssue>& issues() const;

  private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace traindeck::metrics
