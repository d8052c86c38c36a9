/* 12_host_loop's host in C: a loop of commands, each one's argument the
 * last one's result word, on the simulated card through kmrun.h.
 *
 *   cc host.c $(pkg-config --cflags --libs kmrun) -o host && ./host [N]
 *
 * Starts from N (27 when not given; the thread counts from its own word,
 * 27), stops the run when the word is 1, and prints how many commands
 * that took and the highest word, then what the thread counted.  Exit 0
 * when the run is ok (every command done, the thread returned) and the
 * two counts agree, else 1; a failure of the library is its status, with
 * its message. */
#include <stdio.h>
#include <stdlib.h>

#include "kmrun.h"

static int fail(kmrun_error *e)
{
    fprintf(stderr, "host: %s\n", kmrun_error_message(e));
    int status = (int)kmrun_error_status(e);
    kmrun_error_free(e);
    return status;
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 0) : 27u;
    const char *manifest = argc > 2 ? argv[2] : "program.yaml";
    kmrun_program *p = NULL;
    kmrun_session *s = NULL;
    kmrun_run *r = NULL;
    kmrun_error *e = NULL;
    if (kmrun_program_load(manifest, &p, &e) != KMRUN_OK ||
        kmrun_session_open(NULL, &s, &e) != KMRUN_OK ||
        kmrun_session_load(s, p, &r, &e) != KMRUN_OK)
        return fail(e);
    unsigned commands = 0;
    uint32_t highest = n;
    bool all_done = true;
    while (n != 1) {
        kmrun_command c;
        kmrun_command_init(&c, "collatz");
        c.count = 1; /* Tensix core 0 alone */
        c.args[0] = n;
        c.nargs = 1;
        c.result = true;
        uint64_t handle;
        kmrun_command_result got;
        if (kmrun_run_submit(r, &c, &handle, &e) != KMRUN_OK ||
            kmrun_run_wait_command(r, handle, 1.0, &got, &e) != KMRUN_OK)
            return fail(e);
        commands++;
        if (!got.ended || !got.has_result) {
            all_done = false;
            break;
        }
        n = got.result;
        if (n > highest)
            highest = n;
    }
    kmrun_thread_result t;
    if (kmrun_run_stop(r, 0, &e) != KMRUN_OK || kmrun_run_result(r, 0, &t, &e) != KMRUN_OK)
        return fail(e);
    printf("grid: 1 after %u commands, highest %u\n", commands, highest);
    printf("thread: %s, %u steps, highest %u\n", t.state, t.nwords > 0 ? t.words[0] : 0,
           t.nwords > 1 ? t.words[1] : 0);
    bool ok = all_done && kmrun_run_ok(r) && t.nwords > 1 && t.words[0] == commands &&
              t.words[1] == highest;
    kmrun_run_free(r);
    kmrun_session_close(s);
    kmrun_program_free(p);
    return ok ? 0 : 1;
}
