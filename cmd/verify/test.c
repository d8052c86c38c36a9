/* cmd/verify/test.c: `kmrun test [options] [PATHS...]` — every program under the
 * paths (kmrun_test_find) run on each of its backends (its expect:'s
 * backends, or --backend) and held to its expect: (kmrun_expect_json),
 * a line per program and backend as each ends, then "N passed, N failed".
 *
 * Each run is a child process, `kmrun run --run-dir DIR --thread B
 * MANIFEST` (this same executable, as /proc/self/exe names it), its stdout (the run's
 * JSON) and stderr in files: a run that crashes or hangs takes only its
 * own case down, and one past --wall-timeout is killed with its process
 * group (its compilers too).  The comparison is the library's, here in
 * the parent, from the JSON and the run folder it names.  With -j N, N
 * runs at once; their builds share the cache, which is safe under
 * concurrency.  Exit 0 when every case passed (skips aside), 1 when one
 * failed, 2 for a usage error, 4 when a run could not be started or the
 * JUnit report not written.
 *
 * Results reused: before a case runs its program is built here through
 * the cache (its run's build then finds everything there) and the run's
 * key made of what it built (kmrun_result_key); a result stored under that
 * key, here or in the remote storage, is the case's pass, marked reused,
 * and nothing runs (--rerun: always run).  A pass stores its run's JSON.
 *
 * --bless: a program's lines wait for all its cases (its backends); then,
 * when every case either passed or differs only in values, the
 * library's blessing (kmrun_blessing_*) rewrites its manifest and the
 * cases that differed are BLESSED; else, or when the blessing refuses,
 * they fail as without --bless, the reason under their first
 * difference. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "run_child.h"
#include "cmd_common.h"
#include "cmd_diag.h"
#include "cmd_opts.h"
#include "cmd_run.h"

extern char **environ;

#define DEFAULT_WALL_S 300.0
#define TAIL_LINES 12 /* of a failed run's stderr, in its summary */
#define MAX_JOBS 256


typedef struct tcase {
    const char *manifest;     /* the list's */
    kmrun_program *p;         /* NULL: it did not load */
    const char *backend;      /* "sim", "host"; NULL: nothing to run */
    kmrun_test_case out;
    char *summary, *detail, *run_folder; /* out's, owned */
    pid_t pid;                /* a child running it; 0: none */
    double started;
    char *stdout_path, *stderr_path;
    bool killed;              /* past the wall timeout */
    bool done;
    char key[65];             /* its run's result key; "" none */
    kmrun_verdict *verdict;   /* --bless: its run's comparison, kept */
    bool reported;            /* its line printed */
} tcase;

typedef struct options {
    const char *backend; /* --backend, or NULL: the manifests' */
    const char *junit;
    bool tap;
    unsigned shard, shards;
    int jobs;
    double wall_s;
    char *runs;          /* the runs folder the children write */
    char exe[4096];      /* this kmrun, which runs them */
    char *scratch;       /* the children's stdout and stderr */
    bool rerun;          /* --rerun */
    const char *remote;  /* --remote-storage */
    bool verbose;
    bool bless;          /* --bless */
    kmrun_cache *cache;  /* results reused; NULL: none (it cannot be opened) */
} options;

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    interrupted = sig;
}

/* ---- a case's end ----------------------------------------------------- */

static void finish(tcase *c, kmrun_test_outcome outcome, char *summary, char *detail)
{
    c->out.outcome = outcome;
    c->summary = summary;
    c->detail = detail;
    c->out.summary = summary;
    c->out.detail = detail;
    c->out.run_folder = c->run_folder;
    c->done = true;
}

static const char *status_meaning(int code)
{
    switch (code) {
    case KMRUN_FAILED: return "a thread failed";
    case KMRUN_USAGE: return "usage or manifest error";
    case KMRUN_BUILD: return "a compile error or a rejected image";
    case KMRUN_SYSTEM: return "a system error";
    case KMRUN_INTERNAL: return "an internal error";
    default: return "an unknown status";
    }
}

