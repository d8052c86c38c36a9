/* gdb_socket: serving a km_gdb session on TCP — a listening socket on the
 * loopback address only (a debugger can read and write the card's memory:
 * no one else on the network may), one client, blocking reads between
 * packets and a non-blocking look for Ctrl-C while the target runs. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "km_gdb.h"

int km_gdb_listen(int port, int *bound)
{
    if (port < 0 || port > 65535) {
        errno = EINVAL;
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    socklen_t len = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 1) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    if (bound)
        *bound = ntohs(a.sin_port);
    return fd;
}

int km_gdb_accept(int listen_fd)
{
    int fd;
    do
        fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd >= 0) {
        /* Packets are small and answered one by one: Nagle's delay
         * would only slow every step. */
        int one = 1;
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}

static int fd_write(void *arg, const void *data, size_t n)
{
    int fd = *(int *)arg;
    const char *p = data;
    while (n) {
        /* MSG_NOSIGNAL: a client gone is a lost session, not a SIGPIPE
         * that ends kmrun. */
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int fd_read_now(void *arg)
{
    int fd = *(int *)arg;
    unsigned char c;
    ssize_t r = recv(fd, &c, 1, MSG_DONTWAIT);
    return r == 1 ? c : -1;
}

km_gdb_state km_gdb_serve_fd(int fd, const km_gdb_target_ops *ops, void *ctx,
                             int first_thread)
{
    km_gdb_io io = {.write = fd_write, .read_now = fd_read_now, .arg = &fd};
    km_gdb *g = km_gdb_new(ops, ctx, &io, first_thread);
    if (!g)
        return KM_GDB_LOST;
    km_gdb_state st = KM_GDB_SERVING;
    uint8_t buf[4096];
    while (st == KM_GDB_SERVING) {
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            st = KM_GDB_LOST;
            break;
        }
        st = km_gdb_feed(g, buf, (size_t)r);
    }
    km_gdb_free(g);
    return st;
}
