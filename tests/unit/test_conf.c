/*
 * test_conf.c -- unit tests of configuration loading: tickd.conf and the
 * *.job files of its jobs_dir, every key type (the policy keys too:
 * overlap, misfire, retries, timeouts, recover, on_failure ...), defaults,
 * the error list
 * ("file:line: key: message", with the line of the offending key), which
 * jobs survive a bad file or a bad value, files that are skipped or
 * refused, the inih traps (inline comments, line length, NUL bytes, CRLF,
 * BOM), the hashes that tell a reload what changed, and keeping a job's
 * previous definition on reload.
 *
 * Each case writes a config tree into its own directory under a mkdtemp
 * directory: tickd.conf (DAEMON unless the case gives one) and jobs.d/
 * with the case's files, then calls conf_load and compares the causes (in
 * order, exactly; a leading '~' means "contains"), the valid job ids (in
 * the conf's sorted order), bad_ids (in discovery order), bad_files (names
 * in jobs.d) and some fields.  Templates: $J is the jobs directory, $C the
 * tickd.conf path, $D the case directory, $Z the zone directory, $B a
 * UTF-8 BOM, $N a NUL byte, $<n><c> the character c n times, $$ a '$'.
 *
 * Zones come from the fat fixtures (TZDIR is set to tests/data/tzif/fat;
 * TICKD_TESTDATA overrides tests/data), TZ is UTC unless a case says
 * otherwise.  Cases marked root need it: tickd refuses unsafe files, and
 * switches users, only as root; they are skipped otherwise.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "policy.h"
#include "schedule.h"
#include "tz.h"

#include "t.h"

#define NFILES		8
#define NCAUSES		20
#define NCHECKS		24

#define DAEMON		"[daemon]\njobs_dir = jobs.d\nstate = state/tickd.db\n" \
			"timezone = UTC\n"
#define JOB(id, sched, cmd) "[" id "]\nschedule = " sched "\ncommand = " cmd "\n"
#define REFUSED		"refused: tickd runs as root and the file must be " \
			"owned by root and not writable by group or others "
#define BADID		"a job id is 1-48 characters of A-Z a-z 0-9 _ . -"
#define NODUR(v)	"\"" v "\" is not a duration (examples: 90s, 15m, " \
			"1h30m, 2d)"

/*
 * A file in jobs.d ("../x" is beside it, in the case directory).  The
 * name may say more: "x.job mode=0664", "x.job uid=1000" (else 0644 and
 * root), "x.job -> TARGET" (a symbolic link), "x.d/" (a directory, 0755,
 * or "x.d/ mode=1777", "x.d/ uid=1000"), "x.job fifo" (a FIFO).
 */
struct tfile {
	const char	*name;		/* NULL ends the list */
	const char	*text;		/* template */
};

/* A field of a job (job != NULL) or of the conf, as text. */
struct fcheck {
	const char	*job;
	const char	*field;
	const char	*want;		/* template */
};

struct conf_case {
	const char	*name;
	int		 root;		/* needs root */
	const char	*daemon;	/* tickd.conf template, NULL: DAEMON */
	int		 daemon_mode;	/* 0: 0644, -1: no tickd.conf */
	const char	*tz;		/* $TZ, NULL: UTC */
	struct tfile	 files[NFILES];
	int		 null;		/* conf_load returns NULL */
	const char	*causes[NCAUSES];
	const char	*ids;		/* "a|b", "" none */
	const char	*bad_ids;
	const char	*bad_files;
	struct fcheck	 checks[NCHECKS];
};

