// Fuzz target: satlab::io::parse_preset on arbitrary bytes. Any input must either throw satlab::Error or
// give a preset whose parameters and synthetic depth are valid and which survives a round trip
// (preset_to_json, parsed again, gives the same JSON); crashes, leaks, hangs, other exceptions (an
// nlohmann exception escaping, a validate() failure) and a changed round trip are findings.
#include <cstdint>
#include <string>
#include <string_view>

#include "app/io/preset.hpp"
#include "core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  satlab::io::Preset preset;
  try {
    preset = satlab::io::parse_preset(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const satlab::Error&) {
    return 0;
  }
  satlab::validate(preset.params);
  satlab::validate(preset.synthetic);
  const std::string json = satlab::io::preset_to_json(preset);
  if (satlab::io::preset_to_json(satlab::io::parse_preset(json)) != json) __builtin_trap();
  return 0;
}
