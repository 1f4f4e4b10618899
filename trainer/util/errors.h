// Error types of the trainer. main() maps InputError to exit code 2 (bad input: a file, flag or
// configuration a person must fix) and RuntimeFailure to exit code 1.
#pragma once

#include <stdexcept>
#include <string>

namespace traindeck {

class InputError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class RuntimeFailure : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

} // namespace traindeck