static const struct conf_case conf_cases[] = {
	/* Every job key, values with ';' and '#' kept verbatim. */
	{ "every key", 1, NULL, 0, NULL, { { "full.job",
	    "# a comment, then a blank line\n"			/* 1 */
	    "\n"
	    "[full]\n"						/* 3 */
	    "description = Nightly backup ; of /srv # really\n"
	    "schedule = 30 2 * * *\n"				/* 5 */
	    "timezone = Europe/Berlin\n"
	    "dst_gap = skip\n"					/* 7 */
	    "dst_fold = both\n"
	    "command = /usr/bin/backup --all ; echo done # not a comment\n"
	    "user = root\n"					/* 10 */
	    "group = root\n"
	    "workdir = /srv\n"					/* 12 */
	    "environment = GREETING=hello big world\n"
	    "environment = B=2\n"				/* 14 */
	    "environment = C=3\n"
	    "  D=4\n"						/* 16 */
	    "\tE=five = 5\n"
	    "random_delay = 10m\n"				/* 18 */
	    "enabled = no\n"
	    "; a comment line\n"				/* 20 */
	    "# another\n" } },
	    0, { NULL }, "full", "", "",
	    { { "full", "description", "Nightly backup ; of /srv # really" },
	      { "full", "schedule", "30 2 * * *" },
	      { "full", "tz", "Europe/Berlin" },
	      { "full", "gap", "skip" },
	      { "full", "fold", "both" },
	      { "full", "command", "/usr/bin/backup --all ; echo done "
		  "# not a comment" },
	      { "full", "cred", "root 0 0 /root root" },
	      { "full", "workdir", "/srv" },
	      { "full", "env", "GREETING=hello big world|B=2|C=3|D=4|"
		  "E=five = 5" },
	      { "full", "random_delay", "600" },
	      { "full", "enabled", "0" },
	      { "full", "line", "3" },
	      { "full", "file", "$J/full.job" } } },

	/* Defaults of a job with only the required keys, and the daemon's. */
	{ "defaults", 0, "[daemon]\njobs_dir = jobs.d\n", 0, NULL,
	    { { "d.job", JOB("d", "@daily", "true") } },
	    0, { NULL }, "d", "", "",
	    { { "d", "enabled", "1" },
	      { "d", "random_delay", "0" },
	      { "d", "gap", "auto" },
	      { "d", "fold", "auto" },
	      { "d", "timezone", "UTC" },
	      { "d", "tz", "UTC" },
	      { "d", "user", "(null)" },
	      { "d", "group", "(null)" },
	      { "d", "workdir", "(null)" },
	      { "d", "description", "(null)" },
	      { "d", "env", "" },
	      { NULL, "daemon", "60 256 6 /run/tickd/tickd.sock" },
	      { NULL, "paths", "$D/jobs.d /var/lib/tickd/tickd.db UTC" } } },

	{ "every daemon key", 0,
	    "[daemon]\n"
	    "jobs_dir = jobs.d\n"
	    "state = /var/lib/x.db\n"
	    "lease = 5s\n"
	    "max_running = 100000\n"
	    "log_level = debug\n"
	    "control = run/ctl.sock\n"
	    "timezone = America/New_York\n", 0, NULL,
	    { { "d.job", JOB("d", "@daily", "true") } },
	    0, { NULL }, "d", "", "",
	    { { NULL, "daemon", "5 100000 7 $D/run/ctl.sock" },
	      { NULL, "paths", "$D/jobs.d /var/lib/x.db America/New_York" },
	      { "d", "timezone", "America/New_York" },
	      { "d", "tz", "America/New_York" } } },

	{ "log level names", 0,
	    "[daemon]\njobs_dir = jobs.d\nlog_level = Warning\nlease = 1d\n"
	    "max_running = 1\n", 0, NULL, { { NULL } },
	    0, { NULL }, "", "", "",
	    { { NULL, "daemon", "86400 1 4 /run/tickd/tickd.sock" } } },

	/* The default zone of jobs: $TZ when tickd.conf names none. */
	{ "default zone from TZ", 0, "[daemon]\njobs_dir = jobs.d\n", 0,
	    "Europe/Berlin",
	    { { "d.job", JOB("d", "@daily", "true")
		JOB("ny", "@daily", "true") "timezone = America/New_York\n" } },
	    0, { NULL }, "d|ny", "", "",
	    { { NULL, "paths", "$D/jobs.d /var/lib/tickd/tickd.db "
		  "Europe/Berlin" },
	      { "d", "tz", "Europe/Berlin" },
	      { "ny", "tz", "America/New_York" } } },
	{ "default zone from TZ with a colon", 0,
	    "[daemon]\njobs_dir = jobs.d\n", 0, ":America/New_York",
	    { { "d.job", JOB("d", "@daily", "true") } },
	    0, { NULL }, "d", "", "",
	    { { "d", "tz", "America/New_York" } } },
	{ "unknown default zone", 0, "[daemon]\njobs_dir = jobs.d\n", 0,
	    "Nowhere/Land", { { "d.job", JOB("d", "@daily", "true") } },
	    1, { "$C: timezone: unset, and the system's zone (from TZ): "
		"unknown time zone \"Nowhere/Land\": "
		"$Z/Nowhere/Land: No such file or directory" } , NULL, NULL, NULL, { { NULL } } },

	/* Every kind of schedule. */
	{ "schedule kinds", 0, NULL, 0, NULL, { { "k.job",
	    JOB("cron", "0 0 * * *", "true")
	    JOB("six", "*/5 * * * * *", "true")
	    JOB("macro", "@daily", "true")
	    JOB("every", "every 15m", "true")
	    JOB("after", "after 1h", "true")
	    JOB("reboot", "@reboot", "true") } },
	    0, { NULL }, "after|cron|every|macro|reboot|six", "", "",
	    { { "cron", "kind", "0" },
	      { "six", "kind", "0" },
	      { "six", "schedule", "*/5 * * * * *" },
	      { "macro", "kind", "0" },
	      { "every", "kind", "1" },
	      { "after", "kind", "2" },
	      { "reboot", "kind", "3" },
	      { "reboot", "schedule", "@reboot" } } },

	/* A bad value disables only its job; every cause is collected. */
	{ "bad values", 0, NULL, 0, NULL, { { "bad.job",
	    "[ok]\n"						/* 1 */
	    "schedule = @hourly\n"
	    "command = true\n"
	    "[badsched]\n"					/* 4 */
	    "schedule = every 0s\n"
	    "command = true\n"
	    "[never]\n"						/* 7 */
	    "schedule = 0 0 30 2 *\n"
	    "command = true\n"
	    "[badzone]\n"					/* 10 */
	    "schedule = @daily\n"
	    "command = true\n"
	    "timezone = Mars/Olympus\n"				/* 13 */
	    "[dotzone]\n"
	    "schedule = @daily\n"				/* 15 */
	    "timezone = ../etc\n"
	    "command = true\n"
	    "[badgap]\n"					/* 18 */
	    "dst_gap = sometimes\n"
	    "schedule = @daily\n"				/* 20 */
	    "command = true\n"
	    "[badfold]\n"					/* 22 */
	    "schedule = @daily\n"
	    "command = true\n"
	    "dst_fold = 3\n"					/* 25 */
	    "[badbool]\n"
	    "schedule = @daily\n"
	    "command = true\n"
	    "enabled = maybe\n"					/* 29 */
	    "[emptycmd]\n"
	    "schedule = @daily\n"
	    "command =\n"					/* 32 */
	    "[emptysched]\n"
	    "schedule =\n"					/* 34 */
	    "command = true\n"
	    "[relwork]\n"					/* 36 */
	    "schedule = @daily\n"
	    "command = true\n"
	    "workdir = srv/data\n"				/* 39 */
	    "[delaybig]\n"
	    "schedule = @daily\n"
	    "command = true\n"
	    "random_delay = 8d\n"				/* 43 */
	    "[delayneg]\n"
	    "schedule = @daily\n"
	    "command = true\n"
	    "random_delay = -1s\n"				/* 47 */
	    "[delaymax]\n"
	    "schedule = @daily\n"
	    "command = true\n"
	    "random_delay = 1w\n"				/* 51 */
	    "[multi]\n"
	    "schedule = every 1x\n"				/* 53 */
	    "command = true\n"
	    "enabled = perhaps\n"				/* 55 */
	    "workdir = rel\n"
	    "[gapnames]\n"					/* 57 */
	    "schedule = 30 2 * * *\n"
	    "command = true\n"
	    "dst_gap = shift\n"					/* 60 */
	    "dst_fold = second\n"
	    "[autos]\n"
	    "schedule = 30 2 * * *\n"
	    "command = true\n"
	    "dst_gap = auto\n"					/* 65 */
	    "dst_fold = auto\n"
	    "[upper]\n"
	    "schedule = @daily\n"
	    "command = true\n"
	    "dst_gap = Skip\n" } },				/* 70 */
	    0, {
	    "$J/bad.job:5: schedule: every: the interval must be at least 1s",
	    "$J/bad.job:8: schedule: schedule \"0 0 30 2 *\" never fires: no "
		"date matches its day-of-month, month and day-of-week",
	    "$J/bad.job:13: timezone: unknown time zone \"Mars/Olympus\": "
		"$Z/Mars/Olympus: No such file or directory",
	    "$J/bad.job:16: timezone: unknown time zone \"../etc\": not a "
		"zone name",
	    "$J/bad.job:19: dst_gap: \"sometimes\" is not shift or skip",
	    "$J/bad.job:25: dst_fold: \"3\" is not first, second or both",
	    "$J/bad.job:29: enabled: \"maybe\" is not yes or no",
	    "$J/bad.job:32: command: the command is empty",
	    "$J/bad.job:34: schedule: empty schedule",
	    "$J/bad.job:39: workdir: \"srv/data\" is not an absolute path",
	    "$J/bad.job:43: random_delay: \"8d\" is out of range 0s-7d",
	    "$J/bad.job:47: random_delay: " NODUR("-1s"),
	    "$J/bad.job:53: schedule: every: " NODUR("1x"),
	    "$J/bad.job:55: enabled: \"perhaps\" is not yes or no",
	    "$J/bad.job:56: workdir: \"rel\" is not an absolute path",
	    "$J/bad.job:70: dst_gap: \"Skip\" is not shift or skip" },
	    "autos|delaymax|gapnames|ok",
	    "badsched|never|badzone|dotzone|badgap|badfold|badbool|emptycmd|"
	    "emptysched|relwork|delaybig|delayneg|multi|upper", "",
	    { { "delaymax", "random_delay", "604800" },
	      { "gapnames", "gap", "shift" },
	      { "gapnames", "fold", "second" },
	      { "autos", "gap", "auto" },
	      { "autos", "fold", "auto" },
	      { "ok", "line", "1" } } },

	/* Policies: the defaults of a job that sets none. */
	{ "policy defaults", 0, NULL, 0, NULL,
	    { { "p.job", JOB("p", "@hourly", "true") } },
	    0, { NULL }, "p", "", "",
	    { { "p", "overlap", "skip" },
	      { "p", "queue_limit", "3" },
	      { "p", "max_parallel", "4" },
	      { "p", "misfire", "run_once" },
	      { "p", "misfire_grace", "60" },
	      { "p", "catch_up_limit", "100" },
	      { "p", "retries", "0" },
	      { "p", "retry_delay", "30" },
	      { "p", "retry_delay_max", "3600" },
	      { "p", "retry_on_exit", "any" },
	      { "p", "retry_any", "1" },
	      { "p", "retry_codes", "" },
	      { "p", "timeout", "0" },
	      { "p", "kill_signal", "15" },
	      { "p", "kill_grace", "10" },
	      { "p", "recover", "rerun" },
	      { "p", "on_failure", "(null)" },
	      { "p", "only_if", "(null)" },
	      { "p", "on_failure_timeout", "300" },
	      { "p", "expect_success_within", "0" } } },

	/* Every policy key set, at the top of its range. */
	{ "policy values, largest", 0, NULL, 0, NULL, { { "pv.job",
	    "[big]\n"
	    "schedule = @hourly\n"
	    "command = true\n"
	    "overlap = queue\n"
	    "queue_limit = 1000\n"
	    "max_parallel = 1000\n"
	    "misfire = catch_up\n"
	    "misfire_grace = 7d\n"
	    "catch_up_limit = 10000\n"
	    "retries = 100\n"
	    "retry_delay = 1d\n"
	    "retry_delay_max = 1w\n"
	    "retry_on_exit = 75,111\n"
	    "timeout = 30d\n"
	    "kill_signal = SIGINT\n"
	    "kill_grace = 1h\n"
	    "recover = abandon\n"
	    "on_failure = mail -s \"$$TICKD_JOB failed\" root ; logger x\n"
	    "  echo second line\n"
	    "on_failure_timeout = 1d\n"
	    "expect_success_within = 366d\n" } },
	    0, { NULL }, "big", "", "",
	    { { "big", "overlap", "queue" },
	      { "big", "queue_limit", "1000" },
	      { "big", "max_parallel", "1000" },
	      { "big", "misfire", "catch_up" },
	      { "big", "misfire_grace", "604800" },
	      { "big", "catch_up_limit", "10000" },
	      { "big", "retries", "100" },
	      { "big", "retry_delay", "86400" },
	      { "big", "retry_delay_max", "604800" },
	      { "big", "retry_on_exit", "75,111" },
	      { "big", "retry_any", "0" },
	      { "big", "retry_codes", "75,111" },
	      { "big", "timeout", "2592000" },
	      { "big", "kill_signal", "2" },
	      { "big", "kill_grace", "3600" },
	      { "big", "recover", "abandon" },
	      { "big", "on_failure", "mail -s \"$$TICKD_JOB failed\" root ; "
		  "logger x\necho second line" },
	      { "big", "on_failure_timeout", "86400" },
	      { "big", "expect_success_within", "31622400" } } },

	/* ... at the bottom, and the other words. */
	{ "policy values, smallest", 0, NULL, 0, NULL, { { "pv.job",
	    "[small]\n"
	    "schedule = @hourly\n"
	    "command = true\n"
	    "overlap = allow\n"
	    "queue_limit = 1\n"
	    "max_parallel = 1\n"
	    "misfire = skip\n"
	    "misfire_grace = 1s\n"
	    "catch_up_limit = 1\n"
	    "retries = 0\n"
	    "retry_delay = 1s\n"
	    "retry_delay_max = 1\n"
	    "retry_on_exit = 1, 255\n"
	    "timeout = 0\n"
	    "kill_signal = 9\n"
	    "kill_grace = 1s\n"
	    "recover = rerun\n"
	    "on_failure = true\n"
	    "on_failure_timeout = 1s\n"
	    "expect_success_within = 0s\n"
	    "[replace]\n"
	    "schedule = @hourly\n"
	    "command = true\n"
	    "overlap = replace\n"
	    "misfire = run_once\n"
	    "kill_signal = kill\n"
	    "retry_on_exit = any\n"
	    "timeout = 1h30m\n"
	    "expect_success_within = 2d 12h\n"
	    "[skip]\n"
	    "schedule = @hourly\n"
	    "command = true\n"
	    "overlap = skip\n"
	    "kill_signal = sigusr1\n"
	    "retry_on_exit = 75\n" } },
	    0, { NULL }, "replace|skip|small", "", "",
	    { { "small", "overlap", "allow" },
	      { "small", "queue_limit", "1" },
	      { "small", "max_parallel", "1" },
	      { "small", "misfire", "skip" },
	      { "small", "misfire_grace", "1" },
	      { "small", "catch_up_limit", "1" },
	      { "small", "retry_delay_max", "1" },
	      { "small", "retry_codes", "1,255" },
	      { "small", "retry_any", "0" },
	      { "small", "kill_signal", "9" },
	      { "small", "recover", "rerun" },
	      { "small", "on_failure", "true" },
	      { "small", "on_failure_timeout", "1" },
	      { "replace", "overlap", "replace" },
	      { "replace", "misfire", "run_once" },
	      { "replace", "kill_signal", "9" },
	      { "replace", "retry_any", "1" },
	      { "replace", "retry_codes", "" },
	      { "replace", "timeout", "5400" },
	      { "replace", "expect_success_within", "216000" },
	      { "skip", "overlap", "skip" },
	      { "skip", "kill_signal", "10" },
	      { "skip", "retry_codes", "75" },
	      { "skip", "retry_any", "0" } } },

	/*
	 * only_if: a command, continued like any; a batch listed by
	 * shards_from may have one, a static shards list may not.
	 */
	{ "only_if", 0, NULL, 0, NULL, { { "oi.job",
	    "[cond]\n"						/* 1 */
	    "schedule = @hourly\n"
	    "command = /usr/sbin/foo\n"
	    "only_if = test -x /usr/sbin/foo &&\n"
	    "  test -d /var/lib/foo\n"				/* 5 */
	    "[listed]\n"
	    "schedule = @hourly\n"
	    "command = true\n"
	    "shards_from = echo a\n"
	    "only_if = true\n"					/* 10 */
	    "[static]\n"
	    "schedule = @hourly\n"
	    "command = true\n"
	    "shards = 4\n"
	    "only_if = true\n" } },				/* 15 */
	    0, { "$J/oi.job:15: only_if: job \"static\" has a static shards "
		"list (line 14), which starts no process of its instance to "
		"check it first: use shards_from, or test in the command" },
	    "cond|listed", "static", "",
	    { { "cond", "only_if", "test -x /usr/sbin/foo &&\n"
		"test -d /var/lib/foo" },
	      { "listed", "only_if", "true" } } },

	/* A bad value of each policy type: only its job is out. */
#define PJ(id, kv)	"[" id "]\nschedule = @hourly\ncommand = true\n" kv "\n"
	{ "policy bad values", 0, NULL, 0, NULL, { { "pb.job",
	    PJ("overlap", "overlap = sometimes")		/* 4 */
	    PJ("queue0", "queue_limit = 0")			/* 8 */
	    PJ("parallel", "max_parallel = 1001")		/* 12 */
	    PJ("grace", "misfire_grace = 5x")			/* 16 */
	    PJ("signal", "kill_signal = SIGFOO")		/* 20 */
	    PJ("codes", "retry_on_exit = 0,75")			/* 24 */
	    PJ("recover", "recover = maybe")			/* 28 */
	    PJ("misfire", "misfire = maybe")			/* 32 */
	    PJ("words", "queue_limit = three")			/* 36 */
	    PJ("emptycmd", "on_failure =")			/* 40 */
	    PJ("sig0", "kill_signal = 0")			/* 44 */
	    PJ("upper", "overlap = Skip")			/* 48 */
	    PJ("nocodes", "retry_on_exit =")			/* 52 */
	    PJ("comma", "retry_on_exit = 75,")			/* 56 */
	    PJ("good", "overlap = queue") } },			/* 60 */
	    0, {
	    "$J/pb.job:4: overlap: \"sometimes\" is not skip, queue, allow or "
		"replace",
	    "$J/pb.job:8: queue_limit: \"0\" is out of range 1-1000",
	    "$J/pb.job:12: max_parallel: \"1001\" is out of range 1-1000",
	    "$J/pb.job:16: misfire_grace: " NODUR("5x"),
	    "$J/pb.job:20: kill_signal: \"SIGFOO\" is not a signal (TERM, INT, "
		"HUP, ... or a number)",
	    "$J/pb.job:24: retry_on_exit: \"0,75\" is not \"any\" or a list of "
		"exit codes 1-255",
	    "$J/pb.job:28: recover: \"maybe\" is not rerun or abandon",
	    "$J/pb.job:32: misfire: \"maybe\" is not run_once, catch_up or "
		"skip",
	    "$J/pb.job:36: queue_limit: \"three\" is not a whole number",
	    "$J/pb.job:40: on_failure: the command is empty",
	    "$J/pb.job:44: kill_signal: \"0\" is not a signal (TERM, INT, "
		"HUP, ... or a number)",
	    "$J/pb.job:48: overlap: \"Skip\" is not skip, queue, allow or "
		"replace",
	    "$J/pb.job:52: retry_on_exit: \"\" is not \"any\" or a list of "
		"exit codes 1-255",
	    "$J/pb.job:56: retry_on_exit: \"75,\" is not \"any\" or a list of "
		"exit codes 1-255" },
	    "good", "overlap|queue0|parallel|grace|signal|codes|recover|"
	    "misfire|words|emptycmd|sig0|upper|nocodes|comma", "",
	    { { "good", "overlap", "queue" } } },

	/* Sizes: units, bounds, and numbers too large for any unit. */
	{ "output_keep sizes", 0, NULL, 0, NULL, { { "ok.job",
	    PJ("k64", "output_keep = 64kB")			/* 4 */
	    PJ("m1", "output_keep = 1M")			/* 8 */
	    PJ("m2", "output_keep = 2M")			/* 12 */
	    PJ("huge", "output_keep = 9999999999G")		/* 16 */
	    PJ("huger", "output_keep = 99999999999999999999")	/* 20 */
	    PJ("unit", "output_keep = 5x") } },			/* 24 */
	    0, {
	    "$J/ok.job:12: output_keep: \"2M\" is out of range 0-1048576",
	    "$J/ok.job:16: output_keep: \"9999999999G\" is out of range "
		"0-1048576",
	    "$J/ok.job:20: output_keep: \"99999999999999999999\" is not a "
		"size (examples: 512, 64k, 1M)",
	    "$J/ok.job:24: output_keep: \"5x\" is not a size (examples: 512, "
		"64k, 1M)" },
	    "k64|m1", "m2|huge|huger|unit", "", { { NULL, NULL, NULL } } },

	/* Resource limits: systemd's units and forms, and their bounds. */
	{ "limits: values", 0, NULL, 0, NULL, { { "lim.job",
	    PJ("all", "memory_max = 2G\nmemory_high = 1536M\n"	/* 4 */
		"cpu_weight = 20\ncpu_max = 12.5%\ntasks_max = 64\n"
		"io_weight = 10000")
	    PJ("inf", "memory_max = infinity\ntasks_max = infinity") /* 13 */
	    PJ("twocpu", "cpu_max = 250%")				/* 18 */
	    PJ("mem0", "memory_max = 0")				/* 22 */
	    PJ("memunit", "memory_max = 2Q")			/* 26 */
	    PJ("mempct", "memory_max = 150%")			/* 30 */
	    PJ("cpu0", "cpu_max = 0%")				/* 34 */
	    PJ("cpunopct", "cpu_max = 50")				/* 38 */
	    PJ("cpu3dec", "cpu_max = 1.234%")			/* 42 */
	    PJ("weight0", "cpu_weight = 0")				/* 46 */
	    PJ("weightbig", "io_weight = 10001")			/* 50 */
	    PJ("tasksfrac", "tasks_max = 1.5")			/* 54 */
	    PJ("taskshuge", "tasks_max = 9999999")			/* 58 */
	    PJ("neg", "memory_high = -1") } },			/* 62 */
	    0, {
	    "$J/lim.job:22: memory_max: \"0\" is out of range (1 to infinity)",
	    "$J/lim.job:26: memory_max: \"2Q\" is not a size (512M, 2G), a "
		"percentage of the memory (50%) or infinity",
	    "$J/lim.job:30: memory_max: \"150%\": a percentage must be above "
		"0% and at most 100%",
	    "$J/lim.job:34: cpu_max: \"0%\" is not a percentage of one CPU "
		"above 0% (50%, 150%, 12.5%)",
	    "$J/lim.job:38: cpu_max: \"50\" is not a percentage of one CPU "
		"above 0% (50%, 150%, 12.5%)",
	    "$J/lim.job:42: cpu_max: \"1.234%\" is not a percentage of one "
		"CPU above 0% (50%, 150%, 12.5%)",
	    "$J/lim.job:46: cpu_weight: \"0\" is out of range 1-10000",
	    "$J/lim.job:50: io_weight: \"10001\" is out of range 1-10000",
	    "$J/lim.job:54: tasks_max: \"1.5\" is not a number, a percentage "
		"of the system's limit (10%) or infinity",
	    "$J/lim.job:58: tasks_max: \"9999999\" is out of range (1 to "
		"4194304)",
	    "$J/lim.job:62: memory_high: \"-1\" is not a size (512M, 2G), a "
		"percentage of the memory (50%) or infinity" },
	    "all|inf|twocpu", "mem0|memunit|mempct|cpu0|cpunopct|cpu3dec|"
	    "weight0|weightbig|tasksfrac|taskshuge|neg", "",
	    { { "all", "limits", "2147483648 1610612736 20 1250 64 10000" },
	      { "inf", "limits", "inf - - - inf -" },
	      { "twocpu", "limits", "- - - 25000 - -" } } },

	/* The bounds of each policy number; all causes of a job. */
	{ "policy bounds", 0, NULL, 0, NULL, { { "pr.job",
	    PJ("grace0", "misfire_grace = 0")			/* 4 */
	    PJ("grace8d", "misfire_grace = 8d")			/* 8 */
	    PJ("catchup", "catch_up_limit = 10001")		/* 12 */
	    PJ("retries", "retries = 101")			/* 16 */
	    PJ("retriesneg", "retries = -1")			/* 20 */
	    PJ("delay0", "retry_delay = 0")			/* 24 */
	    PJ("delaymax", "retry_delay_max = 8d")		/* 28 */
	    PJ("timeout", "timeout = 31d")			/* 32 */
	    PJ("grace2h", "kill_grace = 2h")			/* 36 */
	    PJ("oftimeout", "on_failure_timeout = 0")		/* 40 */
	    PJ("expect", "expect_success_within = 367d")	/* 44 */
	    PJ("sig65", "kill_signal = 65")			/* 48 */
	    "[many]\n"						/* 49 */
	    "schedule = @hourly\n"
	    "command = true\n"
	    "overlap = often\n"					/* 52 */
	    "misfire = never\n"
	    "retries = 1000\n"					/* 54 */
	    "retry_on_exit = 75;76\n" } },
	    0, {
	    "$J/pr.job:4: misfire_grace: \"0\" is out of range 1s-7d",
	    "$J/pr.job:8: misfire_grace: \"8d\" is out of range 1s-7d",
	    "$J/pr.job:12: catch_up_limit: \"10001\" is out of range 1-10000",
	    "$J/pr.job:16: retries: \"101\" is out of range 0-100",
	    "$J/pr.job:20: retries: \"-1\" is out of range 0-100",
	    "$J/pr.job:24: retry_delay: \"0\" is out of range 1s-1d",
	    "$J/pr.job:28: retry_delay_max: \"8d\" is out of range 1s-7d",
	    "$J/pr.job:32: timeout: \"31d\" is out of range 0s-30d",
	    "$J/pr.job:36: kill_grace: \"2h\" is out of range 1s-1h",
	    "$J/pr.job:40: on_failure_timeout: \"0\" is out of range 1s-1d",
	    "$J/pr.job:44: expect_success_within: \"367d\" is out of range "
		"0s-366d",
	    "$J/pr.job:48: kill_signal: \"65\" is not a signal (TERM, INT, "
		"HUP, ... or a number)",
	    "$J/pr.job:52: overlap: \"often\" is not skip, queue, allow or "
		"replace",
	    "$J/pr.job:53: misfire: \"never\" is not run_once, catch_up or "
		"skip",
	    "$J/pr.job:54: retries: \"1000\" is out of range 0-100",
	    "$J/pr.job:55: retry_on_exit: \"75;76\" is not \"any\" or a list "
		"of exit codes 1-255" },
	    "", "grace0|grace8d|catchup|retries|retriesneg|delay0|delaymax|"
	    "timeout|grace2h|oftimeout|expect|sig65|many", "", { { NULL } } },
#undef PJ

	/* Users and groups: resolved at load time. */
	{ "users and groups", 1, NULL, 0, NULL, { { "ug.job",
	    "[asroot]\n"					/* 1 */
	    "schedule = @daily\n"
	    "command = true\n"
	    "user = root\n"
	    "[nouser]\n"					/* 5 */
	    "schedule = @daily\n"
	    "command = true\n"
	    "user = tickd-no-such-user\n"			/* 8 */
	    "[nogroup]\n"
	    "schedule = @daily\n"				/* 10 */
	    "group = tickd-no-such-group\n"
	    "command = true\n"
	    "[spaceuser]\n"
	    "schedule = @daily\n"
	    "command = true\n"					/* 15 */
	    "user = a b\n"
	    "[asnobody]\n"
	    "schedule = @daily\n"
	    "command = true\n"
	    "user = nobody\n"					/* 20 */
	    "group = root\n"
	    "[nobodyown]\n"
	    "schedule = @daily\n"
	    "command = true\n"
	    "user = nobody\n" } },				/* 25 */
	    0, {
	    "$J/ug.job:8: user: unknown user \"tickd-no-such-user\"",
	    "$J/ug.job:11: group: unknown group \"tickd-no-such-group\"",
	    "$J/ug.job:16: user: \"a b\" is not a valid name" },
	    "asnobody|asroot|nobodyown", "nouser|nogroup|spaceuser", "",
	    { { "asroot", "cred", "root 0 0 /root root" },
	      { "asnobody", "cred", "nobody 65534 0 /nonexistent nobody" },
	      { "nobodyown", "cred", "nobody 65534 65534 /nonexistent "
		  "nobody" } } },
	/*
	 * A known user with an unknown group: the cause must name the
	 * group key and its line (17), not the user's (14).
	 */
	{ "known user, unknown group", 1, NULL, 0, NULL, { { "ug.job",
	    "# 1\n# 2\n# 3\n# 4\n# 5\n# 6\n# 7\n# 8\n# 9\n# 10\n# 11\n# 12\n"
	    "[usergroup]\n"					/* 13 */
	    "user = root\n"					/* 14 */
	    "schedule = @daily\n"
	    "command = true\n"
	    "group = tickd-no-such-group\n" } },		/* 17 */
	    0, { "$J/ug.job:17: group: unknown group "
		"\"tickd-no-such-group\"" },
	    "", "usergroup", "", { { NULL } } },

	/* Environment: NAME=value lines, repeated keys, continuations. */
	{ "environment", 0, NULL, 0, NULL, { { "env.job",
	    "[env]\n"						/* 1 */
	    "schedule = @daily\n"
	    "command = env\n"
	    "environment = SP=  two  spaces  inside\n"		/* 4 */
	    "environment = EQ=a=b=c\n"
	    "environment = EMPTY=\n"				/* 6 */
	    "environment = X=1\n"
	    "environment = X=2\n"				/* 8 */
	    "environment = L1=one\n"
	    "  L2=two\n"					/* 10 */
	    "\tL3=three\n"
	    "[envbad]\n"					/* 12 */
	    "schedule = @daily\n"
	    "command = env\n"
	    "environment = 1A=x\n"				/* 15 */
	    "environment = GOOD=1\n"
	    "  A-B=x\n"						/* 17 */
	    "  NOEQUALS\n"
	    "environment =\n"					/* 19 */
	    "environment = =x\n" } },
	    0, {
	    "$J/env.job:15: environment: \"1A=x\" is not NAME=value",
	    "$J/env.job:16: environment: \"A-B=x\" is not NAME=value",
	    "$J/env.job:16: environment: \"NOEQUALS\" is not NAME=value",
	    "$J/env.job:19: environment: \"\" is not NAME=value",
	    "$J/env.job:20: environment: \"=x\" is not NAME=value" },
	    "env", "envbad", "",
	    { { "env", "env", "SP=  two  spaces  inside|EQ=a=b=c|EMPTY=|X=2|"
		  "L1=one|L2=two|L3=three" } } },

	/* enabled: the boolean words, any case; anything else is an error. */
#define EN(id, v)	"[" id "]\nschedule = @daily\ncommand = true\n" \
			"enabled = " v "\n"
	{ "enabled", 0, NULL, 0, NULL, { { "en.job",
	    EN("e_yes", "yes") EN("e_no", "no") EN("e_true", "true")
	    EN("e_false", "false") EN("e_on", "on") EN("e_off", "off")
	    EN("e_1", "1") EN("e_0", "0") EN("e_YES", "YES")
	    EN("e_Off", "Off") EN("e_2", "2") EN("e_y", "y")
	    EN("e_empty", "") } },
	    0, { "$J/en.job:44: enabled: \"2\" is not yes or no",
		"$J/en.job:48: enabled: \"y\" is not yes or no",
		"$J/en.job:52: enabled: \"\" is not yes or no" },
	    "e_0|e_1|e_Off|e_YES|e_false|e_no|e_off|e_on|e_true|e_yes",
	    "e_2|e_y|e_empty", "",
	    { { "e_yes", "enabled", "1" }, { "e_no", "enabled", "0" },
	      { "e_true", "enabled", "1" }, { "e_false", "enabled", "0" },
	      { "e_on", "enabled", "1" }, { "e_off", "enabled", "0" },
	      { "e_1", "enabled", "1" }, { "e_0", "enabled", "0" },
	      { "e_YES", "enabled", "1" }, { "e_Off", "enabled", "0" } } },
#undef EN

	/* Required keys. */
	{ "missing keys", 0, NULL, 0, NULL, { { "m.job",
	    "[nocmd]\n"						/* 1 */
	    "schedule = @daily\n"
	    "[nosched]\n"					/* 3 */
	    "command = true\n"
	    "[empty]\n"						/* 5 */
	    "# nothing\n"
	    JOB("ok", "@daily", "true") } },
	    0, { "$J/m.job:1: command: missing: job \"nocmd\" needs a command (or an exec)",
		"$J/m.job:3: schedule: missing: job \"nosched\" needs a "
		    "schedule",
		"$J/m.job:5: schedule: missing: job \"empty\" needs a schedule",
		"$J/m.job:5: command: missing: job \"empty\" needs a command (or an exec)" },
	    "ok", "nocmd|nosched|empty", "", { { NULL } } },

	/* exec: a program's words, instead of command (one of the two). */
	{ "exec", 0, NULL, 0, NULL, { { "e.job",
	    "[ok]\n"						/* 1 */
	    "schedule = @daily\n"
	    "exec = /usr/bin/foo --bar \"a b\" 'c'\n"
	    "[both]\n"						/* 4 */
	    "schedule = @daily\n"
	    "command = true\n"
	    "exec = /bin/true\n"				/* 7 */
	    "[quote]\n"					/* 8 */
	    "schedule = @daily\n"
	    "exec = /bin/echo \"a b\n"				/* 10 */
	    "[rel]\n"						/* 11 */
	    "schedule = @daily\n"
	    "exec = bin/foo\n"					/* 13 */
	    "[empty]\n"					/* 14 */
	    "schedule = @daily\n"
	    "exec =\n"						/* 16 */
	    "[name]\n"						/* 17 */
	    "schedule = @daily\n"
	    "exec = backup\n"
	    "[esc]\n"						/* 20 */
	    "schedule = @daily\n"
	    "exec = /bin/echo \\q\n"				/* 22 */
	    "[cont]\n"						/* 23 */
	    "schedule = @daily\n"
	    "exec = /bin/echo a\n"
	    "  b\n" } },
	    0, { "$J/e.job:7: exec: job \"both\" has a command too (line 6): "
		"one of them only",
		"$J/e.job:10: exec: unterminated double quote",
		"$J/e.job:13: exec: \"bin/foo\": the program must be an "
		    "absolute path, or a name looked up in PATH",
		"$J/e.job:16: exec: no program to run",
		"$J/e.job:22: exec: unknown escape \\q" },
	    "cont|name|ok", "both|quote|rel|empty|esc", "",
	    { { "ok", "exec", "/usr/bin/foo --bar \"a b\" 'c'" },
	      { "ok", "command", "(null)" },
	      { "name", "exec", "backup" },
	      { "cont", "exec", "/bin/echo a\nb" } } },

	/* Unknown keys, with a hint for the daemon's keys. */
	{ "unknown keys", 0, NULL, 0, NULL, { { "u.job",
	    "[u]\n"						/* 1 */
	    "schedule = @daily\n"
	    "command = true\n"
	    "frobnicate = 1\n"					/* 4 */
	    "lease = 5m\n"
	    "Command = x\n"					/* 6 */
	    "max_running = 3\n"
	    JOB("u2", "@daily", "true") } },
	    0, { "$J/u.job:4: frobnicate: unknown key",
		"$J/u.job:5: lease: unknown key (it belongs in [daemon] of "
		    "tickd.conf)",
		"$J/u.job:6: Command: unknown key",
		"$J/u.job:7: max_running: unknown key (it belongs in [daemon] "
		    "of tickd.conf)" },
	    "u2", "u", "", { { NULL } } },

	{ "key set twice", 0, NULL, 0, NULL, { { "t.job",
	    "[t]\n"
	    "command = a\n"					/* 2 */
	    "schedule = @daily\n"
	    "command = b\n"					/* 4 */
	    "schedule = @hourly\n" } },
	    0, { "$J/t.job:4: command: set twice (first at line 2)",
		"$J/t.job:5: schedule: set twice (first at line 3)" },
	    "", "t", "", { { NULL } } },

	{ "key outside any section", 0, NULL, 0, NULL, { { "o.job",
	    "command = stray\n"					/* 1 */
	    "; comment\n"
	    JOB("j", "@daily", "true") } },
	    0, { "$J/o.job:1: command: the key is outside any [section]" },
	    "j", "", "", { { "j", "command", "true" },
		{ "j", "line", "3" } } },

	/* Duplicate ids: the first definition wins. */
	{ "duplicate id in one file", 0, NULL, 0, NULL, { { "dup.job",
	    JOB("a", "@daily", "first")
	    JOB("a", "@hourly", "second") } },
	    0, { "$J/dup.job:4: [a]: duplicate job id (also defined at "
		"$J/dup.job:1)" },
	    "a", "", "", { { "a", "command", "first" } } },
	{ "duplicate id across files", 0, NULL, 0, NULL, {
	    { "1.job", JOB("x", "@daily", "one") },
	    { "2.job", "# two\n" JOB("x", "@daily", "two") } },
	    0, { "$J/2.job:2: [x]: duplicate job id (also defined at "
		"$J/1.job:1)" },
	    "x", "", "", { { "x", "command", "one" },
		{ "x", "file", "$J/1.job" } } },
	/* The first definition is invalid: the message still names it. */
	{ "duplicate of an invalid job", 0, NULL, 0, NULL, {
	    { "1.job", JOB("y", "every 0s", "one") },
	    { "2.job", JOB("y", "@daily", "two") } },
	    0, { "$J/1.job:2: schedule: every: the interval must be at least "
		"1s",
		"$J/2.job:1: [y]: duplicate job id (also defined at "
		"$J/1.job:1)" },
	    "", "y", "", { { NULL } } },

	/* Job ids: [A-Za-z0-9_.-], 1 to 48 of them. */
	{ "job ids", 0, NULL, 0, NULL, { { "ids.job",
	    JOB("has space", "@daily", "true")			/* 1 */
	    JOB("$49a", "@daily", "true")			/* 4 */
	    JOB("$48b", "@daily", "true")			/* 7 */
	    JOB("", "@daily", "true")				/* 10 */
	    JOB("a/b", "@daily", "true")			/* 13 */
	    JOB("ok.name-1_X", "@daily", "true")		/* 16 */
	    JOB("caf\xc3\xa9", "@daily", "true") } },		/* 19 */
	    0, { "$J/ids.job:1: [has space]: " BADID,
		"$J/ids.job:4: [$49a]: " BADID,
		"$J/ids.job:10: []: " BADID,
		"$J/ids.job:13: [a/b]: " BADID,
		"$J/ids.job:19: [caf\xc3\xa9]: " BADID },
	    "$48b|ok.name-1_X", "", "", { { NULL } } },

	/* A line inih rejects: the whole file is out, other files load. */
	{ "syntax error", 0, NULL, 0, NULL, {
	    { "syn.job",
		JOB("a", "@daily", "true")			/* 1 */
		"this line has no equals sign\n"		/* 4 */
		JOB("b", "@daily", "true")			/* 5 */
		"[unterminated\n" },				/* 8 */
	    { "z.job", JOB("c", "@daily", "true") } },
	    0, { "$J/syn.job:4: syntax error: expected [section], key = "
		"value, or a comment" },
	    "c", "a|b", "syn.job", { { NULL } } },
	{ "NUL byte", 0, NULL, 0, NULL, { { "nul.job",
	    "[n]\nschedule = @daily\ncommand = echo a$Nb\n"
	    JOB("n2", "@daily", "true") } },
	    0, { "$J/nul.job:3: the line contains a NUL byte" },
	    "", "n|n2", "nul.job", { { NULL } } },
	{ "line longer than 1 MiB", 0, NULL, 0, NULL, {
	    { "long.job", "[l]\nschedule = @daily\ncommand = $1048567x\n"
		JOB("m", "@daily", "true") },
	    { "ok.job", JOB("ok", "@daily", "true") } },
	    0, { "$J/long.job:3: the line is longer than 1048576 bytes" },
	    "ok", "l", "long.job", { { NULL } } },
	{ "file larger than 16 MiB", 0, NULL, 0, NULL, {
	    { "huge.job", JOB("huge", "@daily", "true") "# $16777200x\n" },
	    { "ok.job", JOB("ok", "@daily", "true") } },
	    0, { "$J/huge.job: larger than 16777216 bytes" },
	    "ok", "", "huge.job", { { NULL } } },
	{ "line of exactly 1 MiB", 0, NULL, 0, NULL, { { "max.job",
	    "[big]\nschedule = @daily\ncommand = true\n"
	    "description = $1048561x\n"
	    JOB("after", "@daily", "true") } },
	    0, { NULL }, "after|big", "", "",
	    { { "big", "desclen", "1048561" },
	      { "after", "command", "true" } } },
	/* What execve would refuse: an argument over 128 KiB. */
	{ "command over the kernel's limit", 0, NULL, 0, NULL, {
	    { "arg.job",
		"[max]\nschedule = @daily\ncommand = $131071x\n"
		"[over]\nschedule = @daily\ncommand = $131072x\n"
		"[var]\nschedule = @daily\ncommand = true\n"
		"environment = V=$131069x\n"
		"[varover]\nschedule = @daily\ncommand = true\n"
		"environment = V=$131072x\n" } },
	    0, { "$J/arg.job:6: command: the command is 131072 bytes long, "
		"and the kernel refuses an argument longer than 131071 bytes",
		"$J/arg.job:14: environment: \"V=$30x...\" is 131074 bytes "
		"long, and the kernel refuses a variable longer than 131071 "
		"bytes" },
	    "max|var", "over|varover", "", { { "max", "cmdlen", "131071" } } },

	/* Values of several KiB; the inih inline-comment trap. */
	{ "8 KiB values", 0, NULL, 0, NULL, { { "k8.job",
	    "[k8]\nschedule = @daily\ndescription = $8192d\n"
	    "command = $8192x\n"
	    "[k10]\nschedule = @daily\ncommand = $5000a\n  $5000b\n" } },
	    0, { NULL }, "k10|k8", "", "",
	    { { "k8", "cmdlen", "8192" },
	      { "k8", "desclen", "8192" },
	      { "k8", "command", "$8192x" },
	      { "k10", "command", "$5000a\n$5000b" } } },
	{ "values verbatim", 0, NULL, 0, NULL, { { "verb.job",
	    "[v1]\nschedule = @daily\ncommand = echo a ; echo b # c\n"
	    "[v2]\nschedule = @daily\ncommand = echo 50% done;date # %s\n"
	    "[v3]\nschedule = @daily\ncommand = #!/bin/sh is not a comment\n"
	    "[v4]\nschedule = @daily\ncommand = printf 'a:b=c' \"$$HOME\"\n"
	    "[v5]\nschedule = @daily\ncommand = a;b#c\n"
	    "description = x ;y #z ; \n" } },
	    0, { NULL }, "v1|v2|v3|v4|v5", "", "",
	    { { "v1", "command", "echo a ; echo b # c" },
	      { "v2", "command", "echo 50% done;date # %s" },
	      { "v3", "command", "#!/bin/sh is not a comment" },
	      { "v4", "command", "printf 'a:b=c' \"$$HOME\"" },
	      { "v5", "command", "a;b#c" },
	      { "v5", "description", "x ;y #z ;" } } },

	/* Continuation lines: joined with newlines, indentation dropped. */
	{ "continuation lines", 0, NULL, 0, NULL, { { "cont.job",
	    "[cont]\n"
	    "schedule = @daily\n"
	    "command = set -e\n"
	    "  cd /tmp\n"
	    "\techo \"tab indented\"\n"
	    "      echo deeper\n"
	    "environment = A=1\n"
	    "[next]\n"
	    "schedule = @daily\n"
	    "command = true\n" } },
	    0, { NULL }, "cont|next", "", "",
	    { { "cont", "command", "set -e\ncd /tmp\necho \"tab indented\"\n"
		  "echo deeper" },
	      { "cont", "env", "A=1" },
	      { "next", "command", "true" } } },
	/* A continuation line that starts with '[' is not a section. */
	{ "continuation line starting with [", 0, NULL, 0, NULL, {
	    { "br.job",
		"[br]\n"					/* 1 */
		"schedule = @daily\n"
		"command = cd /tmp\n"				/* 3 */
		"  [ -f flag ] && rm flag\n"
		"  [[ -d x ]] || mkdir x\n" } },		/* 5 */
	    0, { NULL }, "br", "", "",
	    { { "br", "command", "cd /tmp\n[ -f flag ] && rm flag\n"
		  "[[ -d x ]] || mkdir x" } } },

	/*
	 * The same in a shell case statement: "[0-9]*)" must not open a
	 * job [0-9] that takes the rest of the command.
	 */
	{ "continuation line with a case pattern", 0, NULL, 0, NULL, {
	    { "case.job",
		"[a]\n"					/* 1 */
		"schedule = @daily\n"
		"command = case \"$$1\" in\n"		/* 3 */
		"  [0-9]*) echo digit ;;\n"
		"  *) echo other ;;\n"				/* 5 */
		"  esac\n" } },
	    0, { NULL }, "a", "", "",
	    { { "a", "command", "case \"$$1\" in\n[0-9]*) echo digit ;;\n"
		  "*) echo other ;;\nesac" } } },
	/*
	 * "verbatim: ';' and '#' have no special meaning": a continuation
	 * line ";;" (a shell case statement) is part of the command.
	 */
	{ "continuation line starting with ;", 0, NULL, 0, NULL, {
	    { "semi.job",
		"[semi]\n"
		"schedule = @daily\n"
		"command = case \"$$1\" in\n"
		"  a) echo a\n"
		"  ;;\n"
		"  *) echo other\n"
		"  ;;\n"
		"  esac\n" } },
	    0, { NULL }, "semi", "", "",
	    { { "semi", "command", "case \"$$1\" in\na) echo a\n;;\n"
		  "*) echo other\n;;\nesac" } } },

	/* CRLF line endings: no '\r' reaches a value. */
	{ "CRLF line endings", 0,
	    "[daemon]\r\njobs_dir = jobs.d\r\nstate = state/tickd.db\r\n"
	    "timezone = UTC\r\n", 0, NULL, { { "crlf.job",
	    "# comment\r\n"
	    "[crlf]\r\n"
	    "schedule = @daily\r\n"
	    "command = echo hi\r\n"
	    "  echo two\r\n"
	    "environment = A=1\r\n"
	    "user = root\r\n"
	    "workdir = /tmp\r\n"
	    "[bad]\r\n"
	    "schedule = @daily\r\n"
	    "command = true\r\n"
	    "enabled = perhaps\r\n" } },
	    0, { "$J/crlf.job:12: enabled: \"perhaps\" is not yes or no" },
	    "crlf", "bad", "",
	    { { "crlf", "command", "echo hi\necho two" },
	      { "crlf", "env", "A=1" },
	      { "crlf", "workdir", "/tmp" },
	      { "crlf", "line", "2" },
	      { NULL, "paths", "$D/jobs.d $D/state/tickd.db UTC" } } },

	/* A UTF-8 byte order mark at the start of a file is skipped. */
	{ "BOM before a comment", 0, NULL, 0, NULL, { { "bom2.job",
	    "$B# comment\n" JOB("bom2", "@daily", "true") } },
	    0, { NULL }, "bom2", "", "", { { "bom2", "line", "2" } } },
	{ "BOM before a section", 0, NULL, 0, NULL, { { "bom.job",
	    "$B" JOB("bom", "@daily", "true") } },
	    0, { NULL }, "bom", "", "", { { "bom", "line", "1" } } },
	{ "BOM in tickd.conf", 0, "$B" DAEMON, 0, NULL, { { "d.job",
	    JOB("d", "@daily", "true") } },
	    0, { NULL }, "d", "", "", { { NULL } } },

	/* Only *.job files load; others are listed, sorted. */
	{ "ignored names", 0, NULL, 0, NULL, {
	    { "x.job~", JOB("ig1", "@daily", "true") },
	    { "x.job.dpkg-old", JOB("ig2", "@daily", "true") },
	    { ".hidden.job", JOB("ig3", "@daily", "true") },
	    { "README", "this is not a job file\n" },
	    { ".job", JOB("ig4", "@daily", "true") },
	    { "x.JOB", JOB("ig5", "@daily", "true") },
	    { "sub.d/", NULL },
	    { "real.job", JOB("real", "@daily", "true") } },
	    0, { NULL }, "real", "", "",
	    { { NULL, "ignored", ".hidden.job|.job|README|sub.d|x.JOB|"
		"x.job.dpkg-old|x.job~" } } },
	{ "symbolic link and directory", 0, NULL, 0, NULL, {
	    { "../target.job", JOB("t", "@daily", "true") },
	    { "link.job -> $D/target.job", NULL },
	    { "dir.job/", NULL },
	    { "ok.job", JOB("ok", "@daily", "true") } },
	    0, { "$J/dir.job: not a regular file",
		"$J/link.job: is a symbolic link, which is not followed" },
	    "ok", "", "dir.job|link.job", { { NULL } } },
	/* A FIFO is never opened: open(2) would wait for a writer. */
	{ "FIFO", 0, NULL, 0, NULL, {
	    { "fifo.job fifo", NULL },
	    { "lfifo.job -> $J/fifo.job", NULL },
	    { "ok.job", JOB("ok", "@daily", "true") } },
	    0, { "$J/fifo.job: not a regular file",
		"$J/lfifo.job: is a symbolic link, which is not followed" },
	    "ok", "", "fifo.job|lfifo.job", { { NULL } } },
	/* Text from the file is escaped in messages; at most 50 per file. */
	{ "escaped messages", 0, NULL, 0, NULL, { { "esc.job",
	    "[e\033[1mx]\nschedule = @daily\ncommand = true\n"	/* 1 */
	    "[k]\nschedule = @daily\ncommand = true\n"		/* 4 */
	    "k\377\r\033]0;t\007 = v\n"				/* 7 */
	    "user = caf\303\251\302\205\n"				/* 8 */
	    "group = a\tb\n" } },					/* 9 */
	    0, { "$J/esc.job:1: [e\\x1b[1mx]: " BADID,
		"$J/esc.job:7: k\\xff\\x0d\\x1b]0;t\\x07: unknown key",
		"$J/esc.job:8: user: unknown user \"caf\303\251\\xc2\\x85\"",
		"$J/esc.job:9: group: \"a\\tb\" is not a valid name" },
	    "", "k", "", { { NULL } } },
	/* The programs of root jobs (tickd runs as root). */
	{ "program of a root job", 1, NULL, 0, NULL, {
	    { "../gw mode=0775", "#!/bin/sh\n" },
	    { "../ok", "#!/bin/sh\n" },
	    { "e.job",
		JOB("warned", "@daily", "$D/gw -x")			/* 1 */
		JOB("safe", "@daily", "$D/ok")				/* 4 */
		JOB("viapath", "@daily", "gw")				/* 7 */
		"[strict]\nschedule = @daily\nstrict_exec = yes\n"	/* 10 */
		"command = $D/gw\n"					/* 13 */
		"[other]\nschedule = @daily\nuser = nobody\n"		/* 14 */
		"command = $D/gw\nworkdir = /\n" } },			/* 17 */
	    0, { "$J/e.job:13: command: $D/gw is writable by group or others "
		"(mode 0775), and the job runs as root: refused (strict_exec)" },
	    "other|safe|viapath|warned", "strict", "",
	    { { NULL, "warnings", "$J/e.job:3: command: $D/gw is writable by "
		"group or others (mode 0775), and the job runs as root" } } },
	/* exec's program is checked once split (quotes, escapes). */
	{ "program of a root job: exec", 1, NULL, 0, NULL, {
	    { "../g w mode=0775", "#!/bin/sh\n" },
	    { "e.job",
		"[warned]\nschedule = @daily\n"			/* 1 */
		"exec = \"$D/g w\" -x\n"				/* 3 */
		"[strict]\nschedule = @daily\nstrict_exec = yes\n"	/* 4 */
		"exec = $D/g\\ w\n"					/* 7 */
		"[viapath]\nschedule = @daily\nstrict_exec = yes\n"	/* 8 */
		"exec = gw\n" } },
	    0, { "$J/e.job:7: exec: $D/g w is writable by group or others "
		"(mode 0775), and the job runs as root: refused (strict_exec)" },
	    "viapath|warned", "strict", "",
	    { { NULL, "warnings", "$J/e.job:3: exec: $D/g w is writable by "
		"group or others (mode 0775), and the job runs as root" } } },
	{ "strict_exec for every job", 1, DAEMON "strict_exec = yes\n", 0,
	    NULL, {
	    { "../gw mode=0775", "#!/bin/sh\n" },
	    { "e.job",
		JOB("a", "@daily", "$D/gw")				/* 1 */
		"[lenient]\nschedule = @daily\nstrict_exec = no\n"	/* 4 */
		"command = $D/gw\n" } },				/* 7 */
	    0, { "$J/e.job:3: command: $D/gw is writable by group or others "
		"(mode 0775), and the job runs as root: refused (strict_exec)" },
	    "lenient", "a", "",
	    { { NULL, "warnings", "$J/e.job:7: command: $D/gw is writable by "
		"group or others (mode 0775), and the job runs as root" } } },
	{ "unsafe owner or mode", 1, NULL, 0, NULL, {
	    { "gw.job mode=0664", JOB("gw", "@daily", "true") },
	    { "ow.job mode=0646", JOB("ow", "@daily", "true") },
	    { "u1000.job uid=1000", JOB("u1000", "@daily", "true") },
	    { "ro.job mode=0600", JOB("ro", "@daily", "true") },
	    { "ur.job mode=0444", JOB("ur", "@daily", "true") } },
	    0, { "$J/gw.job: " REFUSED "(owner uid 0, mode 0664)",
		"$J/ow.job: " REFUSED "(owner uid 0, mode 0646)",
		"$J/u1000.job: " REFUSED "(owner uid 1000, mode 0644)" },
	    "ro|ur", "", "gw.job|ow.job|u1000.job", { { NULL } } },

	/* An invalid tickd.conf: conf_load returns NULL with every cause. */
	{ "daemon: unknown key", 0, DAEMON "frob = 1\n", 0, NULL, { { NULL } },
	    1, { "$C:5: frob: unknown key" } , NULL, NULL, NULL, { { NULL } } },
	{ "daemon: job key", 0, DAEMON "command = true\n", 0, NULL,
	    { { NULL } },
	    1, { "$C:5: command: unknown key (it belongs in a job file)" } , NULL, NULL, NULL, { { NULL } } },
	{ "daemon: policy key", 0, DAEMON "overlap = skip\nretries = 3\n", 0,
	    NULL, { { NULL } },
	    1, { "$C:5: overlap: unknown key (it belongs in a job file)",
		"$C:6: retries: unknown key (it belongs in a job file)" },
	    NULL, NULL, NULL, { { NULL } } },
	{ "daemon: other section", 0, DAEMON "[other]\nx = 1\n", 0, NULL,
	    { { NULL } },
	    1, { "$C:5: [other]: unknown section (tickd.conf has only "
		"[daemon]; jobs go in *.job files)" } , NULL, NULL, NULL, { { NULL } } },
	{ "daemon: [daemon] twice", 0, DAEMON "[daemon]\nlease = 10s\n", 0,
	    NULL, { { NULL } },
	    1, { "$C:5: [daemon]: the section appears twice" } , NULL, NULL, NULL, { { NULL } } },
	{ "daemon: bad lease", 0, DAEMON "lease = 5x\n", 0, NULL, { { NULL } },
	    1, { "$C:5: lease: " NODUR("5x") } , NULL, NULL, NULL, { { NULL } } },
	{ "daemon: lease below 5s", 0, DAEMON "lease = 4s\n", 0, NULL,
	    { { NULL } },
	    1, { "$C:5: lease: \"4s\" is out of range 5s-1d" } , NULL, NULL, NULL, { { NULL } } },
	{ "daemon: lease above 1d", 0, DAEMON "lease = 1d1s\n", 0, NULL,
	    { { NULL } },
	    1, { "$C:5: lease: \"1d1s\" is out of range 5s-1d" } , NULL, NULL, NULL, { { NULL } } },
	{ "daemon: max_running 0", 0, DAEMON "max_running = 0\n", 0, NULL,
	    { { NULL } },
	    1, { "$C:5: max_running: \"0\" is out of range 1-100000" } , NULL, NULL, NULL, { { NULL } } },
	{ "daemon: max_running not a number", 0, DAEMON "max_running = 1O\n",
	    0, NULL, { { NULL } },
	    1, { "$C:5: max_running: \"1O\" is not a whole number" } , NULL, NULL, NULL, { { NULL } } },
	{ "daemon: bad log level", 0, DAEMON "log_level = loud\n", 0, NULL,
	    { { NULL } },
	    1, { "$C:5: log_level: \"loud\" is not error, warning, notice, "
		"info or debug" } , NULL, NULL, NULL, { { NULL } } },
	{ "daemon: key set twice", 0, DAEMON "jobs_dir = other\n", 0, NULL,
	    { { NULL } },
	    1, { "$C:5: jobs_dir: set twice (first at line 2)" } , NULL, NULL, NULL, { { NULL } } },
	{ "daemon: empty path", 0, "[daemon]\njobs_dir =\n", 0, NULL,
	    { { NULL } },
	    1, { "$C:2: jobs_dir: \"\" is not a path" } , NULL, NULL, NULL, { { NULL } } },
	{ "daemon: key outside a section", 0, "state = x.db\n" DAEMON, 0,
	    NULL, { { NULL } },
	    1, { "$C:1: state: the key is outside any [section]" } , NULL, NULL, NULL, { { NULL } } },
	{ "daemon: syntax error", 0, DAEMON "garbage\n", 0, NULL, { { NULL } },
	    1, { "$C:5: syntax error: expected [section], key = value, or a "
		"comment" } , NULL, NULL, NULL, { { NULL } } },
	{ "daemon: every error collected", 0,
	    DAEMON "frob = 1\nlease = 1s\nmax_running = 0\n[x]\n", 0, NULL,
	    { { NULL } },
	    1, { "$C:5: frob: unknown key",
		"$C:6: lease: \"1s\" is out of range 5s-1d",
		"$C:7: max_running: \"0\" is out of range 1-100000",
		"$C:8: [x]: unknown section (tickd.conf has only [daemon]; "
		"jobs go in *.job files)" } , NULL, NULL, NULL, { { NULL } } },
	/* The zone named in tickd.conf: the cause gives its line. */
	{ "daemon: unknown zone", 0,
	    "[daemon]\njobs_dir = jobs.d\ntimezone = Mars/Olympus\n", 0, NULL,
	    { { NULL } },
	    1, { "$C:3: timezone: unknown time zone \"Mars/Olympus\": "
		"$Z/Mars/Olympus: No such file or directory" } , NULL, NULL, NULL, { { NULL } } },
	{ "daemon: writable by others", 1, DAEMON, 0666, NULL, { { NULL } },
	    1, { "$C: " REFUSED "(owner uid 0, mode 0666)" } , NULL, NULL, NULL, { { NULL } } },
	{ "daemon: no tickd.conf", 0, NULL, -1, NULL, { { NULL } },
	    1, { "$C: No such file or directory (no configuration there: "
	    "give its path with -c FILE or TICKD_CONFIG; make install puts "
	    "one at " TICKD_SYSCONFDIR "/tickd/tickd.conf)" }, NULL, NULL,
	    NULL, { { NULL } } },
	/* A missing jobs_dir is reported; the daemon itself is valid. */
	{ "daemon: missing jobs_dir", 0,
	    "[daemon]\njobs_dir = nojobs\ntimezone = UTC\n", 0, NULL,
	    { { NULL } },
	    0, { "$C:2: jobs_dir: $D/nojobs: No such file or directory" },
	    "", "", "", { { NULL, "jobs_dir", "failed 1 unsafe 0" } } },
	/*
	 * A jobs_dir others can write in (sticky or not), or owned by
	 * another user: refused at the line that names it, none of its
	 * files read.
	 */
	{ "daemon: jobs_dir writable by others", 1,
	    "[daemon]\ntimezone = UTC\njobs_dir = jobs.d/open.d\n", 0, NULL,
	    { { "open.d/ mode=0757", NULL },
	      { "open.d/a.job", JOB("a", "@daily", "true") } },
	    0, { "$C:3: jobs_dir: $J/open.d: refused: tickd runs as root and "
		"the directory must be owned by root and not writable by group "
		"or others (owner uid 0, mode 0757)" },
	    "", "", "", { { NULL, "jobs_dir", "failed 1 unsafe 1" } } },
	{ "daemon: jobs_dir sticky, writable by all", 1,
	    "[daemon]\ntimezone = UTC\njobs_dir = jobs.d/open.d\n", 0, NULL,
	    { { "open.d/ mode=1777", NULL },
	      { "open.d/a.job", JOB("a", "@daily", "true") } },
	    0, { "$C:3: jobs_dir: $J/open.d: refused: tickd runs as root and "
		"the directory must be owned by root and not writable by group "
		"or others (owner uid 0, mode 1777)" },
	    "", "", "", { { NULL, "jobs_dir", "failed 1 unsafe 1" } } },
	{ "daemon: jobs_dir writable by its group", 1,
	    "[daemon]\ntimezone = UTC\njobs_dir = jobs.d/open.d\n", 0, NULL,
	    { { "open.d/ mode=0775", NULL },
	      { "open.d/a.job", JOB("a", "@daily", "true") } },
	    0, { "$C:3: jobs_dir: $J/open.d: refused: tickd runs as root and "
		"the directory must be owned by root and not writable by group "
		"or others (owner uid 0, mode 0775)" },
	    "", "", "", { { NULL, "jobs_dir", "failed 1 unsafe 1" } } },
	{ "daemon: jobs_dir owned by another user", 1,
	    "[daemon]\ntimezone = UTC\njobs_dir = jobs.d/open.d\n", 0, NULL,
	    { { "open.d/ uid=1000", NULL },
	      { "open.d/a.job", JOB("a", "@daily", "true") } },
	    0, { "$C:3: jobs_dir: $J/open.d: refused: tickd runs as root and "
		"the directory must be owned by root and not writable by group "
		"or others (owner uid 1000, mode 0755)" },
	    "", "", "", { { NULL, "jobs_dir", "failed 1 unsafe 1" } } },
	/* A safe one: its jobs load. */
	{ "daemon: jobs_dir safe", 1,
	    "[daemon]\ntimezone = UTC\njobs_dir = jobs.d/open.d\n", 0, NULL,
	    { { "open.d/ mode=0750", NULL },
	      { "open.d/a.job", JOB("a", "@daily", "true") } },
	    0, { NULL }, "a", "", "",
	    { { NULL, "jobs_dir", "failed 0 unsafe 0" } } },
};

