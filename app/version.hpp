// The version of this build: the project's (CMakeLists.txt) and the git revision of the source tree it
// was built from ("unknown" without git; "-dirty" with uncommitted changes), baked in at build time by
// cmake/version.cmake.
#pragma once

namespace satlab {

extern const char* const kVersion;
extern const char* const kGitRevision;

}  // namespace satlab
