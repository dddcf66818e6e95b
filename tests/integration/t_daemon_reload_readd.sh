#!/bin/sh
# A job removed by a reload while it runs, then added back by another
# reload while that process still runs (issue 16, defect 6): the job added
# back owns what still runs of its id, so its overlap policy sees it.
#   ov (overlap = skip): its instances are skipped (reason overlap, the
#      detail naming the old run) while the old process lives;
#   al (allow, max_parallel = 1): the same, "max_parallel (1) instances
#      are in flight";
#   rp (replace; run by hand first, due every 2 s once added back): its
#      next instance stops the old definition's process (terminated,
#      reason replaced) and starts once it has exited.
# The job added back starts afresh: no instance between its removal and
# its return, none before the reload that added it back.  Each job's
# first run is the long one (its process a sleeper), later runs end at
# once.
. tests/integration/lib.sh
setup
sleeper zz-ov
sleeper zz-al
sleeper zz-rp

# jobs_write RP_SCHEDULE: the three job files.
jobs_write() {
	write_job ov.job <<'EOF2'
[ov]
schedule = every 1s
command = echo "$TICKD_RUN_ID" >> @DIR@/ov.out; [ ! -e @DIR@/ov.id ] || exit 0; echo "$TICKD_RUN_ID" > @DIR@/ov.id; exec @DIR@/zz-ov 60
EOF2
	write_job al.job <<'EOF2'
[al]
schedule = every 1s
overlap = allow
max_parallel = 1
command = echo "$TICKD_RUN_ID" >> @DIR@/al.out; [ ! -e @DIR@/al.id ] || exit 0; echo "$TICKD_RUN_ID" > @DIR@/al.id; exec @DIR@/zz-al 60
EOF2
	write_job rp.job <<EOF2
[rp]
schedule = $1
overlap = replace
kill_grace = 2s
command = echo "\$TICKD_RUN_ID" >> @DIR@/rp.out; [ ! -e @DIR@/rp.id ] || exit 0; echo "\$TICKD_RUN_ID" > @DIR@/rp.id; exec @DIR@/zz-rp 60
EOF2
}
# rp's first run is manual: no instance of its own replaces it before
# the reloads; added back, it is due every 2 s.
jobs_write "0 0 1 1 *"
daemon_start
run_cmd ctl run rp
expect_eq "run rp" "$rc" 0
for j in ov al rp; do
	wait_for "$j's first run" 10 test -s "$dir/$j.id"
	wait_for "$j's process" 10 eval "[ -n \"\$(procs zz-$j)\" ]"
done
ov1=$(cat "$dir/ov.id") al1=$(cat "$dir/al.id") rp1=$(cat "$dir/rp.id")
pov=$(procs zz-ov) pal=$(procs zz-al) prp=$(procs zz-rp)

# --- removed while they run ----------------------------------------------------------
rm "$jobs/ov.job" "$jobs/al.job" "$jobs/rp.job"
t_rm=$(now)
run_cmd ctl reload
expect_eq "reload 1 (removed)" "$rc $out" "0 reloaded: 0 jobs"
for j in ov al rp; do
	log_has "tickd: notice: job $j: removed from the configuration; its running process is left to finish" ||
	    fail "$j: its removal is not logged"
done
# Two instants pass while they are gone.
wait_until $((t_rm + 3))

# --- added back while the old processes still run --------------------------------------
jobs_write "every 2s"
t_add=$(now)
run_cmd ctl reload
expect_eq "reload 2 (added back)" "$rc $out" "0 reloaded: 3 jobs"
for j in ov al; do
	wait_for "2 instances of $j after it came back" 10 eval "[ \"\$(sql \"SELECT
	    count(*) FROM runs WHERE job = '$j' AND scheduled_at > $t_add\")\" -ge 2 ]"
done
wait_for "an instance of rp after it came back to end" 15 eval "[ \"\$(sql \"SELECT
    count(*) FROM runs WHERE job = 'rp' AND scheduled_at > $t_add AND
    status NOT IN ('queued', 'running')\")\" -ge 1 ]"

# skip and allow: the old process is in flight for the job added back.
expect_eq "ov: skipped while the old run lives" "$(sql "SELECT DISTINCT
    status || ' ' || coalesce(reason, '-') || ' ' || coalesce(detail, '-')
    FROM runs WHERE job = 'ov' AND scheduled_at > $t_add")" "skipped overlap $ov1 is still running"
expect_eq "al: skipped while the old run lives" "$(sql "SELECT DISTINCT
    status || ' ' || coalesce(reason, '-') || ' ' || coalesce(detail, '-')
    FROM runs WHERE job = 'al' AND scheduled_at > $t_add")" "skipped overlap max_parallel (1) instances are in flight"
expect_eq "ov: its old process goes on, alone" "$(procs zz-ov)" "$pov"
expect_eq "al: its old process goes on, alone" "$(procs zz-al)" "$pal"
expect_eq "ov, al: one process each" "$(lines "$dir/ov.out") $(lines "$dir/al.out")" "1 1"
# replace: the old definition's process is the one replaced.
expect_eq "rp: the old run, replaced" "$(sql "SELECT status, reason FROM runs
    WHERE run_id = '$rp1'")" "terminated|replaced"
wait_for "rp's old process to be gone" 10 eval '! pid_alive "$prp"'
expect_eq "rp: the next instance started after the old one ended" \
    "$(sql "SELECT count(*) FROM runs r JOIN attempts a ON a.run = r.id
    WHERE r.job = 'rp' AND r.scheduled_at > $t_add AND a.started_at <
    (SELECT finished_at FROM runs WHERE run_id = '$rp1')")" 0
# Afresh: nothing planned while they were gone, nor before they came back.
expect_eq "no instance between the removal and the return" "$(sql "SELECT
    count(*) FROM runs WHERE job IN ('ov', 'al', 'rp') AND scheduled_at >
    $t_rm + 1 AND scheduled_at <= $t_add")" 0
expect_eq "no decision about the gap" "$(sql "SELECT count(*) FROM decisions
    WHERE job IN ('ov', 'al', 'rp') AND last_at > $t_rm + 1")" 0

for j in ov al rp; do
	expect_eq "$j: taken back, logged" "$(log_count "tickd: notice: job $j: added back while 1 process of its removed definition runs: it is its own again")" 1
done

# The old processes end: the jobs added back record their ends and go on.
kill -TERM $pov $pal 2>/dev/null
for j in ov al; do
	id=$(eval echo "\$${j}1")
	wait_for "$j's old run to be recorded" 10 eval "[ \"\$(sql \"SELECT status
	    FROM runs WHERE run_id = '$id'\")\" = failed ]"
	wait_for "$j to run again" 10 eval "[ \"\$(lines \"\$dir/$j.out\")\" -ge 2 ]"
done
daemon_stop_ok
expect_eq "no run id twice" "$(cat "$dir/ov.out" "$dir/al.out" "$dir/rp.out" |
    sort | uniq -d)" ""
done_ok