/* For a tool (--message-format=json): each difference at its place. */
static void tell_differences(const kmrun_verdict *v)
{
    for (size_t i = 0; cmd_diag_json() && i < kmrun_verdict_mismatches(v); i++) {
        kmrun_diagnostic *d = kmrun_verdict_diagnostic(v, i);
        if (d)
            cmd_diag_print(d);
        kmrun_diagnostic_free(d);
    }
}

/* The run's JSON held to the program's expect: (its verdict kept for a
 * blessing). */
static void judge(tcase *c, const char *json, bool keep)
{
    kmrun_verdict *v = NULL;
    kmrun_error *err = NULL;
    if (kmrun_expect_json(c->p, json, NULL, &v, &err) != KMRUN_OK) {
        char *s = NULL;
        if (asprintf(&s, "cannot compare the run: %s", kmrun_error_message(err)) < 0)
            s = NULL;
        finish(c, KMRUN_TEST_FAIL, s ? s : cmd_dup("cannot compare the run"), NULL);
        kmrun_error_free(err);
        return;
    }
    const char *folder = kmrun_verdict_folder(v);
    if (folder)
        c->run_folder = cmd_dup(folder);
    size_t n = kmrun_verdict_mismatches(v);
    if (keep)
        c->verdict = v;
    if (n == 0) {
        finish(c, KMRUN_TEST_PASS, NULL, NULL);
        if (!keep)
            kmrun_verdict_free(v);
        return;
    }
    size_t len = 0;
    kmrun_mismatch m;
    for (size_t i = 0; kmrun_verdict_mismatch(v, i, &m); i++)
        len += strlen(m.text) + 1;
    char *detail = malloc(len + 1), *at = detail;
    if (!detail) {
        cmd_say(CMD_ERROR, "kmrun.system", "out of memory");
        exit(KMRUN_SYSTEM);
    }
    *at = 0;
    for (size_t i = 0; kmrun_verdict_mismatch(v, i, &m); i++)
        at += sprintf(at, "%s%s", i ? "\n" : "", m.text);
    /* For a tool (--message-format=json): each difference at its place
     * (--bless: once it is known not to be blessed). */
    if (!keep)
        tell_differences(v);
    kmrun_verdict_mismatch(v, 0, &m);
    c->out.more = n - 1;
    finish(c, KMRUN_TEST_FAIL, cmd_dup(m.text), detail);
    if (!keep)
        kmrun_verdict_free(v);
}

/* A case that failed other than by a difference, for a tool
 * (--message-format=json): the child's own diagnostics (a compile's
 * errors at their file:line, a manifest's at its line and column: it ran
 * with --message-format=json too), as it wrote them, then one naming the
 * case. */
static void told(const tcase *c)
{
    if (!cmd_diag_json())
        return;
    FILE *f = c->stderr_path ? fopen(c->stderr_path, "r") : NULL;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while (f && (len = getline(&line, &cap, f)) > 0) {
        if (line[0] == '{' && line[len - 1] == '\n') /* a diagnostic, whole */
            fputs(line, stderr);
    }
    free(line);
    if (f)
        fclose(f);
    if (c->summary)
        cmd_say(CMD_ERROR, "test.failed", "%s [%s]: %s", c->manifest, c->backend, c->summary);
}

/* The child has ended with wait status `st`. */
static void ended(tcase *c, int st, const options *o)
{
    c->out.seconds = cmd_wall_now() - c->started;
    c->pid = 0;
    char head[256];
    if (c->killed) {
        snprintf(head, sizeof head,
                 "killed after %g s of real time, its build and run together (--wall-timeout)",
                 o->wall_s);
        finish(c, KMRUN_TEST_FAIL, run_child_tail(head, c->stderr_path, TAIL_LINES),
               run_child_tail(head, c->stderr_path, 200));
        told(c);
        return;
    }
    if (WIFSIGNALED(st)) {
        snprintf(head, sizeof head, "kmrun run was killed by signal %d (%s)", WTERMSIG(st),
                 strsignal(WTERMSIG(st)));
        finish(c, KMRUN_TEST_FAIL, run_child_tail(head, c->stderr_path, TAIL_LINES),
               run_child_tail(head, c->stderr_path, 200));
        told(c);
        return;
    }
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : KMRUN_INTERNAL;
    char *json = run_child_read(c->stdout_path);
    if (json && (code == KMRUN_OK || code == KMRUN_FAILED)) {
        judge(c, json, o->bless);
        kmrun_error *err = NULL;
        /* A pass stands for the next run of the same: stored (a failure
         * is always run again). */
        if (c->out.outcome == KMRUN_TEST_PASS && c->key[0] && o->cache &&
            kmrun_cache_result_put(o->cache, c->key, json, c->run_folder, &err) != KMRUN_OK) {
            cmd_say(CMD_WARNING, "cache.warning", "cannot store the result of %s [%s]: %s",
                    CMD_QUOTED(c->manifest), c->backend, kmrun_error_message(err));
            kmrun_error_free(err);
        }
    } else {
        snprintf(head, sizeof head, "kmrun run exited %d (%s)", code, status_meaning(code));
        finish(c, KMRUN_TEST_FAIL, run_child_tail(head, c->stderr_path, TAIL_LINES),
               run_child_tail(head, c->stderr_path, 200));
        told(c);
    }
    free(json);
}

