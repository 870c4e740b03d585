#include "app/cli/cli.hpp"

#include <cstdio>

namespace satlab::cli {

int run(int, char**) {
  std::fprintf(stderr, "satlab: not built yet\n");
  return 1;
}

}  // namespace satlab::cli
