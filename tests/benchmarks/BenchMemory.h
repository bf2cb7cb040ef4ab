// Memory figures of the benchmark rows: the resident set, its peak, and the allocator's free pages given back.
#pragma once

#include <dlfcn.h>
#include <malloc.h>
#include <sys/resource.h>

#include <cstdint>
#include <fstream>
#include <string>

namespace shardx::bench {

/// A line of /proc/self/status in KiB (`VmRSS`, `VmHWM`), -1 when unknown.
inline int64_t procStatusKiB(const std::string& key)
{
    std::ifstream f("/proc/self/status");
    std::string line;
    while (std::getline(f, line))
        if (line.compare(0, key.size() + 1, key + ":") == 0)
            return std::stoll(line.substr(key.size() + 1));
    return -1;
}

/// The process's peak resident set so far (every row before included), MiB.
inline double peakRssMiB()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

/// Gives the pages the allocator holds free back to the system, so that a row's resident set counts
/// what is in use: glibc's through malloc_trim, jemalloc's (the programs' allocator, SHARDX_ALLOCATOR)
/// by purging every arena. jemalloc is found at run time: the benchmarks build without its header.
inline void releaseFreedMemory()
{
    malloc_trim(0);
    using Mallctl = int (*)(const char*, void*, size_t*, void*, size_t);
    static const auto mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"));
    if (mallctl)
        mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0); // 4096: MALLCTL_ARENAS_ALL
}

/// Resets the process's peak resident set (VmHWM) to its current size; false when the kernel does
/// not allow it.
inline bool resetPeakRss()
{
    std::ofstream f("/proc/self/clear_refs");
    return f && (f << "5").flush();
}

} // namespace shardx::bench
