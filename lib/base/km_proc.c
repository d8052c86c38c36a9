/* km_proc: posix_spawn with a pipe for output (km_proc.h). */
#include "km_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ks_text.h"

extern char **environ;

char *km_proc_which(const char *name)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? realpath(name, NULL) : NULL;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    char *copy = strdup(path), *save = NULL;
    char *found = NULL;
    bool oom = !copy;
    for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir && !found && !oom;
         dir = strtok_r(NULL, ":", &save)) {
        char *cand = ks_strf("%s/%s", *dir ? dir : ".", name);
        if (!cand) {
            oom = true;
            break;
        }
        struct stat st;
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
            found = realpath(cand, NULL);
            oom = !found && errno == ENOMEM;
        }
        free(cand);
    }
    free(copy);
    if (!found)
        errno = oom ? ENOMEM : ENOENT;
    return found;
}

/* km_proc_run with stdin from the file `in` (-1: /dev/null). */
static int run_from(char *const argv[], const char *dir, int in, char **output, int *status,
                    km_line_fn on_line, void *ctx, km_error *err)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot run '%s'", argv[0]);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (in >= 0)
        posix_spawn_file_actions_adddup2(&fa, in, 0);
    else
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
    if (dir)
        posix_spawn_file_actions_addchdir_np(&fa, dir);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        errno = rc;
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot run '%s'", argv[0]);
    }
    size_t cap = 4096, len = 0, line_start = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (buf && cap - len < 2048) {
            char *more = realloc(buf, cap * 2);
            if (!more)
                free(buf);
            buf = more;
            cap *= 2;
        }
        if (!buf)
            break; /* out of memory: the rest drained below, then an error */
        ssize_t r = read(fds[0], buf + len, cap - len - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        len += (size_t)r;
        if (!on_line)
            continue;
        for (size_t i = len - (size_t)r; i < len; i++) {
            if (buf[i] != '\n')
                continue;
            buf[i] = 0;
            on_line(buf + line_start, ctx);
            buf[i] = '\n';
            line_start = i + 1;
        }
    }
    while (!buf) { /* no memory for the output: let the tool finish */
        char sink[4096];
        ssize_t r = read(fds[0], sink, sizeof sink);
        if (r > 0 || (r < 0 && errno == EINTR))
            continue;
        break;
    }
    close(fds[0]);
    if (buf)
        buf[len] = 0;
    if (buf && on_line && line_start < len)
        on_line(buf + line_start, ctx);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    if (!buf)
        return km_fail(err, KM_EXIT_SYSTEM, "out of memory for the output of '%s'", argv[0]);
    if (output)
        *output = buf;
    else
        free(buf);
    return KM_OK;
}

int km_proc_run(char *const argv[], const char *dir, char **output,
                int *status, km_line_fn on_line, void *ctx, km_error *err)
{
    return run_from(argv, dir, -1, output, status, on_line, ctx, err);
}

int km_proc_run_input(char *const argv[], const char *input, size_t len, char **output,
                      int *status, km_error *err)
{
    /* The input in memory, not in a file that could be left behind. */
    int in = memfd_create("kmrun-input", MFD_CLOEXEC);
    if (in < 0)
        return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot run '%s'", argv[0]);
    for (size_t done = 0; done < len;) {
        ssize_t w = write(in, input + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = errno;
            close(in);
            errno = e;
            return km_fail_errno(err, KM_EXIT_SYSTEM, "cannot run '%s'", argv[0]);
        }
        done += (size_t)w;
    }
    lseek(in, 0, SEEK_SET);
    int rc = run_from(argv, NULL, in, output, status, NULL, NULL, err);
    close(in);
    return rc;
}
