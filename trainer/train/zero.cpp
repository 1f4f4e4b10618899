#include "train/zero.h"

#include <algorithm>

namespace traindeck::train {

std::vector<int64_t> shardCounts(int64_t elements, int world)
{
    std::vector<int64_t> counts(static_cast<size_t>(std::max(1, world)), elements / std::max(1, world));
    for (int64_t r = 0; r < elements % std::max(1, world); ++r)
        ++counts[static_cast<size_t>(r)];
    return counts;
}

std::vector<ShardPiece> piecesIn(const std::vector<int64_t>& paramSizes, int64_t begin, int64_t end)
{
    std::vector<ShardPiece> pieces;
    int64_t start = 0;
    for (size_t i = 0; i < paramSizes.size(); ++i) {
        const int64_t stop = start + paramSizes[i];
        const int64_t from = std::max(begin, start), to = std::min(end, stop);
        if (from < to)
            pieces.push_back({i, from - start, from, to - from});
        start = stop;
    }
    return pieces;
}

} // namespace traindeck::train
