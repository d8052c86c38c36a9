/* sim_timing.c: the memory side's cost table in cycles (sim_timing.h). */
#include "sim_timing.h"

#include "sim_clock.h"

void sim_timing_cycles(unsigned mhz, uint32_t out[SIM_T_COUNT])
{
#define SIM_TIMING_CYCLES(name, cycles, ps, what) \
    out[SIM_T_##name] = (uint32_t)((cycles) + sim_ps_to_cycles_ceil((ps), mhz));
    SIM_TIMING_TABLE(SIM_TIMING_CYCLES)
#undef SIM_TIMING_CYCLES
}