/* ---- running a case ----------------------------------------------------- */

/* Whether a stored result stands for the case's run: its program built
 * (through the cache) and its key looked up; the key is kept for the
 * store after a pass.  A build that fails here is the run's to report. */
static bool reuse(tcase *c, const options *o)
{
    if (!o->cache)
        return false;
    double t0 = cmd_wall_now();
    kmrun_build_opts bo;
    kmrun_build_opts_init(&bo);
    bo.host = strcmp(c->backend, "host") == 0;
    kmrun_build *b = NULL;
    kmrun_error *err = NULL;
    if (kmrun_build_program(o->cache, c->p, &bo, &b, &err) != KMRUN_OK ||
        kmrun_result_key(b, c->p, c->backend, c->key, &err) != KMRUN_OK) {
        c->key[0] = 0;
        kmrun_error_free(err);
        kmrun_build_free(b);
        return false;
    }
    kmrun_build_free(b);
    char *json = NULL;
    if (o->rerun || kmrun_cache_result_get(o->cache, c->key, &json, &err) != KMRUN_OK) {
        if (o->verbose)
            cmd_say(CMD_NOTE, "test.result", "%s [%s]: %s (result key %.16s...)",
                    c->manifest, c->backend, o->rerun ? "run again (--rerun)" : "no stored "
                    "result", c->key);
        kmrun_error_free(err);
        return false;
    }
    free(json);
    if (o->verbose)
        cmd_say(CMD_NOTE, "test.result", "%s [%s]: reused the stored result %.16s...",
                c->manifest, c->backend, c->key);
    c->out.seconds = cmd_wall_now() - t0;
    c->out.reused = true;
    finish(c, KMRUN_TEST_PASS, NULL, NULL);
    return true;
}

/* Starts `kmrun run` on the case in a child of its own process group. */
static int start(tcase *c, size_t index, const options *o)
{
    if (asprintf(&c->stdout_path, "%s/%zu-%s.json", o->scratch, index, c->backend) < 0 ||
        asprintf(&c->stderr_path, "%s/%zu-%s.err", o->scratch, index, c->backend) < 0) {
        cmd_say(CMD_ERROR, "kmrun.system", "out of memory");
        return KMRUN_SYSTEM;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, c->stdout_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, c->stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGHUP);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF);
    char *argv[] = {"kmrun", "run", "--run-dir", o->runs, "--thread", (char *)c->backend,
                    (char *)c->manifest, NULL, NULL};
    if (cmd_diag_json()) { /* its diagnostics for told() to pass on */
        argv[6] = "--message-format=json";
        argv[7] = (char *)c->manifest;
    }
    c->started = cmd_wall_now();
    int error = posix_spawn(&c->pid, o->exe, &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (error) {
        c->pid = 0;
        cmd_say(CMD_ERROR, "kmrun.system", "cannot start 'kmrun run' for %s: %s",
                CMD_QUOTED(c->manifest), strerror(error));
        return KMRUN_SYSTEM;
    }
    return KMRUN_OK;
}

