#include "app/cli/child_run.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "core/error.hpp"
#include "gpu/device.hpp"

extern char** environ;

namespace satlab::cli {

ChildRun run_child(const std::vector<std::string>& args, bool sample_device, const std::string& log, const char* what) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const size_t before = sample_device ? gpu::device_memory_in_use() : 0;
  std::atomic<bool> done{false};
  std::atomic<size_t> peak{before};
  std::thread sampler;
  if (sample_device)
    sampler = std::thread([&] {
      while (!done) {
        const size_t now = gpu::device_memory_in_use();
        if (now > peak) peak = now;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  posix_spawn_file_actions_t quiet;  // its stdout (render's "wrote" line) away; its notes stay on stderr
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  if (!log.empty())
    posix_spawn_file_actions_addopen(&quiet, STDERR_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  const int err = posix_spawn(&pid, argv[0], &quiet, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&quiet);
  int status = 0;
  rusage ru{};
  if (err == 0) wait4(pid, &status, 0, &ru);
  const auto t1 = std::chrono::steady_clock::now();
  done = true;
  if (sampler.joinable()) sampler.join();
  std::string line;
  for (const auto& a : args) line += (line.empty() ? "" : " ") + a;
  if (err != 0) throw Error("cannot start " + line + ": " + std::strerror(err));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) throw Error(std::string(what) + ": failed: " + line);
  ChildRun c;
  c.wall_s = std::chrono::duration<double>(t1 - t0).count();
  c.peak_rss = uint64_t(ru.ru_maxrss) * 1024;
  c.peak_device = peak > before ? peak - before : 0;
  return c;
}

std::string self_path() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find satlab's own binary (/proc/self/exe)");
  return p.string();
}

}  // namespace satlab::cli
