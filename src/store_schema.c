/*
 * store_schema.c -- the database schema and its migrations.
 *
 * store_schema[i] takes a database from user_version i to i + 1; a new
 * release appends a step and never edits an old one.  Times: scheduled
 * instants (scheduled_at, planned, first_at, last_at, lease_until) are
 * Unix seconds; moments something happened (*_at in attempts, created_at,
 * decided_at) are Unix milliseconds.
 *
 * PostgreSQL (store_schema_pg) starts at version 6 in one step, the
 * same tables (and "nodes", which only a shared database has) in its
 * types (bigint for every integer SQLite stores in 64 bits, bytea for
 * blobs, identity columns for rowids); from then on both lists grow
 * together, a step for each at the same version (an empty one where an
 * engine has nothing to do: 6 -> 7 on SQLite).  Its
 * version is meta's "schema_version" (PostgreSQL has no user_version).
 *
 * DIAGNOSTICS: none; data only.
 */
#include <stddef.h>

#include "store_schema.h"

/*
 * Schema 8's indexes, the same on both engines: a batch's shards by
 * index; the live batches (a node looks for their waiting shards); a
 * job's instances, not its shards, from the index alone (prune).
 */
#define STORE_BATCH_INDEXES						\
	"CREATE INDEX runs_parent ON runs (parent, shard) WHERE parent IS "\
	"  NOT NULL;"							\
	"CREATE INDEX runs_batches ON runs (id) WHERE status = 'running' "\
	"  AND shards IS NOT NULL AND parent IS NULL;"			\
	"DROP INDEX IF EXISTS runs_job;"				\
	"CREATE INDEX runs_job ON runs (job, scheduled_at, status, parent);"