/* Prints the case's line (its TAP number the count printed so far). */
static void report(tcase *c, const options *o, size_t *printed)
{
    c->reported = true;
    char *line = kmrun_test_line(&c->out, o->tap ? KMRUN_TEST_TAP : KMRUN_TEST_TEXT, ++*printed);
    if (line)
        printf("%s\n", line);
    free(line);
    fflush(stdout);
    if (c->stdout_path)
        unlink(c->stdout_path);
    if (c->stderr_path)
        unlink(c->stderr_path);
}

/* A case's summary and detail with `why` under them. */
static void not_blessed(tcase *c, const char *why)
{
    char *summary = NULL, *detail = NULL;
    if (asprintf(&summary, "%s\nnot blessed: %s", c->summary ? c->summary : "", why) < 0 ||
        asprintf(&detail, "%s\nnot blessed: %s", c->detail ? c->detail : c->summary, why) < 0)
        return;
    free(c->summary);
    free(c->detail);
    c->out.summary = c->summary = summary;
    c->out.detail = c->detail = detail;
}

/* --bless: the cases [lo, hi) of one program, all ended, blessed together
 * or not at all (the library decides and writes; kmrun.h, Blessing). */
static void bless_program(tcase *cases, size_t lo, size_t hi)
{
    bool differs = false;
    const char *other = NULL; /* a backend whose run failed otherwise */
    for (size_t i = lo; i < hi; i++) {
        if (cases[i].out.outcome == KMRUN_TEST_FAIL && cases[i].verdict)
            differs = true;
        else if (cases[i].out.outcome == KMRUN_TEST_FAIL)
            other = cases[i].backend;
    }
    if (!differs)
        return;
    char *why = NULL;
    kmrun_blessing *b = NULL;
    kmrun_error *err = NULL;
    if (other && asprintf(&why, "its run on %s failed, not only in values", other) < 0)
        why = NULL;
    kmrun_status rc = other ? KMRUN_FAILED : kmrun_blessing_new(cases[lo].p, &b, &err);
    for (size_t i = lo; rc == KMRUN_OK && i < hi; i++) {
        if (cases[i].verdict)
            rc = kmrun_blessing_add(b, cases[i].verdict, &err);
        else if (cases[i].out.outcome == KMRUN_TEST_PASS) /* reused: nothing compared */
            rc = kmrun_blessing_passed(b, strcmp(cases[i].backend, "host") == 0
                                              ? KMRUN_BACKEND_HOST : KMRUN_BACKEND_SIM, &err);
    }
    if (rc == KMRUN_OK)
        rc = kmrun_blessing_write(b, NULL, &err);
    if (rc != KMRUN_OK && !why)
        why = cmd_dup(kmrun_error_message(err));
    kmrun_error_free(err);
    kmrun_blessing_free(b);
    for (size_t i = lo; i < hi; i++) {
        tcase *c = &cases[i];
        if (c->out.outcome != KMRUN_TEST_FAIL || !c->verdict)
            continue;
        if (why) {
            not_blessed(c, why);
            tell_differences(c->verdict);
            if (cmd_diag_json())
                cmd_say(CMD_ERROR, "test.not-blessed", "%s [%s]: not blessed: %s", c->manifest,
                        c->backend, why);
            continue;
        }
        /* Every value rewritten, a line each. */
        free(c->summary);
        c->out.summary = c->summary = cmd_dup(c->detail);
        c->out.more = 0;
        c->out.outcome = KMRUN_TEST_BLESSED;
    }
    free(why);
}

/* A case has ended: its line printed; with --bless, once every case of
 * its program has, after the blessing, the program's lines in order. */
static void settle(tcase *cases, size_t n, size_t i, const options *o, size_t *printed)
{
    if (!o->bless || !cases[i].p) {
        report(&cases[i], o, printed);
        return;
    }
    size_t lo = i, hi = i + 1;
    while (lo > 0 && cases[lo - 1].p == cases[i].p)
        lo--;
    while (hi < n && cases[hi].p == cases[i].p)
        hi++;
    for (size_t k = lo; k < hi; k++)
        if (!cases[k].done)
            return;
    bless_program(cases, lo, hi);
    for (size_t k = lo; k < hi; k++)
        if (!cases[k].reported)
            report(&cases[k], o, printed);
}

