// NPP's nppiIntegral_8u32s as an external SAT baseline, loaded at run time (dlopen of libnppist and
// libnppc), so satlab builds and runs where NPP is absent; the variant then refuses with the reason.
#pragma once
#include "core/variant.hpp"

namespace satlab::gpu {

Variant npp_integral_variant();

}  // namespace satlab::gpu