const char *const store_schema[] = {
	/* 0 -> 1: the first release. */
	"CREATE TABLE jobs ("
	"  job TEXT PRIMARY KEY,"
	"  sched_hash TEXT NOT NULL,"		/* schedule, zone, gap, fold */
	"  planned INTEGER,"			/* last instance planned */
	"  paused INTEGER NOT NULL DEFAULT 0,"
	"  boot_id TEXT,"			/* last @reboot run's boot */
	"  updated_at INTEGER NOT NULL"
	") WITHOUT ROWID;"
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  run_id TEXT NOT NULL UNIQUE,"	/* TICKD_RUN_ID */
	"  job TEXT NOT NULL,"
	"  scheduled_at INTEGER NOT NULL,"
	"  origin TEXT NOT NULL,"		/* schedule, manual, reboot */
	"  trigger TEXT NOT NULL,"		/* of the latest attempt */
	"  status TEXT NOT NULL,"
	"  reason TEXT,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  owner TEXT,"
	"  lease_until INTEGER,"
	"  created_at INTEGER NOT NULL,"
	"  started_at INTEGER,"
	"  finished_at INTEGER,"
	"  exit_status INTEGER,"
	"  signal INTEGER,"
	"  UNIQUE (job, origin, scheduled_at)"
	");"
	"CREATE INDEX runs_job ON runs (job, scheduled_at);"
	"CREATE INDEX runs_active ON runs (status) WHERE status IN"
	"  ('pending', 'queued', 'running', 'retrying');"
	"CREATE TABLE attempts ("
	"  run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
	"  attempt INTEGER NOT NULL,"
	"  trigger TEXT NOT NULL,"
	"  pid INTEGER,"
	"  pid_start INTEGER,"			/* /proc/PID/stat starttime */
	"  started_at INTEGER,"
	"  finished_at INTEGER,"
	"  lateness_ms INTEGER,"
	"  duration_ms INTEGER,"
	"  exit_status INTEGER,"
	"  signal INTEGER,"
	"  outcome TEXT,"
	"  error TEXT,"
	"  PRIMARY KEY (run, attempt)"
	") WITHOUT ROWID;"
	"CREATE TABLE decisions ("
	"  id INTEGER PRIMARY KEY,"
	"  job TEXT NOT NULL,"
	"  decided_at INTEGER NOT NULL,"
	"  decision TEXT NOT NULL,"
	"  reason TEXT,"
	"  first_at INTEGER,"
	"  last_at INTEGER,"
	"  count INTEGER NOT NULL DEFAULT 1,"
	"  run INTEGER"
	");"
	"CREATE INDEX decisions_job ON decisions (job, decided_at);"
	"CREATE TABLE meta ("
	"  key TEXT PRIMARY KEY,"
	"  value TEXT"
	") WITHOUT ROWID;",

	/* 1 -> 2: policies (retries, skipped details, dead man's switch). */
	"ALTER TABLE runs ADD COLUMN retry_at INTEGER;"	/* ms, 'retrying' */
	"ALTER TABLE runs ADD COLUMN detail TEXT;"	/* why, for people */
	"ALTER TABLE jobs ADD COLUMN overdue_alerted INTEGER;"
	"CREATE INDEX runs_retrying ON runs (retry_at) WHERE status ="
	"  'retrying';",

	/* 2 -> 3: output tails, and when a job's dead man's switch began. */
	"ALTER TABLE attempts ADD COLUMN output_tail BLOB;"
	"ALTER TABLE jobs ADD COLUMN watch_since INTEGER;",	/* ms */

	/*
	 * 3 -> 4: status in the job index, so that pruning a job's history
	 * (store_prune_job: its newest history_keep finished rows kept)
	 * reads the index alone, not every kept row.  runs_active goes: no
	 * query used it, and its "status IN (...)" predicate cost a
	 * temporary table at every insert and status change of a run.  The
	 * lease renewal (owner = ?) scanned the table; runs_owned holds only
	 * the running rows.
	 */
	"DROP INDEX runs_job;"
	"CREATE INDEX runs_job ON runs (job, scheduled_at, status);"
	"DROP INDEX runs_active;"
	"CREATE INDEX runs_owned ON runs (owner) WHERE owner IS NOT NULL;",

	/*
	 * 4 -> 5: an instance lost with a crashed daemon says lease_lost,
	 * the name tickctl's documentation promised, not restart.
	 */
	"UPDATE runs SET reason = 'lease_lost' WHERE reason = 'restart';",

	/*
	 * 5 -> 6: which processes were an attempt's, and what they used.
	 * At the claim, before the process exists: its invocation id (the
	 * TICKD_INVOCATION_ID a crash recovery without cgroups looks for)
	 * and the boot (nothing of an earlier boot is adopted); at its
	 * start, its cgroup (NULL: tracked by process group); at its end,
	 * its CPU time and peak memory, and where they were read
	 * ("cgroup", or "rusage": the main process alone).  A run killed
	 * by the OOM killer says reason 'oom'.
	 */
	"ALTER TABLE attempts ADD COLUMN invocation TEXT;"
	"ALTER TABLE attempts ADD COLUMN boot_id TEXT;"
	"ALTER TABLE attempts ADD COLUMN cgroup TEXT;"
	"ALTER TABLE attempts ADD COLUMN cpu_user_us INTEGER;"
	"ALTER TABLE attempts ADD COLUMN cpu_system_us INTEGER;"
	"ALTER TABLE attempts ADD COLUMN mem_peak INTEGER;"
	"ALTER TABLE attempts ADD COLUMN usage_source TEXT;",
	/* 6 -> 7: nothing on one host (node_jobs is a shared database's). */
	"",
	/*
	 * 7 -> 8: batches.  A shard is a row of runs under its instance
	 * (parent), claimed, leased and retried like any instance: origin
	 * "ORIGIN#I", run id "RUN_ID#I".  On an instance, shards is its
	 * recorded parameter list (one per line, set when the batch begins:
	 * a retry or a resume never reads it again); on a shard, its own
	 * parameter.  checkpoint: the shard's TICKD_CHECKPOINT as last saved.
	 */
	"ALTER TABLE runs ADD COLUMN parent INTEGER REFERENCES runs (id) "
	"  ON DELETE CASCADE;"
	"ALTER TABLE runs ADD COLUMN shard INTEGER;"
	"ALTER TABLE runs ADD COLUMN shards TEXT;"
	"ALTER TABLE runs ADD COLUMN checkpoint BLOB;"
	STORE_BATCH_INDEXES,
};

const size_t store_schema_steps = sizeof store_schema /
    sizeof store_schema[0];

/* store_schema_pg[0] takes an empty PostgreSQL schema to this version. */
const size_t store_schema_pg_base = 6;

