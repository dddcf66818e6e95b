#!/bin/sh
# History retention and the output kept per attempt.  With history_keep =
# 10, a job's finished instances never exceed 10 (pruned to 5 every 5
# ends: server_prune_margin), failed ones are never pruned, and the database stops growing:
# its page count after 60 more runs is what it was.  Runs are added with
# "tickctl run --force" on top of an every-second schedule, so that 150
# ends take seconds, not minutes.  The tail of each attempt's output is
# bounded by output_keep: exactly the last 64 KiB of 200 KiB by default,
# none with output_keep = 0.
. tests/integration/lib.sh
setup
[ -n "$python" ] || { echo "python3 is missing"; exit 77; }
soft_checks=1
write_conf "history_keep = 10"

# 4000 bytes of output per run, kept: each row weighs a page.  Its own
# instances run beside the manual ones (overlap = allow, no limit): none
# is skipped, so every instance ends.
write_job tick.job <<'EOF'
[tick]
schedule = * * * * * *
overlap = allow
max_parallel = 1000
command = head -c 4000 /dev/zero | tr '\0' x
EOF
# Fails after 1.2 s (not "instantly": never throttled).
write_job fail.job <<'EOF'
[fail]
schedule = */2 * * * * *
command = echo "$TICKD_RUN_ID" >> @DIR@/fail.out; sleep 1.2; exit 1
EOF
# Still running for its whole life: every later instance is skipped.
write_job stuck.job <<'EOF'
[stuck]
schedule = * * * * * *
command = sleep 600
EOF
# 200 KiB of output: 2048 numbered lines of 100 bytes.
write_job output.job <<'EOF'
[big]
schedule = @yearly
command = awk 'BEGIN { for (i = 0; i < 2048; i++) printf "%099d\n", i }'

[small]
schedule = @yearly
output_keep = 100
command = awk 'BEGIN { for (i = 0; i < 2048; i++) printf "%099d\n", i }'

[nokeep]
schedule = @yearly
output_keep = 0
command = echo "this is not kept"
EOF
daemon_start

# --- output_keep ---------------------------------------------------------------------
awk 'BEGIN { for (i = 0; i < 2048; i++) printf "%099d\n", i }' >"$dir/big.want"
expect_eq "the output is 200 KiB" "$(wc -c <"$dir/big.want")" 204800
for j in big small nokeep; do
	run_cmd ctl run --wait "$j"
	expect_eq "run --wait $j: exit" "$rc" 0
	eval "id_$j=\$out"
done
# shellcheck disable=SC2154
sql "SELECT writefile('$dir/big.tail', a.output_tail) FROM attempts a JOIN runs r
    ON a.run = r.id WHERE r.run_id = '$id_big'" >/dev/null
expect_eq "big: 64 KiB kept" "$(wc -c <"$dir/big.tail")" 65536
tail -c 65536 "$dir/big.want" >"$dir/big.want.tail"
expect_eq "big: the last 64 KiB" "$(cmp "$dir/big.tail" "$dir/big.want.tail" && echo same)" same
expect_eq "big: show --json gives the same tail" "$(ctl --json show "$id_big" |
    jpy '__import__("hashlib").sha256(o["attempt_list"][0]["output_tail"].encode()).hexdigest()')" \
    "$(sha256sum <"$dir/big.want.tail" | cut -d ' ' -f 1)"
expect_eq "big: show prints the tail's lines" "$(ctl show "$id_big" |
    grep -c '^  | [0-9]\{99\}$')" 655
# shellcheck disable=SC2154
expect_eq "small (output_keep = 100): the last 100 bytes" "$(sql "SELECT
    length(a.output_tail) || ' ' || hex(a.output_tail) FROM attempts a JOIN runs r
    ON a.run = r.id WHERE r.run_id = '$id_small'")" \
    "100 $(tail -c 100 "$dir/big.want" | od -An -v -tx1 | tr -d ' \n' |
    tr 'a-f' 'A-F')"
# shellcheck disable=SC2154
expect_eq "nokeep (output_keep = 0): nothing kept" "$(sql "SELECT
    quote(a.output_tail) FROM attempts a JOIN runs r ON a.run = r.id
    WHERE r.run_id = '$id_nokeep'")" NULL
expect_match "nokeep: show says so" "$(ctl show "$id_nokeep")" "*
output: none kept
full output:  journalctl -u tickd TICKD_RUN_ID=$id_nokeep"
log_has "$id_nokeep: stdout: this is not kept" ||
    check_fail "nokeep: the output is still logged"

