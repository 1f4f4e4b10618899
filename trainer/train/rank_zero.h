// What rank 0 has, every rank gets (broadcasts); what every rank has, rank 0 gets (gathers of figures).
#pragma once

#include "dist/communicator.h"

#include <iterator>
#include <string>
#include <vector>

namespace traindeck::train {

// Rank 0's values of a tensor on every rank; device tensors go through host memory for MPI (NCCL takes
// them as they are).
void broadcastFromRankZero(dist::Communicator& comm, at::Tensor tensor);

// Rank 0's string on every rank (its length first, then its bytes).
std::string broadcastString(dist::Communicator& comm, const std::string& value);

// Figures every rank sends to rank 0 in one gather of doubles. A struct lists its fields once, in gather
// order (`fields`, each naming its member); toArray/fromArray follow that list, so no code indexes the
// flat array MPI carries.
template <class T> struct Gathered {
    std::vector<double> toArray() const
    {
        std::vector<double> values;
        values.reserve(std::size(T::fields));
        for (const auto& field : T::fields)
            values.push_back(static_cast<const T&>(*this).*field.member);
        return values;
    }

    static T fromArray(const double* values)
    {
        T result;
        for (const auto& field : T::fields)
            result.*field.member = *values++;
        return result;
    }

    // Every rank's figures at rank 0, index = rank; empty on the other ranks.
    static std::vector<T> gatherAtRankZero(dist::Communicator& comm, const T& local)
    {
        const auto all = comm.gather(local.toArray(), 0);
        const size_t n = std::size(T::fields);
        std::vector<T> ranks;
        for (size_t offset = 0; offset + n <= all.size(); offset += n)
            ranks.push_back(fromArray(all.data() + offset));
        return ranks;
    }
};

} // namespace traindeck::train
