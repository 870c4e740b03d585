#pragma once

namespace satlab::cli {

// Parses the command line and runs the GUI or a headless command; returns the process exit code.
int run(int argc, char** argv);

}  // namespace satlab::cli
