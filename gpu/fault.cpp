#include "gpu/fault.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace satlab::gpu {
namespace {

std::mutex g_mutex;
int g_countdown[2] = {0, 0};  // per Fault: checks left until the armed one fails; 0: none armed
int g_injected = 0;

void arm(Fault f, int n) {
  std::lock_guard<std::mutex> lock(g_mutex);
  int& c = g_countdown[int(f)];
  if (c == 0 && n > 0) detail::g_faults_armed.fetch_add(1);
  if (c != 0 && n <= 0) detail::g_faults_armed.fetch_sub(1);
  c = n > 0 ? n : 0;
}

// SATLAB_FAULT=alloc:N,launch:M for scripted runs.
const bool g_from_env = [] {
  const char* e = std::getenv("SATLAB_FAULT");
  if (!e || !*e) return false;
  std::string spec = e;
  size_t start = 0;
  while (start <= spec.size()) {
    const size_t end = std::min(spec.find(',', start), spec.size());
    const std::string item = spec.substr(start, end - start);
    const size_t colon = item.find(':');
    const std::string kind = item.substr(0, colon);
    const int n = colon == std::string::npos ? 1 : std::atoi(item.c_str() + colon + 1);
    if ((kind == "alloc" || kind == "launch") && n > 0) {
      arm(kind == "alloc" ? Fault::Alloc : Fault::Launch, n);
    } else {
      std::fprintf(stderr, "satlab: SATLAB_FAULT item '%s' ignored (expected alloc:N or launch:N)\n", item.c_str());
    }
    start = end + 1;
  }
  return true;
}();

}  // namespace

std::atomic<int> detail::g_faults_armed{0};

bool detail::take_fault(Fault f) {
  std::lock_guard<std::mutex> lock(g_mutex);
  int& c = g_countdown[int(f)];
  if (c == 0 || --c != 0) return false;
  g_faults_armed.fetch_sub(1);
  ++g_injected;
  return true;
}

void testing::fail_next(Fault f, int n) { arm(f, n); }

void testing::clear_faults() {
  arm(Fault::Alloc, 0);
  arm(Fault::Launch, 0);
}

int testing::faults_injected() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_injected;
}

}  // namespace satlab::gpu
