#include "train/rank_zero.h"

#include <algorithm>
#include <cstring>

namespace traindeck::train {

void broadcastFromRankZero(dist::Communicator& comm, torch::Tensor tensor)
{
    if (comm.size() == 1)
        return;
    if ((tensor.device().is_cpu() || comm.acceptsDeviceTensors()) && tensor.is_contiguous()) {
        comm.broadcast(tensor, 0);
        return;
    }
    auto host = tensor.to(torch::kCPU).contiguous();
    comm.broadcast(host, 0);
    tensor.copy_(host);
}

std::string broadcastString(dist::Communicator& comm, const std::string& value)
{
    if (comm.size() == 1)
        return value;
    auto length = torch::tensor({static_cast<int64_t>(value.size())}, torch::kInt64);
    comm.broadcast(length, 0);
    auto bytes = torch::zeros({std::max<int64_t>(1, length.item<int64_t>())}, torch::kUInt8);
    if (comm.rank() == 0 && !value.empty())
        std::memcpy(bytes.data_ptr(), value.data(), value.size());
    comm.broadcast(bytes, 0);
    return std::string(static_cast<const char*>(bytes.data_ptr()), static_cast<size_t>(length.item<int64_t>()));
}

} // namespace traindeck::train
