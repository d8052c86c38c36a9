# What stats.bats and tests/long/stats.bats share (`load stats_helpers`).

# check_stats: the sums and bounds on the JSON in $output.
check_stats() {
    jq -e '
        .stats as $s
        | ([$s.x280[].instructions] | add // 0) == .instructions
        and all($s.x280[]; .cycles >= .instructions + .memory_stall_cycles)
        and ([$s.x280[] | .cluster] | unique) == [.threads[].cluster]
        and ([$s.clusters[] | .cluster]) == [.threads[].cluster]
        and all($s.clusters[];
                (.bank_bytes_read | add) >= 64 * .cache_misses
                and (.bank_bytes_written | add) >= 64 * .write_backs)
        and $s.dispatcher.commands >= (.commands | length)
        and $s.dispatcher.passes > 0
        and all($s.tensix[]; .handlers > 0 and .busy_microseconds > 0)
    ' <<<"$output" >/dev/null
}
