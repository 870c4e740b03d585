// A small fork-join helper for the CPU backend: splits [begin, end) into contiguous chunks, one per thread.
#pragma once
#include <functional>

namespace satlab {

// Number of worker threads used when a caller passes threads <= 0.
int default_threads();

// Calls fn(chunk_begin, chunk_end) on up to `threads` threads (<= 0: default_threads()) and joins.
// Exceptions thrown by fn are rethrown (the first one) on the calling thread.
void parallel_for(long begin, long end, const std::function<void(long, long)>& fn, int threads = 0);

}  // namespace satlab