/* Ends every child (SIGKILL to its group) and waits for it. */
static void kill_all(tcase *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cases[i].pid > 0)
            kill(-cases[i].pid, SIGKILL);
    for (size_t i = 0; i < n; i++) {
        if (cases[i].pid > 0) {
            waitpid(cases[i].pid, NULL, 0);
            cases[i].pid = 0;
            unlink(cases[i].stdout_path);
            unlink(cases[i].stderr_path);
        }
    }
}

/* Runs the cases, at most o->jobs at once, each line printed as it ends;
 * KMRUN_OK, or KMRUN_SYSTEM when a run could not start. */
static int run_all(tcase *cases, size_t n, const options *o, size_t *printed)
{
    size_t next = 0;
    int running = 0, rc = KMRUN_OK;
    while ((next < n || running > 0) && !interrupted) {
        while (rc == KMRUN_OK && running < o->jobs && next < n) {
            tcase *c = &cases[next++];
            if (c->done || reuse(c, o)) { /* a skip, a manifest that did not load, reused */
                settle(cases, n, (size_t)(c - cases), o, printed);
                continue;
            }
            if ((rc = start(c, (size_t)(c - cases), o)) != KMRUN_OK)
                break;
            running++;
        }
        if (rc != KMRUN_OK && running == 0)
            break;
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid > 0) {
            for (size_t i = 0; i < n; i++) {
                if (cases[i].pid == pid) {
                    /* Its group's stragglers (a compiler it left) go too. */
                    kill(-pid, SIGKILL);
                    ended(&cases[i], st, o);
                    settle(cases, n, i, o, printed);
                    running--;
                    break;
                }
            }
            continue;
        }
        if (pid < 0 && errno == ECHILD)
            break;
        double now = cmd_wall_now();
        for (size_t i = 0; i < n; i++) {
            if (cases[i].pid > 0 && !cases[i].killed && now - cases[i].started > o->wall_s) {
                cases[i].killed = true;
                kill(-cases[i].pid, SIGKILL);
            }
        }
        nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
    }
    if (interrupted || rc != KMRUN_OK)
        kill_all(cases, n);
    return rc;
}

/* ---- the cases ------------------------------------------------------------ */

static bool add_case(tcase **cases, size_t *n, size_t *cap, tcase c)
{
    if (*n == *cap) {
        size_t more = *cap ? 2 * *cap : 32;
        tcase *bigger = realloc(*cases, more * sizeof *bigger);
        if (!bigger)
            return false;
        *cases = bigger;
        *cap = more;
    }
    (*cases)[(*n)++] = c;
    return true;
}

/* The cases of the program at `manifest`: one a backend; a skip without
 * expect:; a failure when it does not load. */
static bool cases_of(const char *manifest, const options *o, tcase **cases, size_t *n,
                     size_t *cap)
{
    tcase c = {.manifest = manifest};
    kmrun_test_case_init(&c.out);
    c.out.manifest = manifest;
    kmrun_error *err = NULL;
    if (kmrun_program_load(manifest, &c.p, &err) != KMRUN_OK) {
        /* The first error, and where to see them all. */
        const char *message = kmrun_error_message(err);
        size_t lines = 0;
        for (const char *s = message; *s; s++)
            lines += *s == '\n';
        char *first = NULL;
        if (lines == 0)
            first = cmd_dup(message);
        else if (asprintf(&first, "%.*s\n(and %zu more: 'kmrun validate' shows them)",
                          (int)strcspn(message, "\n"), message, lines) < 0)
            first = NULL;
        finish(&c, KMRUN_TEST_FAIL, first ? first : cmd_dup(message), cmd_dup(message));
        if (cmd_diag_json())
            cmd_diag_error(err); /* each error at its place, for a tool */
        kmrun_error_free(err);
        return add_case(cases, n, cap, c);
    }
    if (!kmrun_program_has_expect(c.p)) {
        finish(&c, KMRUN_TEST_SKIP, cmd_dup("no expect:"), NULL);
        return add_case(cases, n, cap, c);
    }
    const char *names[2];
    size_t count = 0;
    if (o->backend) {
        names[count++] = o->backend;
    } else {
        kmrun_backend b[2];
        size_t k = kmrun_program_expect_backends(c.p, b);
        for (size_t i = 0; i < k; i++)
            names[count++] = b[i] == KMRUN_BACKEND_HOST ? "host" : "sim";
    }
    /* Every case of the program compares with the one load, which the
     * first of them frees (free_cases). */
    for (size_t i = 0; i < count; i++) {
        tcase one = c;
        one.backend = names[i];
        one.out.backend = names[i];
        if (!add_case(cases, n, cap, one))
            return false;
    }
    return true;
}