/*
 * A limit tickd cannot enforce makes the job invalid, with the line
 * of its key; "infinity" needs no controller; a job without limits
 * needs none.  (Loaded as if tickd had only cpu and pids.)
 */
#define PJ(id, kv)	"[" id "]\nschedule = @hourly\ncommand = true\n" kv "\n"
static const struct conf_case limits_case = {
	"limits: controllers", 0, NULL, 0, NULL, { { "ctl.job",
	    PJ("mem", "cpu_max = 50%\nmemory_max = 1G")		/* 4 */
	    PJ("io", "io_weight = 20")				/* 9 */
	    PJ("ok", "cpu_weight = 5\ntasks_max = 10\n"		/* 13 */
		"memory_high = infinity")
	    PJ("none", "") } },					/* 20 */
	    0, {
	    "$J/ctl.job:5: memory_max: needs the memory controller, which "
		"tickd does not have: jobs are tracked by cgroup /cg (controllers: "
		"cpu pids) (tickd(8), CGROUPS)",
	    "$J/ctl.job:9: io_weight: needs the io controller, which tickd "
		"does not have: jobs are tracked by cgroup /cg (controllers: "
		"cpu pids) (tickd(8), CGROUPS)" },
	    "none|ok", "mem|io", "", { { NULL, "controllers", "1 9 cgroup /cg "
	    "(controllers: cpu pids)" } } };
