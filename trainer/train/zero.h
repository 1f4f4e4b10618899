// ZeRO-1 (--zero 1): which elements of each gradient bucket a rank owns. A bucket's elements are split
// into world-size contiguous ranges in rank order, as even as possible (the first elements % world
// ranks take one more), so shards are uneven when the size does not divide. A rank reduces, updates
// and keeps optimizer state only for its range. No LibTorch here, so it is cheap to test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace traindeck::train {

// Elements of each rank's range of a bucket of `elements`; they sum to `elements`.
std::vector<int64_t> shardCounts(int64_t elements, int world);

// The part of one parameter inside a range of its bucket.
struct ShardPiece {
    size_t param = 0;         // index into the bucket's parameters
    int64_t paramOffset = 0;  // first element inside the parameter
    int64_t bucketOffset = 0; // first element inside the bucket
    int64_t length = 0;
};

// The pieces of the parameters (their sizes, in bucket order) that fall inside [begin, end), in order.
std::vector<ShardPiece> piecesIn(const std::vector<int64_t>& paramSizes, int64_t begin, int64_t end);

} // namespace traindeck::train
