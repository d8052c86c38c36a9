#!/usr/bin/env bats
# The modeled figures the READMEs quote are the recorded runs'
# (tests/golden/*.json, which golden.bats holds to today's runs): the
# times and instructions programs/01, 02, 03 and 07 state in their text,
# the tables of programs/08, 10 and 11 and the pull's figures in README.md
# and device/sim/README.md, each as its README rounds it.  A change that moves
# them re-records the goldens (tests/golden/record); this test then names
# each README cell left behind.  No run: it reads files only.

load helpers

# figures README...: runs the Python on stdin with the goldens' words at
# hand (w('08_parallel_thread_twelve') a list, g(...) the whole record), each README's text in
# text[README] (flat[README] its lines joined), and fail(README, what, shown, recorded); no line means ok.
figures() {
    {
        cat <<'PY'
import json, os, re, sys
top = sys.argv[1]
def g(name):
    return json.load(open(os.path.join(top, 'tests/golden', name + '.json')))
def w(name):
    return g(name)['threads'][0]['words']
text = {f: open(os.path.join(top, f), encoding='utf-8').read() for f in sys.argv[2:]}
flat = {f: ' '.join(t.split()) for f, t in text.items()}  # prose, its lines joined
failures = []
def fail(f, what, shown, recorded):
    failures.append('%s: %s: %s, recorded %s' % (f, what, shown, recorded))
def row(f, label, after=''):
    # the cells after the label of the first row so labelled after the text AFTER
    m = re.compile(r'^\| ' + re.escape(label) + r' \|(.*)\|$', flags=re.M).search(
        text[f], text[f].find(after) if after in text[f] else 0)
    if not m:
        failures.append('%s: no row %r' % (f, label))
        return []
    return [c.strip() for c in m.group(1).split('|')]
PY
        cat
        printf '%s\n' "print('\\n'.join(failures))" 'sys.exit(1 if failures else 0)'
    } >"$BATS_TEST_TMPDIR/figures.py"
    run python3 "$BATS_TEST_TMPDIR/figures.py" "$KMRUN_TOP" "$@"
    [ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "readme figures: programs/08_parallel_thread's table is the goldens' ticks (ms at 50 MHz)" {
    figures programs/08_parallel_thread/README.md <<'PY'
f = 'programs/08_parallel_thread/README.md'
ops = [('map', 0), ('map mixed 16 times', 1), ('prefix sum, two passes', 2)]
for build, golden in (('scalar', '08_parallel_thread_twelve'), ('vector', '08_parallel_thread_vector')):
    words = w(golden)
    for label, op in ops:
        want = ['%.2f' % (words[3 + 8 * op + 2 * v] / 50000) for v in range(4)]
        got = row(f, '%s, %s' % (label, build))
        if got and got != want:
            fail(f, '%s, %s' % (label, build), ' | '.join(got), ' | '.join(want))
# program.yaml: the same 1- and 4-core times as twelve.yaml
one, twelve = w('08_parallel_thread_program'), w('08_parallel_thread_twelve')
for op in range(3):
    for v in range(2):
        k = 3 + 8 * op + 2 * v
        if one[k] != twelve[k]:
            fail(f, 'program.yaml word %d (the same as twelve.yaml, says the README)' % k, twelve[k], one[k])
PY
}

@test "readme figures: programs/10_x280_ports's costs are the goldens' round trip and asks a second" {
    figures programs/10_x280_ports/README.md <<'PY'
f = 'programs/10_x280_ports/README.md'
for m in ('latency', 'program', 'four', 'one'):
    words = w('10_x280_ports_' + m)
    want = ['%.3g µs' % (words[2] / 1000), '%.3g M' % (words[3] / 1e6)]
    got = row(f, '`%s.yaml`' % m, '## What it costs')[:2]
    if got != want:
        fail(f, m + '.yaml', ' | '.join(got), ' | '.join(want))
PY
}

@test "readme figures: programs/11_pull's table, and the pull in README.md and device/sim/README.md, are the goldens'" {
    figures programs/11_pull/README.md README.md device/sim/README.md <<'PY'
f = 'programs/11_pull/README.md'
p, four, one = w('11_pull_program'), w('11_pull_four'), w('11_pull_one')
ms = lambda us: '%.2f' % (us / 1000)
x = lambda k: '%.3f' % (k / 1000)
checks = [
    ('equal ranges', '%s ms, slowest/mean %s' % (ms(p[0]), x(p[1]))),
    ('pulled, 16 a range, 12 / 4 / 1 X280 cores', '%s / %s / %s ms, %s / %s / %s' % (
        ms(p[4]), ms(four[4]), ms(one[4]), x(p[5]), x(four[5]), x(one[5]))),
    ('LOG, REPLAY, pick (12 X280 cores)', '%s, %s, %s ms' % (ms(p[8]), ms(p[12]), ms(p[16]))),
    ("a core's wait a pull, 12 / 1 X280 cores", '%s / %s µs' % (ms(p[6]), ms(one[6]))),
]
for label, want in checks:
    got = row(f, label)
    if got and got[0] != want:
        fail(f, label, got[0], want)
waits = '%s and %s µs against' % (ms(p[6]), ms(one[6]))
if waits not in flat[f]:
    failures.append('%s: the waits a pull in the text do not read %r, the goldens\' figures' % (f, waits))
prose = {
    'README.md': '%s ms with equal ranges against %s ms pulled' % (ms(p[0]), ms(p[4])),
    'device/sim/README.md': '(%s ms equal; %s pulled, %s, against 4.73 and 1.045), and so do the waits a pull (%s / %s µs' % (
        ms(p[0]), ms(p[4]), x(p[5]), ms(p[6]), ms(one[6])),
}
for g, want in prose.items():
    if want not in flat[g]:
        failures.append('%s: the pull of programs/11_pull (12 X280 cores) does not read %r, the goldens\' figures' % (g, want))
PY
}

@test "readme figures: the run times and instructions programs/01, 02, 03 and 07 state are the goldens' (01's parts its markers')" {
    figures programs/01_hello/README.md programs/02_parallel_sum/README.md \
        programs/03_ring/README.md programs/07_work_cluster/README.md <<'PY'
def says(f, want):
    if want not in flat[f]:
        failures.append('%s: does not read %r, the recorded figure' % (f, want))
n = lambda k: '{:,}'.format(k)
one = g('01_hello_program')
says('programs/01_hello/README.md', 'The thread ran %.2f µs of modeled time' % one['threads'][0]['microseconds'])
shown = re.search(r'"bytes": (\d+)', text['programs/01_hello/README.md'])
says('programs/01_hello/README.md', 'The image is %s bytes' % n(int(shown.group(1)) if shown else 0))
marks = dict(re.findall(r'^\{"cluster":1,"where":(\d),"microseconds":([0-9.]+)\}$', text['programs/01_hello/README.md'], flags=re.M))
start, flushed = float(marks.get('1', 0)), float(marks.get('2', 0))
says('programs/01_hello/README.md', '%.1f µs of start-up' % start)
says('programs/01_hello/README.md', '%.1f µs for the fill and the flush' % (flushed - start))
two = g('02_parallel_sum_program')
says('programs/02_parallel_sum/README.md', 'The run executes %s instructions in %s µs of modeled time' % (
    n(two['instructions']), n(round(two['device_microseconds']))))
ring = g('03_ring_program')
says('programs/03_ring/README.md', 'about %.0f µs of modeled time for the run (`device_microseconds`), %s instructions' % (
    ring['device_microseconds'], n(ring['instructions'])))
seven = g('07_work_cluster_program')
says('programs/07_work_cluster/README.md', '%.0f µs for the thread (%s instructions)' % (
    seven['threads'][0]['microseconds'], n(seven['instructions'])))
PY
}
