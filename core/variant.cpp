#include "core/variant.hpp"

namespace satlab {

const char* to_string(Family f) {
  switch (f) {
    case Family::Reduce: return "reduce";
    case Family::Scan: return "scan";
    case Family::Sat: return "sat";
    case Family::Dof: return "dof";
    case Family::Compact: return "compact";
    case Family::Sort: return "sort";
    case Family::Refine: return "refine";
    case Family::Select: return "select";
    case Family::Temporal: return "temporal";
  }
  return "?";
}

const char* to_string(DType t) {
  switch (t) {
    case DType::I32: return "i32";
    case DType::U32: return "u32";
    case DType::F32: return "f32";
    case DType::U8: return "u8";
    case DType::RGBA8: return "rgba8";
    case DType::RGBA16:
      return "rgba16";
  }
  return "?";
}

const char* to_string(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Min: return "min";
    case ReduceOp::Max: return "max";
  }
  return "?";
}

size_t dtype_size(DType t) {
  switch (t) {
    case DType::I32:
    case DType::U32:
    case DType::F32: return 4;
    case DType::U8: return 1;
    case DType::RGBA8: return 4;
    case DType::RGBA16:
      return 8;
  }
  return 0;
}

}  // namespace satlab
