// Deterministic replay of a fuzz corpus without libFuzzer: runs LLVMFuzzerTestOneInput on every file
// named on the command line (or in the folders named), so CI re-checks every committed input.
#include <dirent.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static int run_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return 1;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  return 0;
}

int main(int argc, char** argv) {
  int files = 0, errors = 0;
  for (int i = 1; i < argc; ++i) {
    struct stat st {};
    if (stat(argv[i], &st) != 0) {
      std::fprintf(stderr, "missing %s\n", argv[i]);
      return 1;
    }
    if (S_ISDIR(st.st_mode)) {
      DIR* d = opendir(argv[i]);
      std::vector<std::string> names;
      while (dirent* e = readdir(d))
        if (e->d_name[0] != '.') names.push_back(std::string(argv[i]) + "/" + e->d_name);
      closedir(d);
      for (const auto& n : names) errors += run_file(n), ++files;
    } else {
      errors += run_file(argv[i]), ++files;
    }
  }
  std::printf("replayed %d inputs\n", files);
  return errors || files == 0 ? 1 : 0;
}