static void free_cases(tcase *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (cases[i].p && (i == 0 || cases[i - 1].p != cases[i].p))
            kmrun_program_free(cases[i].p);
        kmrun_verdict_free(cases[i].verdict);
        free(cases[i].summary);
        free(cases[i].detail);
        free(cases[i].run_folder);
        free(cases[i].stdout_path);
        free(cases[i].stderr_path);
    }
    free(cases);
}

/* ---- the command ------------------------------------------------------------ */

static int parse(int argc, char **argv, options *o)
{
    const char *run_dir = NULL;
    int c;
    cmd_opts opts;
    cmd_opts_start(&opts, "test", argc, argv);
    while ((c = cmd_opts_next(&opts)) != CMD_OPTS_END) {
        switch (c) {
        case 'b': /* sim|host: cmd_opts_next refused anything else */
            o->backend = optarg;
            break;
        case 'x':
            if (!*optarg)
                return cmd_usage_error("test", "an empty --junit file name");
            o->junit = optarg;
            break;
        case 'T':
            o->tap = true;
            break;
        case 's':
            if (!kmrun_test_shard_parse(optarg, &o->shard, &o->shards))
                return cmd_usage_error("test",
                                       "invalid --shard %s (expected I/N with 1 <= I <= N, "
                                       "such as 1/4)",
                                       CMD_QUOTED(optarg));
            break;
        case 'j': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (!*optarg || *end || v < 1 || v > MAX_JOBS)
                return cmd_usage_error("test", "invalid job count %s (expected 1 to %d)",
                                       CMD_QUOTED(optarg), MAX_JOBS);
            o->jobs = (int)v;
            break;
        }
        case 'w':
            if (cmd_parse_seconds("test", "wall timeout", optarg, &o->wall_s) != KMRUN_OK)
                return KMRUN_USAGE;
            break;
        case 'R':
            if (!*optarg)
                return cmd_usage_error("test", "an empty run folder name");
            run_dir = optarg;
            break;
        case 'r':
            o->rerun = true;
            break;
        case 'S':
            o->remote = optarg;
            break;
        case 'v':
            o->verbose = true;
            break;
        case 'B':
            o->bless = true;
            break;
        default:
            return KMRUN_USAGE; /* CMD_OPTS_ERROR: cmd_opts_next said why */
        }
    }
    /* This executable, by its path (/proc/self/exe itself where that
     * cannot be read). */
    ssize_t n = readlink("/proc/self/exe", o->exe, sizeof o->exe - 1);
    if (n > 0)
        o->exe[n] = 0;
    else
        snprintf(o->exe, sizeof o->exe, "/proc/self/exe");
    o->runs = kmrun_runs_folder(run_dir);
    if (!o->runs) {
        cmd_say(CMD_ERROR, "kmrun.system", "out of memory");
        return KMRUN_SYSTEM;
    }
    return KMRUN_OK;
}

