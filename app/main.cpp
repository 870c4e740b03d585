// satlab: GPU summed-area-table image filters. The command line decides between the GUI and the
// headless commands (app/cli).
#include "app/cli/cli.hpp"

int main(int argc, char** argv) { return satlab::cli::run(argc, argv); }
