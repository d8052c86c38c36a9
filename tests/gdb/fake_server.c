/* fake_server: serves the fake target of tests/unit/gdb_fake.h to one GDB
 * on 127.0.0.1, for tests/cli/gdb.bats, which drives a real gdb-multiarch
 * against it.  Usage: fake_server PORTFILE — the port chosen is written
 * to PORTFILE (whole, by a rename) once the socket listens; at the end the
 * session's state ("exited", "detached", ...) is printed on stdout and the
 * final word of every hart's data, so a test can see what the program
 * wrote.  With a second argument "forever", every hart loops at the
 * program's end instead of exiting (jal zero, 0), for Ctrl-C; the
 * file PORTFILE.running appears when the target first resumes, so the
 * test knows when to press it.  Exit status 0 unless the socket could not
 * be served. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gdb_fake.h"
#include "km_gdb.h"

static fake_target target;
static char running[4096];

/* The fake's resume, marking the first one (PORTFILE.running). */
static int resume_marked(void *ctx, const km_gdb_resume *how, km_gdb_poll poll, void *poll_arg,
                         km_gdb_stop *stop)
{
    if (running[0]) {
        FILE *f = fopen(running, "w");
        if (f)
            fclose(f);
        running[0] = '\0';
    }
    return fake_resume(ctx, how, poll, poll_arg, stop);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "forever") != 0)) {
        fprintf(stderr, "usage: fake_server PORTFILE [forever]\n");
        return 2;
    }
    fake_init(&target);
    if (argc == 3) {
        for (int c = 0; c < 2; c++)
            fake_put32(target.mem[c], FAKE_EXIT, 0x0000006f);
        target.budget = 2000000000;
    }
    int port = 0;
    int lfd = km_gdb_listen(0, &port);
    if (lfd < 0) {
        fprintf(stderr, "fake_server: cannot listen: %s\n", strerror(errno));
        return 1;
    }
    snprintf(running, sizeof running, "%s.running", argv[1]);
    km_gdb_target_ops ops = fake_ops;
    ops.resume = resume_marked;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0 || rename(tmp, argv[1]) != 0) {
        fprintf(stderr, "fake_server: cannot write %s\n", argv[1]);
        return 1;
    }
    int fd = km_gdb_accept(lfd);
    close(lfd);
    if (fd < 0) {
        fprintf(stderr, "fake_server: accept: %s\n", strerror(errno));
        return 1;
    }
    static const char *const names[] = {"serving", "detached", "killed", "exited", "lost"};
    km_gdb_state st = km_gdb_serve_fd(fd, &ops, &target, 0);
    close(fd);
    printf("%s\n", names[st]);
    for (int c = 0; c < 2; c++)
        for (int core = 0; core < 2; core++) {
            uint64_t v = 0;
            for (int i = 7; i >= 0; i--)
                v = v << 8 | target.mem[c][0x1000 + 8 * core + (unsigned)i];
            printf("cluster %d core %d: %llu\n", c + 1, core, (unsigned long long)v);
        }
    return 0;
}