#undef PJ

static char	 tmpdir[] = "/tmp/tickd-test-conf.XXXXXX";
static char	 zonedir[PATH_MAX];
static int	 is_root;

/* A growing buffer. */
struct buf {
	char	*p;
	size_t	 n, cap;
};

static void
buf_add(struct buf *b, const void *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		if ((b->p = realloc(b->p, b->cap)) == NULL)
			abort();
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

/* Expand a template (see the top of the file); *lenp gets its length. */
static char *
expand(const char *t, const char *dir, size_t *lenp)
{
	struct buf	 b = { NULL, 0, 0 };
	char		 path[PATH_MAX];
	unsigned long	 n;
	char		*end;

	buf_add(&b, "", 0);
	for (; *t != '\0'; t++) {
		if (*t != '$') {
			buf_add(&b, t, 1);
			continue;
		}
		t++;
		switch (*t) {
		case 'J':
			(void)snprintf(path, sizeof path, "%s/jobs.d", dir);
			buf_add(&b, path, strlen(path));
			break;
		case 'C':
			(void)snprintf(path, sizeof path, "%s/tickd.conf", dir);
			buf_add(&b, path, strlen(path));
			break;
		case 'D':
			buf_add(&b, dir, strlen(dir));
			break;
		case 'Z':
			buf_add(&b, zonedir, strlen(zonedir));
			break;
		case 'B':
			buf_add(&b, "\xef\xbb\xbf", 3);
			break;
		case 'N':
			buf_add(&b, "", 1);
			break;
		case '$':
			buf_add(&b, "$", 1);
			break;
		default:
			n = strtoul(t, &end, 10);
			if (end == t || *end == '\0')
				abort();	/* a bad template */
			for (t = end; n > 0; n--)
				buf_add(&b, t, 1);
			break;
		}
	}
	if (lenp != NULL)
		*lenp = b.n;
	return b.p;
}

/* Write a file of the case; 0 or -1. */
static int
write_file(const char *path, const char *data, size_t len, int mode, int uid)
{
	struct timespec	 ts[2];
	FILE		*f;

	if ((f = fopen(path, "w")) == NULL)
		return -1;
	if (fwrite(data, 1, len, f) != len) {
		(void)fclose(f);
		return -1;
	}
	if (fclose(f) != 0)
		return -1;
	/* Written a second ago: settled, as conf.c wants a file it reads. */
	(void)clock_gettime(CLOCK_REALTIME, &ts[1]);
	ts[1].tv_sec -= 1;
	ts[0].tv_nsec = UTIME_OMIT;
	if (utimensat(AT_FDCWD, path, ts, 0) == -1)
		return -1;
	if (chmod(path, (mode_t)(mode != 0 ? mode : 0644)) == -1)
		return -1;
	if (uid != 0 && chown(path, (uid_t)uid, (gid_t)-1) == -1)
		return -1;
	return 0;
}

/* Create a case's directory tree; 0 or -1. */
static int
make_tree(const struct conf_case *c, const char *dir)
{
	const struct tfile	*f;
	char			 path[PATH_MAX], name[256], *text, *link, *sp;
	size_t			 len, i, n;
	int			 mode, uid, fifo;

	if (mkdir(dir, 0755) == -1)
		return -1;
	(void)snprintf(path, sizeof path, "%s/jobs.d", dir);
	if (mkdir(path, 0755) == -1)
		return -1;
	if (c->daemon_mode != -1) {
		text = expand(c->daemon != NULL ? c->daemon : DAEMON, dir, &len);
		(void)snprintf(path, sizeof path, "%s/tickd.conf", dir);
		if (write_file(path, text, len, c->daemon_mode, 0) == -1) {
			free(text);
			return -1;
		}
		free(text);
	}
	for (i = 0; i < NFILES && c->files[i].name != NULL; i++) {
		f = &c->files[i];
		(void)snprintf(name, sizeof name, "%s", f->name);
		mode = uid = fifo = 0;
		link = NULL;
		if ((sp = strstr(name, " fifo")) != NULL) {
			fifo = 1;
			*sp = '\0';
		} else if ((sp = strstr(name, " -> ")) != NULL) {
			link = expand(sp + 4, dir, NULL);
			*sp = '\0';
		} else if ((sp = strstr(name, " mode=")) != NULL) {
			mode = (int)strtol(sp + 6, NULL, 8);
			*sp = '\0';
		} else if ((sp = strstr(name, " uid=")) != NULL) {
			uid = atoi(sp + 5);
			*sp = '\0';
		}
		n = strlen(name);
		(void)snprintf(path, sizeof path, "%s/jobs.d/%s", dir, name);
		if (n > 0 && name[n - 1] == '/') {
			if (mkdir(path, 0755) == -1 || (mode != 0 &&
			    chmod(path, (mode_t)mode) == -1) || (uid != 0 &&
			    chown(path, (uid_t)uid, (gid_t)-1) == -1))
				return -1;
		} else if (fifo) {
			if (mkfifo(path, 0644) == -1)
				return -1;
		} else if (link != NULL) {
			if (symlink(link, path) == -1) {
				free(link);
				return -1;
			}
			free(link);
		} else {
			text = expand(f->text, dir, &len);
			if (write_file(path, text, len, mode, uid) == -1) {
				free(text);
				return -1;
			}
			free(text);
		}
	}
	return 0;
}

/* Join a string list with '|', skipping prefix when it leads. */
static char *
join(char *const *v, size_t n, const char *prefix)
{
	struct buf	b = { NULL, 0, 0 };
	size_t		i, plen = prefix != NULL ? strlen(prefix) : 0;
	const char	*s;

	buf_add(&b, "", 0);
	for (i = 0; i < n; i++) {
		s = v[i];
		if (plen > 0 && strncmp(s, prefix, plen) == 0)
			s += plen;
		if (i > 0)
			buf_add(&b, "|", 1);
		buf_add(&b, s, strlen(s));
	}
	return b.p;
}

/* The number field f of a job (a job key of conf_table), or NULL. */
static const int64_t *
num_field(const struct job_def *d, const char *f)
{
	const struct conf_key *k = conf_key_find(CONF_SEC_JOB, f);

	if (k == NULL || (k->type != CONF_T_DURATION && k->type !=
	    CONF_T_COUNT))
		return NULL;
	return conf_key_addr(k, d);
}

/* A field of a job or of the conf, as text (caller frees). */
static char *
field(const struct conf *c, const struct job_def *d, const char *f)
{
	const int64_t	*n;
	char		 out[256];
	int		 i;

	out[0] = '\0';
	if (d == NULL) {
		if (strcmp(f, "daemon") == 0)
			(void)snprintf(out, sizeof out, "%lld %lld %d %s",
			    (long long)c->lease, (long long)c->max_running,
			    c->log_level, c->control);
		else if (strcmp(f, "paths") == 0)
			(void)snprintf(out, sizeof out, "%s %s %s",
			    c->jobs_dir, c->state, c->timezone);
		else if (strcmp(f, "ignored") == 0)
			return join(c->ignored, c->nignored, NULL);
		else if (strcmp(f, "warnings") == 0)
			return join(c->warnings.v, c->warnings.n, NULL);
		else if (strcmp(f, "controllers") == 0)
			(void)snprintf(out, sizeof out, "%d %u %s",
			    c->controllers_known, c->controllers,
			    c->tracking != NULL ? c->tracking : "-");
		else if (strcmp(f, "jobs_dir") == 0)
			(void)snprintf(out, sizeof out, "failed %d unsafe %d",
			    c->jobs_dir_failed, c->jobs_dir_unsafe);
		else
			(void)snprintf(out, sizeof out, "unknown field %s", f);
		return strdup(out);
	}
#define S(x)	((x) != NULL ? (x) : "(null)")
	if (strcmp(f, "command") == 0)
		return strdup(S(d->command));
	if (strcmp(f, "exec") == 0)
		return strdup(S(d->exec));
	if (strcmp(f, "description") == 0)
		return strdup(S(d->description));
	if (strcmp(f, "schedule") == 0)
		return strdup(schedule_text(d->schedule));
	if (strcmp(f, "timezone") == 0)
		return strdup(S(d->timezone));
	if (strcmp(f, "user") == 0)
		return strdup(S(d->user));
	if (strcmp(f, "group") == 0)
		return strdup(S(d->group));
	if (strcmp(f, "workdir") == 0)
		return strdup(S(d->workdir));
	if (strcmp(f, "file") == 0)
		return strdup(S(d->file));
	if (strcmp(f, "env") == 0)
		return join(d->env, d->nenv, NULL);
	if (strcmp(f, "tz") == 0)
		(void)snprintf(out, sizeof out, "%s", d->tz != NULL ?
		    tz_name(d->tz) : "(no zone)");
	else if (strcmp(f, "gap") == 0)
		(void)snprintf(out, sizeof out, "%s", tz_gap_name(d->gap));
	else if (strcmp(f, "fold") == 0)
		(void)snprintf(out, sizeof out, "%s", tz_fold_name(d->fold));
	else if (strcmp(f, "cred") == 0)
		(void)snprintf(out, sizeof out, "%s %ld %ld %s %s",
		    S(d->cred.user), (long)d->cred.uid, (long)d->cred.gid,
		    S(d->cred.home), S(d->user));
	else if (strcmp(f, "random_delay") == 0)
		(void)snprintf(out, sizeof out, "%lld",
		    (long long)d->pol->random_delay);
	else if (strcmp(f, "enabled") == 0)
		(void)snprintf(out, sizeof out, "%d", d->enabled);
	else if (strcmp(f, "line") == 0)
		(void)snprintf(out, sizeof out, "%d", d->line);
	else if (strcmp(f, "kind") == 0)
		(void)snprintf(out, sizeof out, "%d",
		    (int)schedule_kind(d->schedule));
	else if (strcmp(f, "overlap") == 0)
		(void)snprintf(out, sizeof out, "%s",
		    policy_overlap_name(d->pol->overlap));
	else if (strcmp(f, "misfire") == 0)
		(void)snprintf(out, sizeof out, "%s",
		    policy_misfire_name(d->pol->misfire));
	else if (strcmp(f, "recover") == 0)
		(void)snprintf(out, sizeof out, "%s",
		    policy_recover_name(d->pol->recover));
	else if (strcmp(f, "retry_on_exit") == 0)
		return strdup(S(d->pol->retry_on_exit));
	else if (strcmp(f, "on_failure") == 0)
		return strdup(S(d->on_failure));
	else if (strcmp(f, "only_if") == 0)
		return strdup(S(d->only_if));
	else if (strcmp(f, "retry_codes") == 0) {
		size_t off = 0;

		for (i = 0; i < 256; i++) {
			if (d->pol->retry_codes[i / 8] >> (i % 8) & 1)
				off += (size_t)snprintf(out + off,
				    sizeof out - off, "%s%d", off ? "," : "",
				    i);
		}
	} else if (strcmp(f, "retry_any") == 0)
		(void)snprintf(out, sizeof out, "%d", d->pol->retry_any);
	else if (strcmp(f, "kill_signal") == 0)
		(void)snprintf(out, sizeof out, "%d", d->pol->kill_signal);
	else if ((n = num_field(d, f)) != NULL)
		(void)snprintf(out, sizeof out, "%lld", (long long)*n);
	else if (strcmp(f, "limits") == 0) {
		const int64_t *l = &d->pol->limits.memory_max;
		size_t off = 0;

		/* The six, in the order of struct cgroup_limits. */
		for (i = 0; i < 6; i++) {
			if (l[i] == CGROUP_UNSET || l[i] == CGROUP_INFINITY)
				off += (size_t)snprintf(out + off,
				    sizeof out - off, "%s%s", i > 0 ? " " : "",
				    l[i] == CGROUP_UNSET ? "-" : "inf");
			else
				off += (size_t)snprintf(out + off,
				    sizeof out - off, "%s%lld", i > 0 ? " " : "",
				    (long long)l[i]);
		}
	} else if (strcmp(f, "cmdlen") == 0)
		(void)snprintf(out, sizeof out, "%zu", strlen(S(d->command)));
	else if (strcmp(f, "desclen") == 0)
		(void)snprintf(out, sizeof out, "%zu",
		    strlen(S(d->description)));
	else
		(void)snprintf(out, sizeof out, "unknown field %s", f);
#undef S
	return strdup(out);
}

/* Compare a long string; print only its start when it differs. */
static void
eq_long(const char *what, const char *got, const char *want)
{
	char g[200], w[200];

	if (strcmp(got, want) == 0 || (strlen(got) < 400 &&
	    strlen(want) < 400)) {
		if (strcmp(got, want) != 0)
			(void)printf("  (%s)\n", what);
		T_EQ_STR(got, want);
		return;
	}
	(void)snprintf(g, sizeof g, "%.60s... (%zu bytes)", got, strlen(got));
	(void)snprintf(w, sizeof w, "%.60s... (%zu bytes)", want,
	    strlen(want));
	(void)printf("  (%s)\n", what);
	T_EQ_STR(g, w);
}

/* Every cause, when the list is not what was expected. */
static void
print_causes(const struct conf_causes *causes)
{
	size_t i;

	for (i = 0; i < causes->n; i++)
		(void)printf("    cause %zu: %.300s\n", i, causes->v[i]);
}

/* Write a case's tree, load it, compare everything. */
/* The controllers tickd has in limits_case (conf_controllers_fn). */
static int
case_controllers(const struct conf *c, char **tracking, void *arg)
{
	(void)c;
	(void)arg;
	*tracking = strdup("cgroup /cg (controllers: cpu pids)");
	return CGROUP_CPU | CGROUP_PIDS;
}

/*
 * Run a case: load its tree (checking the jobs' limits against
 * case_controllers with limits) and compare.
 */
static void
conf_run(const struct conf_case *cc, size_t idx, int limits)
{
	struct conf_causes	 causes = { NULL, 0 };
	struct conf		*c;
	struct job_def		*d;
	char			 dir[1024], path[PATH_MAX], jobsdir[PATH_MAX];
	char			*want, *got;
	size_t			 i, n;
	int			 ok;

	T_RUN(cc->name);
	if (cc->root && !is_root) {
		(void)printf("  [%s] skipped: not root\n", cc->name);
		return;
	}
	(void)snprintf(dir, sizeof dir, "%s/%zu", tmpdir, idx);
	if (!T_EQ_INT(make_tree(cc, dir), 0)) {
		(void)printf("  %s: %s\n", dir, strerror(errno));
		return;
	}
	(void)snprintf(path, sizeof path, "%s/tickd.conf", dir);
	(void)snprintf(jobsdir, sizeof jobsdir, "%s/jobs.d/", dir);
	(void)setenv("TZ", cc->tz != NULL ? cc->tz : "UTC", 1);
	if (limits)
		c = conf_load_with(path, geteuid(), getegid(),
		    case_controllers, NULL, &causes);
	else
		c = conf_load(path, &causes);
	(void)setenv("TZ", "UTC", 1);

	T_EQ_INT(c == NULL, cc->null);
	/* The causes, in order. */
	for (n = 0; n < NCAUSES && cc->causes[n] != NULL; n++)
		;
	ok = T_EQ_INT(causes.n, n);
	for (i = 0; i < n && i < causes.n; i++) {
		want = expand(cc->causes[i], dir, NULL);
		if (want[0] == '~')
			ok &= T_TRUE(strstr(causes.v[i], want + 1) != NULL);
		else {
			if (strcmp(causes.v[i], want) != 0)
				ok = 0;
			eq_long("cause", causes.v[i], want);
		}
		free(want);
	}
	if (!ok)
		print_causes(&causes);
	conf_causes_free(&causes);
	if (c == NULL)
		return;

	/* Valid jobs (sorted), invalid ids, invalid files. */
	{
		char **ids = calloc(c->njobs + 1, sizeof *ids);

		for (i = 0; i < c->njobs; i++)
			ids[i] = c->jobs[i]->id;
		got = join(ids, c->njobs, NULL);
		free(ids);
	}
	want = expand(cc->ids, dir, NULL);
	eq_long("ids", got, want);
	free(got);
	free(want);
	got = join(c->bad_ids, c->nbad_ids, NULL);
	eq_long("bad_ids", got, cc->bad_ids);
	free(got);
	got = join(c->bad_files, c->nbad_files, jobsdir);
	T_EQ_STR(got, cc->bad_files);
	free(got);

	/* Lookup: every valid job by id, in sorted order; bad ids absent. */
	for (i = 0; i < c->njobs; i++) {
		T_TRUE(conf_job(c, c->jobs[i]->id) == c->jobs[i]);
		if (i > 0)
			T_TRUE(strcmp(c->jobs[i - 1]->id, c->jobs[i]->id) < 0);
	}
	for (i = 0; i < c->nbad_ids; i++)
		T_TRUE(conf_job(c, c->bad_ids[i]) == NULL);
	T_TRUE(conf_job(c, "no-such-job") == NULL);

	/* Fields. */
	for (i = 0; i < NCHECKS && cc->checks[i].field != NULL; i++) {
		const struct fcheck *fc = &cc->checks[i];

		d = NULL;
		if (fc->job != NULL && (d = conf_job(c, fc->job)) == NULL) {
			(void)printf("  [%s] job %s not loaded\n", cc->name,
			    fc->job);
			T_TRUE(d != NULL);
			continue;
		}
		got = field(c, d, fc->field);
		want = expand(fc->want, dir, NULL);
		eq_long(fc->field, got, want);
		free(got);
		free(want);
	}
	conf_free(c);
}

/* --- hashes ------------------------------------------------------------ */

/*
 * A job [base] and a variant [v] in one file: which hashes must stay
 * equal.  sched_hash covers schedule, zone, gap and fold; def_hash covers
 * every key.  Jobs whose policies are equal share one copy of them.
 */
struct hash_case {
	const char	*name;
	const char	*variant;	/* keys of [v] */
	int		 sched_same;
	int		 def_same;
	int		 pol_same;	/* one job_policy for both */
};

#define BASE	"schedule = 0 3 * * *\ncommand = backup\n"

static const struct hash_case hash_cases[] = {
	{ "identical", BASE, 1, 1, 1 },
	{ "blanks around =", "schedule=0 3 * * *\ncommand   =   backup\n", 1,
	    1, 1 },
	{ "command", "schedule = 0 3 * * *\ncommand = backup --all\n", 1, 0,
	    1 },
	{ "command continued", BASE "  --all\n", 1, 0, 1 },
	{ "description", BASE "description = nightly\n", 1, 0, 1 },
	{ "environment", BASE "environment = A=1\n", 1, 0, 1 },
	/* Enabled again means planned afresh: part of the schedule. */
	{ "enabled", BASE "enabled = no\n", 0, 0, 1 },
	{ "enabled, same value", BASE "enabled = yes\n", 1, 0, 1 },
	{ "random_delay", BASE "random_delay = 1m\n", 1, 0, 0 },
	{ "workdir", BASE "workdir = /tmp\n", 1, 0, 1 },
	{ "schedule", "schedule = 0 4 * * *\ncommand = backup\n", 0, 0, 1 },
	{ "schedule, same instants", "schedule = 0 3 * * 0-6\n"
	    "command = backup\n", 0, 0, 1 },
	{ "timezone", BASE "timezone = Europe/Berlin\n", 0, 0, 1 },
	{ "timezone as the default", BASE "timezone = UTC\n", 1, 0, 1 },
	{ "dst_gap", BASE "dst_gap = skip\n", 0, 0, 1 },
	{ "dst_fold", BASE "dst_fold = both\n", 0, 0, 1 },
	{ "dst_gap auto", BASE "dst_gap = auto\n", 1, 0, 1 },
	/* Policies decide what becomes of instants, not which they are. */
	{ "overlap", BASE "overlap = queue\n", 1, 0, 0 },
	{ "overlap, the default", BASE "overlap = skip\n", 1, 0, 1 },
	{ "queue_limit", BASE "queue_limit = 7\n", 1, 0, 0 },
	{ "max_parallel", BASE "max_parallel = 9\n", 1, 0, 0 },
	{ "misfire", BASE "misfire = catch_up\n", 1, 0, 0 },
	{ "misfire_grace", BASE "misfire_grace = 5m\n", 1, 0, 0 },
	{ "catch_up_limit", BASE "catch_up_limit = 5\n", 1, 0, 0 },
	{ "retries", BASE "retries = 3\n", 1, 0, 0 },
	{ "retry_delay", BASE "retry_delay = 1m\n", 1, 0, 0 },
	{ "retry_delay_max", BASE "retry_delay_max = 2h\n", 1, 0, 0 },
	{ "retry_on_exit", BASE "retry_on_exit = 75\n", 1, 0, 0 },
	{ "timeout", BASE "timeout = 1h\n", 1, 0, 0 },
	{ "kill_signal", BASE "kill_signal = INT\n", 1, 0, 0 },
	{ "kill_grace", BASE "kill_grace = 30s\n", 1, 0, 0 },
	{ "recover", BASE "recover = abandon\n", 1, 0, 0 },
	{ "on_failure", BASE "on_failure = mail root\n", 1, 0, 1 },
	{ "on_failure_timeout", BASE "on_failure_timeout = 1m\n", 1, 0, 0 },
	{ "expect_success_within", BASE "expect_success_within = 2d\n", 1,
	    0, 0 },
	{ "every policy key", BASE "overlap = allow\nmisfire = skip\n"
	    "retries = 5\ntimeout = 10m\nrecover = abandon\n"
	    "kill_signal = KILL\nretry_on_exit = 1,2\n", 1, 0, 0 },
};

static void
test_hashes(void)
{
	struct conf_case	 cc;
	struct conf_causes	 causes = { NULL, 0 };
	struct conf		*c;
	struct job_def		*b, *v;
	char			 dir[1024], path[PATH_MAX], text[1024];
	size_t			 i;

	for (i = 0; i < sizeof hash_cases / sizeof hash_cases[0]; i++) {
		T_RUN(hash_cases[i].name);
		memset(&cc, 0, sizeof cc);
		(void)snprintf(text, sizeof text, "[base]\n" BASE "[v]\n%s",
		    hash_cases[i].variant);
		cc.files[0].name = "h.job";
		cc.files[0].text = text;
		(void)snprintf(dir, sizeof dir, "%s/hash%zu", tmpdir, i);
		if (!T_EQ_INT(make_tree(&cc, dir), 0))
			continue;
		(void)snprintf(path, sizeof path, "%s/tickd.conf", dir);
		c = conf_load(path, &causes);
		T_TRUE(c != NULL);
		T_EQ_INT(causes.n, 0);
		print_causes(&causes);
		conf_causes_free(&causes);
		if (c == NULL)
			continue;
		b = conf_job(c, "base");
		v = conf_job(c, "v");
		if (T_TRUE(b != NULL && v != NULL)) {
			T_EQ_INT(b->sched_hash == v->sched_hash,
			    hash_cases[i].sched_same);
			T_EQ_INT(b->def_hash == v->def_hash,
			    hash_cases[i].def_same);
			T_EQ_INT(b->pol == v->pol, hash_cases[i].pol_same);
		}
		conf_free(c);
	}
}

/* --- reload: keeping a job's previous definition ------------------------ */

/* Write one job file of the reload test. */
static int
put_job(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];

	(void)snprintf(path, sizeof path, "%s/jobs.d/%s", dir, name);
	if (text == NULL)
		return unlink(path);
	return write_file(path, text, strlen(text), 0644, 0);
}

