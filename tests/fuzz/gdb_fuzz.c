/* gdb_fuzz: libFuzzer over the GDB server's reader of untrusted bytes —
 * km_gdb_feed (framing, checksums, acks, every packet's parser and the
 * replies it builds) against the fake target of tests/unit/gdb_fake.h,
 * whose continue runs a short budget so a "c" never spins.  The harness
 * checks one thing itself: no write is longer than a framed reply; ASan,
 * UBSan and libFuzzer's limits are the rest of the oracle. */
#include <stdlib.h>

#include "gdb_fake.h"
#include "km_gdb.h"

static int sink(void *arg, const void *data, size_t n)
{
    (void)arg;
    (void)data;
    if (n > KM_GDB_PACKET_SIZE + 4)
        abort(); /* a reply beyond PacketSize */
    return 0;
}

static int none_waiting(void *arg)
{
    (void)arg;
    return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fake_target t;
    fake_init(&t);
    t.budget = 200;
    km_gdb_io io = {.write = sink, .read_now = none_waiting, .arg = NULL};
    km_gdb *g = km_gdb_new(&fake_ops, &t, &io, 0);
    if (!g)
        return 0;
    /* In two parts, so a packet split across reads is exercised too. */
    size_t half = size / 2;
    if (km_gdb_feed(g, data, half) == KM_GDB_SERVING)
        km_gdb_feed(g, data + half, size - half);
    km_gdb_free(g);
    return 0;
}