# --- history_keep ----------------------------------------------------------------------
# ended JOB: the finished instances of JOB the store keeps.
ended() {
	sql "SELECT count(*) FROM runs WHERE job = '$1' AND status NOT IN
	    ('pending', 'queued', 'running', 'retrying', 'interrupted')"
}
# runs N: N manual runs of tick, one after the other, then wait for their
# end; record the largest count of tick's finished instances seen, and
# the run ids in $dir/tick.ids.
most=0
runs() {
	_n=0
	while [ "$_n" -lt "$1" ]; do
		ctl run --force tick >>"$dir/tick.ids" ||
		    check_fail "run --force tick: exit $?"
		_e=$(ended tick)
		[ "$_e" -gt "$most" ] && most=$_e
		_n=$((_n + 1))
	done
	wait_for "tick's manual runs to end" 10 eval '[ "$(sql "SELECT count(*)
	    FROM runs WHERE job = '"'tick'"' AND origin = '"'manual'"' AND
	    status = '"'succeeded'"'")" -ge 5 ] && [ "$(sql "SELECT count(*)
	    FROM runs WHERE job = '"'tick'"' AND origin = '"'manual'"' AND
	    status IN ('"'running', 'queued', 'pending'"')")" -eq 0 ]'
	_e=$(ended tick)
	[ "$_e" -gt "$most" ] && most=$_e
}
# Failures meanwhile: 25 forced runs of fail at once, on top of its own.
i=0
while [ "$i" -lt 25 ]; do
	ctl run --force fail >/dev/null || check_fail "run --force fail: exit $?"
	i=$((i + 1))
done
runs 60
pages_a=$(sql "PRAGMA page_count")
runs 60
pages_b=$(sql "PRAGMA page_count")
echo "tick: $(sql "SELECT count(*) FROM runs WHERE job = 'tick'") rows after 120+ runs, at most $most finished; $pages_a pages, then $pages_b after 60 more runs"
expect_eq "tick: at most 10 finished instances kept" \
    "$([ "$most" -le 10 ] && echo yes || echo "no: $most")" yes
expect_eq "tick: at least the 5 newest kept" "$([ "$(ended tick)" -ge 5 ] && echo yes)" yes
# A run id names one instance for good (TICKD_RUN_ID, the journal): a
# manual run must not get the id of one that was pruned.
expect_eq "tick: no run id given twice" "$(sort "$dir/tick.ids" | uniq -d |
    head -n 3)" ""
expect_eq "tick: the 5 newest manual runs kept" "$(for id in $(tail -n 5 "$dir/tick.ids"); do
    sql "SELECT count(*) FROM runs WHERE run_id = '$id'"; done | sort -u)" 1
expect_eq "tick: no orphan attempts" "$(sql "SELECT count(*) FROM attempts
    WHERE run NOT IN (SELECT id FROM runs)")" 0
expect_eq "the database stops growing (60 more runs: at most 4 more pages)" \
    "$([ "$pages_b" -le $((pages_a + 4)) ] && echo yes)" yes
wait_for "fail's forced runs to end" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '"'fail'"' AND origin = '"'manual'"' AND status = '"'failed'"'")" -eq 25 ]'
# Paused first: an instance started between the count of its lines and
# that of its rows would be one but not yet the other.
ctl pause fail >/dev/null || fail "tickctl pause fail"
wait_for "every run of fail to end" 10 eval '[ "$(sql "SELECT count(*) FROM runs
    WHERE job = '"'fail'"' AND status = '"'running'"'")" -eq 0 ]'
nfail=$(sort -u "$dir/fail.out" | wc -l)
expect_eq "fail: every failed instance kept ($nfail)" "$(sql "SELECT count(*)
    FROM runs WHERE job = 'fail' AND status = 'failed'")" "$nfail"
expect_eq "fail: more than 20 ends (a prune ran)" "$([ "$nfail" -gt 20 ] && echo yes)" yes

# A job that never ends an instance: its skipped instances are within the
# same bound (45 refused runs on top of its every-second skips).
i=0
while [ "$i" -lt 45 ]; do
	ctl run stuck >/dev/null 2>&1
	[ $? -eq 1 ] || check_fail "run stuck: not refused"
	i=$((i + 1))
done
expect_eq "stuck: at most 10 finished (skipped) instances kept" \
    "$(n=$(ended stuck); [ "$n" -le 10 ] && echo yes || echo "no: $n")" yes
daemon_stop_ok
done_ok
