// Filter parameters named on a command line (`satlab render`, the app), laid over other parameters: the
// defaults or a preset's. Only the fields whose options were given are copied, so a preset keeps the rest.
#pragma once
#include <string>
#include <vector>

#include "core/params.hpp"

namespace satlab {

struct ParamOverlay {
  Params values;                    // the given options' values (the other fields: defaults, unused)
  std::vector<std::string> given;   // the options given, by name: "--focus", "--dof-mode", ...

  // Adds `option` to `given`; throws satlab::Error for a name that is no filter parameter option.
  void give(const std::string& option);
  bool has(const std::string& option) const;
  bool empty() const { return given.empty(); }
  // `base` with the given fields replaced.
  Params over(Params base) const;
  // Lens preset l's fields (LensPreset::apply) for those of its options not given (the flags beside a
  // --lens win), given from now on.
  void take_lens(const LensPreset& l);
};

// The filter parameter options, each setting one Params field: --filter, --radius, --focus, ...
const std::vector<std::string>& param_option_names();

}  // namespace satlab
