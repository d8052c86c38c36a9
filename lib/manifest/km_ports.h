/* km_ports: the X280 ports' dealing (spec "X280 ports") — which X280 core
 * of the program's threads serves each Tensix core — and what follows
 * from it for one work cluster: its argument block's ports settings and
 * its ports area as the host writes it before the start.  The one source
 * of truth: the plan (km_plan.c) keeps the dealing, and the card's params
 * (card_setup.c), the argument blocks, the local memory tables
 * (backend_sim.c), the run JSON and `validate --json` all take it there.
 *
 * The program's X280 cores are every cluster a thread runs on, ascending,
 * four each (x280_core 0..3): n = 4 x clusters.  `ports: default` deals
 * the grid's cores in grid order over them in contiguous blocks: core i
 * goes to X280 core number i * n / BH_GRID_CORES (thirty each with one
 * cluster, fifteen with two, ten with three).  `ports: {serve: ...}`
 * names them instead; a core it does not name has none (cluster 0).  No
 * `ports:` (and no `pull:`, which implies the default): no dealing. */
#ifndef KM_PORTS_H
#define KM_PORTS_H

#include <stdbool.h>

#include "km_card_io.h"
#include "km_error.h"
#include "km_program.h"
#include "kmx_layout.h"

/* The program's dealing into *d (zeroed first); false when the program
 * has no ports (then *d is all cluster 0). */
bool km_ports_deal(const km_program *p, km_port_dealing *d);

/* The clusters the program's threads run on, ascending, into
 * clusters[0..]; how many. */
unsigned km_ports_clusters(const km_program *p, int clusters[BH_WORK_CLUSTERS]);

/* How many Tensix cores X280 cores of `cluster` serve. */
unsigned km_ports_served(const km_port_dealing *d, int cluster);

/* The ports settings of `cluster`'s argument block: enabled, served,
 * window_first (KMX_WINDOW_PORTS_FIRST), cores (1 + the highest core it
 * serves, 0 when none) and control (KM_CONTROL_X280_L1).  KM_OK, or
 * KM_EXIT_USAGE when the cluster would serve more cores than it has port
 * windows (KMX_WINDOW_PORTS_COUNT). */
int km_ports_settings_of(const km_port_dealing *d, int cluster, kmx_ports_settings *s,
                         km_error *err);

/* `cluster`'s ports area as the host writes it (zeroed first): line,
 * mailboxes and core lines zero; table[core] the serving X280 core, or
 * KMX_PORT_NONE for a core this cluster does not serve, the core's tile,
 * and window KMX_WINDOW_PORTS_FIRST + its rank among the cores this
 * cluster serves, in grid order (0 for a core it does not serve). */
void km_ports_area_of(const km_port_dealing *d, int cluster, kmx_ports_area *a);

#endif