static void
test_keep(void)
{
	struct conf_causes	 causes = { NULL, 0 };
	struct conf_case	 cc;
	struct conf		*old, *c;
	struct job_def		*d, *olda;
	const struct tz		*z;
	char			 dir[1024], path[PATH_MAX], *cause = NULL;
	size_t			 i, kept = 0;

	T_RUN("keep a job on reload");
	memset(&cc, 0, sizeof cc);
	(void)snprintf(dir, sizeof dir, "%s/keep", tmpdir);
	if (!T_EQ_INT(make_tree(&cc, dir), 0))
		return;
	(void)snprintf(path, sizeof path, "%s/tickd.conf", dir);
	T_EQ_INT(put_job(dir, "a.job", JOB("A", "0 3 * * *", "old-a")
	    "timezone = Europe/Berlin\n"), 0);
	T_EQ_INT(put_job(dir, "b.job", JOB("B", "@daily", "b")), 0);
	T_EQ_INT(put_job(dir, "s.job", JOB("S", "@daily", "old-s")
	    "timezone = America/New_York\n"), 0);
	T_EQ_INT(put_job(dir, "gone.job", JOB("G", "@daily", "g")), 0);
	old = conf_load(path, &causes);
	T_EQ_INT(causes.n, 0);
	conf_causes_free(&causes);
	if (!T_TRUE(old != NULL))
		return;
	T_EQ_INT(old->njobs, 4);

	/* The new files: A has a bad value, S a syntax error, G is gone. */
	T_EQ_INT(put_job(dir, "a.job", JOB("A", "0 4 * * *", "new-a")
	    "timezone = Europe/Berlin\nenabled = perhaps\n"), 0);
	T_EQ_INT(put_job(dir, "s.job", JOB("S", "@daily", "new-s")
	    "no equals sign here\n"), 0);
	T_EQ_INT(put_job(dir, "gone.job", NULL), 0);
	T_EQ_INT(put_job(dir, "c.job", JOB("C", "@daily", "c")), 0);
	c = conf_load(path, &causes);
	T_EQ_INT(causes.n, 2);
	conf_causes_free(&causes);
	if (!T_TRUE(c != NULL)) {
		conf_free(old);
		return;
	}
	T_EQ_INT(c->njobs, 2);		/* B and C */

	/* Which old jobs are bad in the new conf (the daemon's loop). */
	for (i = 0; i < old->njobs; ) {
		olda = old->jobs[i];
		if (strcmp(olda->id, "A") == 0 || strcmp(olda->id, "S") == 0)
			T_EQ_INT(conf_job_is_bad(c, olda), 1);
		else
			T_EQ_INT(conf_job_is_bad(c, olda), 0);
		if (conf_job_is_bad(c, olda)) {
			conf_keep_job(c, old, i);
			kept++;
			continue;		/* old->jobs shifted down */
		}
		i++;
	}
	T_EQ_INT(kept, 2);
	T_EQ_INT(old->njobs, 2);	/* B and G remain in old */
	conf_free(old);			/* the kept jobs must not need it */

	T_EQ_INT(c->njobs, 4);
	for (i = 1; i < c->njobs; i++)
		T_TRUE(strcmp(c->jobs[i - 1]->id, c->jobs[i]->id) < 0);
	if (T_TRUE((d = conf_job(c, "A")) != NULL)) {
		T_EQ_STR(d->command, "old-a");
		T_EQ_STR(schedule_text(d->schedule), "0 3 * * *");
		T_EQ_STR(tz_name(d->tz), "Europe/Berlin");
		z = tz_cache_get(c->tzc, "Europe/Berlin", &cause);
		T_TRUE(z != NULL && d->tz == z);
	}
	if (T_TRUE((d = conf_job(c, "S")) != NULL)) {
		T_EQ_STR(d->command, "old-s");
		T_EQ_STR(tz_name(d->tz), "America/New_York");
		z = tz_cache_get(c->tzc, "America/New_York", &cause);
		T_TRUE(z != NULL && d->tz == z);
	}
	T_TRUE(conf_job(c, "G") == NULL);
	T_TRUE(conf_job(c, "B") != NULL && conf_job(c, "C") != NULL);
	free(cause);
	conf_free(c);
}

