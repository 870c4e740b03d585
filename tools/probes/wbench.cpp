// How fast this machine puts bytes into files: the bound on streamed renders (docs/streaming.md, "GPU path
// >= 0.7 of the copy bandwidth"). A standalone probe, not part of the build:
//   g++ -O2 -std=c++17 -pthread tools/probes/wbench.cpp -o wbench
//   ./wbench DIR GIB MODE:THREADS[:WINDOW_MIB]...
// Modes: write (one file, one thread), files (THREADS files, a thread each), pwrite (one file, each thread
// its share at its offset), mmap (one file, each thread copying into windows of its share), odirect (pwrite
// with O_DIRECT: the disk, not the page cache). Each run writes GIB GiB from 4 MiB buffers, then syncs
// (timed apart) and deletes its files. Measured on the H200 machine's ext4, 8 GiB: write 1.64 GB/s, files:8
// 20.8, pwrite:8 3.71, mmap:8 3.35, odirect:8 1.88.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>
using clk = std::chrono::steady_clock;
static size_t total;
static const size_t chunk = 4 << 20;
static std::vector<char*> src;
static double secs(clk::time_point a) { return std::chrono::duration<double>(clk::now() - a).count(); }
static void die(const char* m) { perror(m); exit(1); }
double run(const std::string& dir, const std::string& mode, int nt, size_t win) {
  std::string p = dir + "/wb.bin";
  std::vector<int> fds;
  int flags = O_WRONLY | O_CREAT | O_TRUNC;
  if (mode == "odirect") flags |= O_DIRECT;
  if (mode == "mmap") flags = O_RDWR | O_CREAT | O_TRUNC;
  int nf = mode == "files" ? nt : 1;
  for (int f = 0; f < nf; ++f) {
    int fd = open((p + std::to_string(f)).c_str(), flags, 0600);
    if (fd < 0) die("open");
    if (mode != "files" && mode != "write" && ftruncate(fd, total)) die("ftruncate");
    fds.push_back(fd);
  }
  auto t0 = clk::now();
  std::vector<std::thread> th;
  for (int k = 0; k < nt; ++k) th.emplace_back([&, k] {
    const char* s = src[k];
    if (mode == "write") {
      for (size_t o = 0; o < total; o += chunk) if (write(fds[0], s, chunk) != (ssize_t)chunk) die("write");
    } else if (mode == "files") {
      for (size_t o = 0; o < total / nt; o += chunk) if (write(fds[k], s, chunk) != (ssize_t)chunk) die("write");
    } else if (mode == "pwrite" || mode == "odirect") {
      // contiguous share per thread
      size_t per = total / nt, b = k * per;
      for (size_t o = 0; o < per; o += chunk) if (pwrite(fds[0], s, chunk, b + o) != (ssize_t)chunk) die("pwrite");
    } else if (mode == "mmap") {
      size_t per = total / nt, b = k * per;
      for (size_t o = 0; o < per; o += win) {
        size_t n = std::min(win, per - o);
        char* m = (char*)mmap(nullptr, n, PROT_WRITE, MAP_SHARED, fds[0], b + o);
        if (m == MAP_FAILED) die("mmap");
        for (size_t q = 0; q < n; q += chunk) memcpy(m + q, s, std::min(chunk, n - q));
        munmap(m, n);
      }
    }
  });
  for (auto& t : th) t.join();
  double e = secs(t0);
  for (int fd : fds) close(fd);
  auto t1 = clk::now();
  sync();
  double sy = secs(t1);
  for (int f = 0; f < nf; ++f) unlink((p + std::to_string(f)).c_str());
  sync();
  printf("%s %s threads %d win %zu MiB: %.2f GB/s (%.2f s), then sync %.2f s\n", dir.c_str(), mode.c_str(), nt,
         win >> 20, total / e / 1e9, e, sy);
  fflush(stdout);
  return e;
}
int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: wbench DIR GIB MODE:THREADS[:WINDOW_MIB]...\n");
    return 2;
  }
  std::string dir = argv[1];
  total = size_t(atof(argv[2]) * (1ull << 30));
  for (int k = 0; k < 16; ++k) {
    char* b = (char*)aligned_alloc(4096, chunk);
    for (size_t i = 0; i < chunk; ++i) b[i] = char(rand());
    src.push_back(b);
  }
  for (int i = 3; i < argc; ++i) {  // mode:threads[:winMiB]
    std::string a = argv[i];
    auto c1 = a.find(':'), c2 = a.find(':', c1 + 1);
    std::string mode = a.substr(0, c1);
    int nt = atoi(a.substr(c1 + 1, c2 - c1 - 1).c_str());
    size_t win = c2 == std::string::npos ? 64 : atoi(a.substr(c2 + 1).c_str());
    run(dir, mode, nt, win << 20);
  }
}
