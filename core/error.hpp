// One exception type for everything the user can cause (bad files, sizes, missing devices): its message
// is the one clear line the CLI prints and the GUI shows in its error popup.
#pragma once
#include <stdexcept>
#include <string>

namespace satlab {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace satlab
