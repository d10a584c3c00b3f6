/* LD_PRELOAD shim that makes a disk look full (docs/reliability.md#inputs-and-outputs), for
 * tests/scripts/hardening_outputs.sh: needs no mount and no privilege. Writes to a file whose path
 * contains $TRAILS_ENOSPC_MATCH stop at byte $TRAILS_ENOSPC_AFTER (default 0) of the file: the
 * write that crosses it is short, the next fails with ENOSPC. write, pwrite, writev and fwrite are
 * covered (libstdc++ streams call write/writev; cairo's PNG writer, in gnuplot, calls fwrite).
 * Child processes inherit it through LD_PRELOAD. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* Bytes the file open on fd may still take at `offset`; -1 when it is not a matching file. */
static long long room(int fd, long long offset) {
  const char* match = getenv("TRAILS_ENOSPC_MATCH");
  if (match == NULL || *match == '\0' || fd < 0) return -1;
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return -1;
  path[n] = '\0';
  if (strstr(path, match) == NULL) return -1;
  const char* after = getenv("TRAILS_ENOSPC_AFTER");
  const long long limit = after ? atoll(after) : 0;
  return offset >= limit ? 0 : limit - offset;
}

static size_t clip(int fd, long long offset, size_t count, int* full) {
  const long long left = room(fd, offset);
  *full = 0;
  if (left < 0 || (long long)count <= left) return count;
  *full = left == 0;
  return (size_t)left;
}

ssize_t write(int fd, const void* buf, size_t count) {
  static ssize_t (*real)(int, const void*, size_t);
  if (!real) real = (ssize_t(*)(int, const void*, size_t))dlsym(RTLD_NEXT, "write");
  int full;
  const size_t n = clip(fd, lseek(fd, 0, SEEK_CUR), count, &full);
  if (full) return errno = ENOSPC, -1;
  return real(fd, buf, n);
}

ssize_t pwrite(int fd, const void* buf, size_t count, off_t offset) {
  static ssize_t (*real)(int, const void*, size_t, off_t);
  if (!real) real = (ssize_t(*)(int, const void*, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
  int full;
  const size_t n = clip(fd, offset, count, &full);
  if (full) return errno = ENOSPC, -1;
  return real(fd, buf, n, offset);
}

ssize_t pwrite64(int fd, const void* buf, size_t count, off_t offset) {
  return pwrite(fd, buf, count, offset);
}

ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  static ssize_t (*real)(int, const struct iovec*, int);
  if (!real) real = (ssize_t(*)(int, const struct iovec*, int))dlsym(RTLD_NEXT, "writev");
  if (room(fd, 0) < 0) return real(fd, iov, iovcnt);
  /* A matching file: one buffer at a time, through write() above. */
  ssize_t done = 0;
  for (int i = 0; i < iovcnt; ++i) {
    const ssize_t n = write(fd, iov[i].iov_base, iov[i].iov_len);
    if (n < 0) return done > 0 ? done : -1;
    done += n;
    if ((size_t)n < iov[i].iov_len) break;
  }
  return done;
}

size_t fwrite(const void* ptr, size_t size, size_t nmemb, FILE* stream) {
  static size_t (*real)(const void*, size_t, size_t, FILE*);
  if (!real) real = (size_t(*)(const void*, size_t, size_t, FILE*))dlsym(RTLD_NEXT, "fwrite");
  if (size == 0) return real(ptr, size, nmemb, stream);
  int full;
  const size_t bytes = clip(fileno(stream), ftell(stream), size * nmemb, &full);
  if (bytes == size * nmemb) return real(ptr, size, nmemb, stream);
  errno = ENOSPC;
  return full ? 0 : real(ptr, size, bytes / size, stream);
}