/*
 * An id copied into a file that sorts first: the new conf takes that
 * definition (the first), but a reload keeps the running job's own, from
 * the file that held it; a duplicate within the job's own file does not
 * count.
 */
static void
test_keep_dup(void)
{
	struct conf_causes	 causes = { NULL, 0 };
	struct conf_case	 cc;
	struct conf		*old, *c;
	struct job_def		*d;
	char			 dir[1024], path[PATH_MAX];
	size_t			 i;

	T_RUN("keep a job whose id is copied into another file");
	memset(&cc, 0, sizeof cc);
	(void)snprintf(dir, sizeof dir, "%s/keepdup", tmpdir);
	if (!T_EQ_INT(make_tree(&cc, dir), 0))
		return;
	(void)snprintf(path, sizeof path, "%s/tickd.conf", dir);
	T_EQ_INT(put_job(dir, "z.job", JOB("X", "@daily", "z-x")
	    JOB("Y", "@daily", "z-y")), 0);
	old = conf_load(path, &causes);
	T_EQ_INT(causes.n, 0);
	conf_causes_free(&causes);
	if (!T_TRUE(old != NULL))
		return;

	/* a.job copies X; z.job defines Y twice itself. */
	T_EQ_INT(put_job(dir, "a.job", JOB("X", "@daily", "a-x")), 0);
	T_EQ_INT(put_job(dir, "z.job", JOB("X", "@daily", "z-x")
	    JOB("Y", "@daily", "z-y2") JOB("Y", "@daily", "z-y3")), 0);
	c = conf_load(path, &causes);
	T_EQ_INT(causes.n, 2);
	conf_causes_free(&causes);
	if (!T_TRUE(c != NULL)) {
		conf_free(old);
		return;
	}
	if (T_TRUE((d = conf_job(c, "X")) != NULL))
		T_EQ_STR(d->command, "a-x");		/* the first */
	for (i = 0; i < old->njobs; ) {
		if (conf_job_is_bad(c, old->jobs[i])) {
			T_EQ_STR(old->jobs[i]->id, "X");
			conf_keep_job(c, old, i);
			continue;
		}
		i++;
	}
	conf_free(old);
	T_EQ_INT(c->njobs, 2);
	if (T_TRUE((d = conf_job(c, "X")) != NULL))
		T_EQ_STR(d->command, "z-x");		/* the running one's */
	if (T_TRUE((d = conf_job(c, "Y")) != NULL))
		T_EQ_STR(d->command, "z-y2");		/* same file: the new */
	conf_free(c);
}