const char *const store_schema_pg[] = {
	/* 0 -> 6 */
	"CREATE TABLE jobs ("
	"  job text PRIMARY KEY,"
	"  sched_hash text NOT NULL,"
	"  planned bigint,"
	"  paused integer NOT NULL DEFAULT 0,"
	"  boot_id text,"
	"  updated_at bigint NOT NULL,"
	"  overdue_alerted bigint,"
	"  watch_since bigint"
	");"
	"CREATE TABLE runs ("
	"  id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	"  run_id text NOT NULL UNIQUE,"
	"  job text NOT NULL,"
	"  scheduled_at bigint NOT NULL,"
	"  origin text NOT NULL,"
	"  trigger text NOT NULL,"
	"  status text NOT NULL,"
	"  reason text,"
	"  attempts integer NOT NULL DEFAULT 0,"
	"  owner text,"
	"  lease_until bigint,"
	"  created_at bigint NOT NULL,"
	"  started_at bigint,"
	"  finished_at bigint,"
	"  exit_status integer,"
	"  signal integer,"
	"  retry_at bigint,"
	"  detail text,"
	"  UNIQUE (job, origin, scheduled_at)"
	");"
	"CREATE INDEX runs_job ON runs (job, scheduled_at, status);"
	"CREATE INDEX runs_owned ON runs (owner) WHERE owner IS NOT NULL;"
	"CREATE INDEX runs_retrying ON runs (retry_at) WHERE status ="
	"  'retrying';"
	"CREATE TABLE attempts ("
	"  run bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
	"  attempt integer NOT NULL,"
	"  trigger text NOT NULL,"
	"  pid bigint,"
	"  pid_start bigint,"
	"  started_at bigint,"
	"  finished_at bigint,"
	"  lateness_ms bigint,"
	"  duration_ms bigint,"
	"  exit_status integer,"
	"  signal integer,"
	"  outcome text,"
	"  error text,"
	"  output_tail bytea,"
	"  invocation text,"
	"  boot_id text,"
	"  cgroup text,"
	"  cpu_user_us bigint,"
	"  cpu_system_us bigint,"
	"  mem_peak bigint,"
	"  usage_source text,"
	"  PRIMARY KEY (run, attempt)"
	");"
	"CREATE TABLE decisions ("
	"  id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
	"  job text NOT NULL,"
	"  decided_at bigint NOT NULL,"
	"  decision text NOT NULL,"
	"  reason text,"
	"  first_at bigint,"
	"  last_at bigint,"
	"  count bigint NOT NULL DEFAULT 1,"
	"  run bigint"
	");"
	"CREATE INDEX decisions_job ON decisions (job, decided_at);"
	"CREATE TABLE meta ("
	"  key text PRIMARY KEY,"
	"  value text"
	");"
	/*
	 * The nodes sharing the database (PostgreSQL only): each one's
	 * last heartbeat on the server's clock (ms), its clock's offset to
	 * the server's, what it runs, and the hash of its job definitions.
	 */
	"CREATE TABLE nodes ("
	"  node text PRIMARY KEY,"
	"  owner text NOT NULL,"
	"  heartbeat_at bigint NOT NULL,"
	"  clock_offset_ms bigint,"
	"  running integer NOT NULL DEFAULT 0,"
	"  defs_hash text"
	");",
	/*
	 * 6 -> 7: each node's job definitions (conf_job_hash), written when
	 * it loads them: a node whose defs_hash differs is compared job by
	 * job, to say which jobs differ.  And the runs another node asked
	 * to stop (overlap = replace decided there): their own node stops
	 * them when it next renews its leases.
	 */
	"CREATE TABLE node_jobs ("
	"  node text NOT NULL,"
	"  job text NOT NULL,"
	"  def_hash text NOT NULL,"
	"  PRIMARY KEY (node, job)"
	");"
	"CREATE TABLE run_stops ("
	"  run bigint PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,"
	"  node text NOT NULL,"			/* who asked */
	"  asked_at bigint NOT NULL"
	");",
	/* 7 -> 8: batches, as on one host. */
	"ALTER TABLE runs ADD COLUMN parent bigint REFERENCES runs (id) "
	"  ON DELETE CASCADE;"
	"ALTER TABLE runs ADD COLUMN shard integer;"
	"ALTER TABLE runs ADD COLUMN shards text;"
	"ALTER TABLE runs ADD COLUMN checkpoint bytea;"
	STORE_BATCH_INDEXES,
};

const size_t store_schema_pg_steps = sizeof store_schema_pg /
    sizeof store_schema_pg[0];