/* The scratch folder for the children's output. */
static char *scratch_folder(void)
{
    const char *tmp = getenv("TMPDIR");
    char *path = NULL;
    if (asprintf(&path, "%s/kmrun-test.XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
        return NULL;
    if (!mkdtemp(path)) {
        cmd_say(CMD_ERROR, "kmrun.system", "cannot make a temporary folder %s: %s",
                CMD_QUOTED(path), strerror(errno));
        free(path);
        return NULL;
    }
    return path;
}

int cmd_test(int argc, char **argv)
{
    options o = {.jobs = 1, .wall_s = DEFAULT_WALL_S, .shard = 1, .shards = 1};
    int rc = parse(argc, argv, &o);
    if (rc != KMRUN_OK) {
        free(o.runs);
        return rc;
    }
    const char *here[] = {"."};
    const char *const *paths = optind < argc ? (const char *const *)argv + optind : here;
    size_t npaths = optind < argc ? (size_t)(argc - optind) : 1;
    kmrun_test_list *list = NULL;
    kmrun_error *err = NULL;
    rc = kmrun_test_find(paths, npaths, &list, &err);
    if (rc != KMRUN_OK) {
        cmd_diag_error(err);
        kmrun_error_free(err);
        free(o.runs);
        return rc;
    }
    tcase *cases = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < kmrun_test_count(list); i++) {
        if (kmrun_test_in_shard(i, o.shard, o.shards) &&
            !cases_of(kmrun_test_path(list, i), &o, &cases, &n, &cap)) {
            cmd_say(CMD_ERROR, "kmrun.system", "out of memory");
            return KMRUN_SYSTEM;
        }
    }
    /* The cache of the results (a cache that cannot be opened: every
     * program runs, and its run says why its build cannot). */
    kmrun_error *cerr = NULL;
    if (kmrun_cache_open(NULL, &o.cache, &cerr) == KMRUN_OK) {
        kmrun_cache_set_warning(o.cache, cmd_warn, NULL);
        rc = cmd_cache_remote(o.cache, "test", o.remote, o.verbose);
    }
    kmrun_error_free(cerr);
    if (rc == KMRUN_OK && !(o.scratch = scratch_folder()))
        rc = KMRUN_SYSTEM;
    /* A signal that would end kmrun ends its runs first (a signal ignored
     * from the start, as in a background job, stays ignored). */
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term, old_hup;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, NULL, &old_int);
    sigaction(SIGTERM, NULL, &old_term);
    sigaction(SIGHUP, NULL, &old_hup);
    if (old_int.sa_handler != SIG_IGN)
        sigaction(SIGINT, &sa, NULL);
    if (old_term.sa_handler != SIG_IGN)
        sigaction(SIGTERM, &sa, NULL);
    if (old_hup.sa_handler != SIG_IGN)
        sigaction(SIGHUP, &sa, NULL);
    size_t printed = 0;
    if (rc == KMRUN_OK) {
        if (o.tap)
            printf("TAP version 13\n1..%zu\n", n);
        fflush(stdout);
        rc = run_all(cases, n, &o, &printed);
        rmdir(o.scratch);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    if (interrupted) {
        free_cases(cases, n);
        kmrun_test_list_free(list);
        fflush(stdout);
        raise(interrupted); /* ends kmrun as the signal would have */
        return KMRUN_SYSTEM;
    }
    size_t passed = 0, failed = 0, skipped = 0, blessed = 0;
    for (size_t i = 0; i < n; i++) {
        blessed += cases[i].done && cases[i].out.outcome == KMRUN_TEST_BLESSED;
        passed += cases[i].done && cases[i].out.outcome == KMRUN_TEST_PASS;
        failed += cases[i].done && cases[i].out.outcome == KMRUN_TEST_FAIL;
        skipped += cases[i].done && cases[i].out.outcome == KMRUN_TEST_SKIP;
    }
    if (rc == KMRUN_OK) {
        printf("%s%zu passed, ", o.tap ? "# " : "", passed);
        if (o.bless)
            printf("%zu blessed, ", blessed);
        printf("%zu failed", failed);
        if (skipped)
            printf(", %zu skipped", skipped);
        printf("\n");
        fflush(stdout);
    }
    if (rc == KMRUN_OK && o.junit) {
        kmrun_test_case *all = calloc(n ? n : 1, sizeof *all);
        for (size_t i = 0; all && i < n; i++)
            all[i] = cases[i].out;
        if (!all || kmrun_test_junit(o.junit, all, n, &err) != KMRUN_OK) {
            if (all)
                cmd_diag_error(err);
            else
                cmd_say(CMD_ERROR, "kmrun.system", "out of memory for the JUnit report");
            rc = all ? (int)kmrun_error_status(err) : KMRUN_SYSTEM;
            kmrun_error_free(err);
        }
        free(all);
    }
    free_cases(cases, n);
    kmrun_test_list_free(list);
    kmrun_cache_close(o.cache);
    free(o.runs);
    free(o.scratch);
    if (rc != KMRUN_OK)
        return rc;
    return failed ? KMRUN_FAILED : KMRUN_OK;
}