/* --- a relative tickd.conf path ---------------------------------------- */

static void
test_relative(void)
{
	struct conf_causes	 causes = { NULL, 0 };
	struct conf_case	 cc;
	struct conf		*c;
	char			 dir[1024], cwd[PATH_MAX];

	T_RUN("relative tickd.conf path");
	memset(&cc, 0, sizeof cc);
	cc.files[0].name = "r.job";
	cc.files[0].text = JOB("r", "@daily", "true");
	(void)snprintf(dir, sizeof dir, "%s/rel", tmpdir);
	if (!T_EQ_INT(make_tree(&cc, dir), 0) ||
	    !T_TRUE(getcwd(cwd, sizeof cwd) != NULL) ||
	    !T_EQ_INT(chdir(tmpdir), 0))
		return;
	c = conf_load("rel/tickd.conf", &causes);
	T_EQ_INT(causes.n, 0);
	conf_causes_free(&causes);
	if (T_TRUE(c != NULL)) {
		T_EQ_STR(c->jobs_dir, "rel/jobs.d");
		T_EQ_STR(c->state, "rel/state/tickd.db");
		T_TRUE(conf_job(c, "r") != NULL);
		conf_free(c);
	}
	T_EQ_INT(chdir("rel"), 0);
	c = conf_load("tickd.conf", &causes);
	T_EQ_INT(causes.n, 0);
	conf_causes_free(&causes);
	if (T_TRUE(c != NULL)) {
		T_EQ_STR(c->jobs_dir, "./jobs.d");
		T_EQ_STR(c->state, "./state/tickd.db");
		T_TRUE(conf_job(c, "r") != NULL);
		conf_free(c);
	}
	T_EQ_INT(chdir(cwd), 0);
}

/* --- the daemon's definition, given back to tickctl ---------------------- */

/*
 * conf_job_parse builds from a job's text (what "define" over the control
 * socket hands tickctl) the same job: same keys and values (def_hash),
 * file and line; text that no longer makes a job names the daemon's copy.
 */
static void
test_job_parse(void)
{
	struct conf_causes	 causes = { NULL, 0 };
	struct conf_case	 cc;
	struct conf		*c;
	struct job_def		*d, *e;
	char			 dir[1024], path[PATH_MAX + 16];
	char			 wd[PATH_MAX + 16], we[PATH_MAX + 16];
	const char		*want;
	size_t			 i;

	T_RUN("conf_job_parse");
	memset(&cc, 0, sizeof cc);
	cc.files[0].name = "p.job";
	cc.files[0].text = "# first\n"
	    "[a]\n"
	    "schedule = */5 * * * *\n"
	    "command = echo 'x ; y # z' &&\n"
	    "   echo two\n"
	    "description =   spaced ; words # kept  \n"
	    "environment = A=1\n"
	    "\tB=two words\n"
	    "environment = C=3\n"
	    "retry_on_exit = 1, 75\n"
	    "timeout = 1h30m\n"
	    "\n"
	    "[b]\n"
	    "schedule = every 90s\n"
	    "command = true\n";
	(void)snprintf(dir, sizeof dir, "%s/parse", tmpdir);
	if (!T_EQ_INT(make_tree(&cc, dir), 0))
		return;
	(void)snprintf(path, sizeof path, "%s/tickd.conf", dir);
	c = conf_load(path, &causes);
	if (!T_EQ_INT(causes.n, 0))
		print_causes(&causes);
	conf_causes_free(&causes);
	if (!T_TRUE(c != NULL))
		return;
	T_EQ_INT(c->njobs, 2);
	for (i = 0; i < c->njobs; i++) {
		d = c->jobs[i];
		e = conf_job_parse(c, job_def_where(d, wd, sizeof wd), d->text,
		    &causes);
		T_EQ_INT(causes.n, 0);
		conf_causes_free(&causes);
		if (!T_TRUE(e != NULL))
			continue;
		T_EQ_STR(e->id, d->id);
		T_EQ_STR(e->file, d->file);
		T_EQ_INT(e->line, d->line);
		T_EQ_STR(job_def_where(e, we, sizeof we), wd);
		T_EQ_STR(e->command, d->command);
		T_EQ_STR(e->text, d->text);
		T_TRUE(e->def_hash == d->def_hash);
		job_def_free(e);
	}
	d = conf_job(c, "a");
	if (T_TRUE(d != NULL)) {
		T_EQ_STR(d->text, "[a]\nschedule=*/5 * * * *\n"
		    "command=echo 'x ; y # z' &&\n\techo two\n"
		    "description=spaced ; words # kept\n"
		    "environment=A=1\n\tB=two words\n"
		    "environment=C=3\nretry_on_exit=1, 75\ntimeout=1h30m\n");
		T_EQ_INT((long)d->nenv, 3);
	}
	/* A text that is no longer valid: the causes say whose it is. */
	e = conf_job_parse(c, "/x/y.job:7", "[z]\ncommand=true\n", &causes);
	T_TRUE(e == NULL);
	want = "/x/y.job (the daemon's definition):1: schedule: missing: "
	    "job \"z\" needs a schedule";
	if (T_EQ_INT(causes.n, 1))
		T_EQ_STR(causes.v[0], want);
	conf_causes_free(&causes);
	e = conf_job_parse(c, "/x/y.job:7", "[z]\n[w]\n", &causes);
	T_TRUE(e == NULL);
	conf_causes_free(&causes);
	conf_free(c);
}

/* --- the key table ------------------------------------------------------ */

static void
test_key_table(void)
{
	static const struct {
		enum conf_section	 sec;
		const char		*name;
		int			 found;
	} keys[] = {
		{ CONF_SEC_DAEMON, "jobs_dir", 1 },
		{ CONF_SEC_DAEMON, "timezone", 1 },
		{ CONF_SEC_DAEMON, "command", 0 },
		{ CONF_SEC_JOB, "timezone", 1 },
		{ CONF_SEC_JOB, "environment", 1 },
		{ CONF_SEC_JOB, "lease", 0 },
		{ CONF_SEC_JOB, "overlap", 1 },
		{ CONF_SEC_JOB, "retry_on_exit", 1 },
		{ CONF_SEC_JOB, "expect_success_within", 1 },
		{ CONF_SEC_DAEMON, "overlap", 0 },
		{ CONF_SEC_JOB, "Command", 0 },
		{ CONF_SEC_JOB, "", 0 },
	};
	size_t i, j;

	T_RUN("key table");
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
		T_EQ_INT(conf_key_find(keys[i].sec, keys[i].name) != NULL,
		    keys[i].found);
	/* Every key documented, no key twice in a section. */
	for (i = 0; i < conf_nkeys; i++) {
		T_TRUE(conf_keys[i].doc != NULL && conf_keys[i].doc[0] != 0);
		for (j = 0; j < i; j++)
			T_TRUE(conf_keys[i].section != conf_keys[j].section ||
			    strcmp(conf_keys[i].name, conf_keys[j].name) != 0);
	}
}

/* Remove one entry of the temporary tree. */
static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* conf_causes_files: the distinct paths of "PATH:LINE: " causes. */
static void
test_causes_files(void)
{
	static const struct {
		const char	*v[5];
		size_t		 n, want;
	} t[] = {
		{ { NULL }, 0, 0 },
		{ { "a.job:1: x: y" }, 1, 1 },
		{ { "a.job:1: x: y", "a.job:4: z: w", "b.job:2: q" }, 3, 2 },
		/* A prefix of another path is another file. */
		{ { "a.job:1: x", "a.job.old:1: x" }, 2, 2 },
		/* A ':' in the path; the first ":digits:" ends it. */
		{ { "d:x/a.job:3: k: m", "d:x/a.job:9: k: m" }, 2, 1 },
		/* No "PATH:LINE:": not a file's. */
		{ { "jobs_dir d: cannot read", "e.job:2: k" }, 2, 1 },
	};
	struct conf_causes	 c;
	size_t			 i;

	T_RUN("conf_causes_files");
	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		c.v = (char **)(uintptr_t)t[i].v;
		c.n = t[i].n;
		T_EQ_INT(conf_causes_files(&c), t[i].want);
	}
}

int
main(void)
{
	const char	*data = getenv("TICKD_TESTDATA");
	char		 rel[PATH_MAX];
	size_t		 i;
	int		 rc;

	if (data == NULL || *data == '\0')
		data = "tests/data";
	(void)snprintf(rel, sizeof rel, "%s/tzif/fat", data);
	if (realpath(rel, zonedir) == NULL) {
		(void)printf("%s: %s\n", rel, strerror(errno));
		return 1;
	}
	(void)setenv("TZDIR", zonedir, 1);
	(void)setenv("TZ", "UTC", 1);
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	is_root = geteuid() == 0;

	for (i = 0; i < sizeof conf_cases / sizeof conf_cases[0]; i++)
		conf_run(&conf_cases[i], i, 0);
	conf_run(&limits_case, i, 1);
	test_hashes();
	test_keep();
	test_keep_dup();
	test_relative();
	test_job_parse();
	test_key_table();
	test_causes_files();

	rc = t_done();
	if (nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) == -1)
		(void)printf("warning: %s not removed\n", tmpdir);
	return rc;
}
