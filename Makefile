# tickd -- a cron daemon that records every decision.  See README.md.
#
#   make deps            install missing build and test packages (apt-get)
#   make                 build build/tickd and build/tickctl
#   make check           every test; ends with "N passed, N failed"
#   make check SANITIZE=1   the same under AddressSanitizer + UBSan
#   make fuzz            build the libFuzzer targets (clang)
#   make quartz-ref      regenerate tests/unit/quartz_table.h from Quartz
#                        itself (JDK + libquartz2-java; not in check)
#   make deps-bench      what the benchmarks need beyond make deps (cron)
#   make bench           every benchmark in turn, figures on stdout (each
#                        script's sizes from the environment: bench/*.sh)
#   make install         honours PREFIX, DESTDIR, SYSCONFDIR, UNITDIR

VERSION		= 0.1.0

PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
SBINDIR		?= $(PREFIX)/sbin
MANDIR		?= $(PREFIX)/share/man
SYSCONFDIR	?= /etc
UNITDIR		?= $(shell pkg-config --variable=systemdsystemunitdir systemd \
		   2>/dev/null || echo /lib/systemd/system)
DESTDIR		?=

CC		?= cc
CFLAGS		?= -O2 -g
WARN		= -std=c11 -Wall -Wextra -Wformat=2 -Wmissing-prototypes \
		  -Wstrict-prototypes -Wmissing-declarations -Wshadow \
		  -Wpointer-arith -Wwrite-strings -Wundef
CPPFLAGS	+= -D_GNU_SOURCE -DTICKD_VERSION='"$(VERSION)"' \
		   -DTICKD_SYSCONFDIR='"$(SYSCONFDIR)"'
LIBEV_CFLAGS	?=
LIBEV_LIBS	?= -lev
PKGS		= sqlite3 libsystemd inih libmicrohttpd
# libpq: its header only; db_pg.c opens the library when it is used.
PKG_CFLAGS	:= $(shell pkg-config --cflags $(PKGS) libpq 2>/dev/null)
PKG_LIBS	:= $(shell pkg-config --libs $(PKGS) 2>/dev/null || \
		   echo -lsqlite3 -lsystemd -linih -lmicrohttpd)

# SANITIZE=1 means address,undefined; any other value is passed through.
ifneq ($(SANITIZE),)
ifeq ($(SANITIZE),1)
override SANITIZE := address,undefined
endif
B		:= build/san
SANFLAGS	:= -fsanitize=$(SANITIZE) -fno-omit-frame-pointer \
		   -fno-sanitize-recover=all
else
B		:= build
SANFLAGS	:=
endif

ALL_CFLAGS	= $(WARN) $(CFLAGS) $(SANFLAGS) -Isrc $(LIBEV_CFLAGS) \
		  $(PKG_CFLAGS) -MMD -MP
ALL_LDFLAGS	= $(LDFLAGS) $(SANFLAGS)

# Pure modules: no I/O beyond reading zone files, no libev, no SQLite.
LIB_SRCS	= src/civil.c src/cronexpr.c src/cronline.c src/duration.c src/envp.c \
		  src/listenaddr.c src/mounts.c src/rfc3339.c src/policy.c \
		  src/schedule.c \
		  src/shwords.c src/tz.c src/xmalloc.c
PURE_HDRS	= $(LIB_SRCS:.c=.h)
# Daemon modules: configuration, store, processes, logging, the loop.
DAEMON_SRCS	= src/cgroup.c src/child.c src/clock.c src/conf.c src/db.c \
		  src/db_pg.c src/db_sqlite.c \
		  src/conf_table.c src/control.c src/jobenv.c src/log.c \
		  src/httpd.c src/metrics.c \
		  src/priv.c src/runner.c src/server.c src/server-ctl.c \
		  src/server-batch.c src/server-cluster.c src/server-run.c \
		  src/server-metrics.c src/server-sched.c \
		  src/server-wait.c src/statelock.c src/store.c src/store_copy.c \
		  src/store_query.c src/store_schema.c src/track.c \
		  src/track-cgroup.c src/track-pgrp.c
# tickctl's commands (one file each) and their helpers.
CTL_SRCS	= src/ctl-check.c src/ctl-ctx.c src/ctl-env.c src/ctl-fmt.c \
		  src/ctl-import.c \
		  src/ctl-history.c src/ctl-job.c src/ctl-json.c \
		  src/ctl-list.c src/ctl-logs.c src/ctl-metrics.c src/ctl-migrate.c \
		  src/ctl-next.c \
		  src/ctl-pause.c src/ctl-request.c src/ctl-run.c \
		  src/ctl-show.c src/ctl-stats.c src/ctl-status.c
TICKCTL_SRCS	= src/tickctl.c
TICKD_SRCS	= src/tickd.c

LIB		= $(B)/libtickd.a
DLIB		= $(B)/libtickd-daemon.a
CLIB		= $(B)/libtickctl.a
LIB_OBJS	= $(LIB_SRCS:%.c=$(B)/%.o)
DAEMON_OBJS	= $(DAEMON_SRCS:%.c=$(B)/%.o)
CTL_OBJS	= $(CTL_SRCS:%.c=$(B)/%.o)
TICKCTL_OBJS	= $(TICKCTL_SRCS:%.c=$(B)/%.o)
TICKD_OBJS	= $(TICKD_SRCS:%.c=$(B)/%.o)
LIBS		= $(LIBEV_LIBS) $(PKG_LIBS) -lm -pthread

UNIT_SRCS	= $(wildcard tests/unit/test_*.c)
UNIT_BINS	= $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)
# The longest first (as measured by make check on 2 cores): four run at
# a time, so a long one left for the end would run alone.
INTEG_FIRST	= $(addprefix tests/integration/,t_fault_time.sh \
		  t_ctl_read.sh t_ctl_errors.sh t_fault_signals.sh \
		  t_hostile_jobs.sh t_ctl_retention.sh t_fault_store.sh \
		  t_fault_proc.sh t_pg_cluster.sh t_daemon_metrics.sh \
		  t_pg_batch.sh t_pg_slow.sh t_crash.sh t_daemon_spawner.sh)
INTEG_TESTS	= $(INTEG_FIRST) $(filter-out $(INTEG_FIRST), \
		  $(wildcard tests/integration/t_*.sh))
BENCH_SRCS	= $(wildcard bench/bench_*.c)
BENCH_BINS	= $(BENCH_SRCS:bench/%.c=$(B)/bench/%)

CONFORMANCE	?= ../shared/conformance/run.sh
NPROC		:= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps deps-long check check-build check-long check-unit check-integration check-headers \
	check-purity check-docs lint-man conformance fuzz fuzz-run bench install \
	uninstall clean run demo tzif-fixtures deps-systemd check-systemd

all: $(B)/tickd $(B)/tickctl

# Keep intermediate objects (test and tool .o files) between runs.
.SECONDARY:

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

# SYSCONFDIR is compiled in (TICKD_SYSCONFDIR, CONF_DEFAULT_PATH), which
# no .d file records: the objects that use it depend on a stamp holding
# its value, rewritten only when the value changes, so that "make install
# SYSCONFDIR=/opt/x/etc" after a build recompiles them.
SYSCONF_OBJS	:= $(patsubst %.c,$(B)/%.o,$(shell grep -lE \
		   'TICKD_SYSCONFDIR|CONF_DEFAULT_PATH' src/*.c))
$(SYSCONF_OBJS): $(B)/sysconfdir.stamp
$(B)/sysconfdir.stamp: FORCE
	@mkdir -p $(@D)
	@[ "$$(cat $@ 2>/dev/null)" = '$(SYSCONFDIR)' ] || \
	    echo '$(SYSCONFDIR)' > $@
.PHONY: FORCE
FORCE:

$(LIB): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJS)

$(DLIB): $(DAEMON_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $(DAEMON_OBJS)

$(CLIB): $(CTL_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $(CTL_OBJS)

$(B)/tickctl: $(TICKCTL_OBJS) $(CLIB) $(DLIB) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $(TICKCTL_OBJS) $(CLIB) $(DLIB) $(LIB) \
	    $(LIBS)

$(B)/tickd: $(TICKD_OBJS) $(DLIB) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $(TICKD_OBJS) $(DLIB) $(LIB) $(LIBS)

# A unit test links the library archives: only the modules it calls (and
# theirs) are pulled in, so each pure module is tested on its own.
$(B)/tests/%: $(B)/tests/unit/%.o $(CLIB) $(DLIB) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(CLIB) $(DLIB) $(LIB) $(LIBS)

$(B)/tools/%: $(B)/tests/tools/%.o $(DLIB) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(DLIB) $(LIB) $(LIBS)

$(B)/bench/%: $(B)/bench/%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIB) -lm

# slowsync.so: fsync made slow, for the daemon (bench/slowsync.c).
$(B)/bench/slowsync.so: bench/slowsync.c
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CFLAGS) -shared -fPIC -o $@ $< -ldl

# bench_store drives the store module as the daemon does: the daemon
# library and SQLite (without -DBENCH_STORE_FULL it is a stub).  Its
# object depends on this file: the flag is not in the .d files.
$(B)/bench/bench_store.o: CPPFLAGS += -DBENCH_STORE_FULL
$(B)/bench/bench_store.o: Makefile
$(B)/bench/bench_store: $(B)/bench/bench_store.o $(DLIB) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(DLIB) $(LIB) $(LIBS)

# --- dependencies -----------------------------------------------------------

DEPS_PKGS	= gcc make pkg-config libev-dev libinih-dev libsqlite3-dev \
		  libsystemd-dev libmicrohttpd-dev tzdata mandoc python3 \
		  faketime sqlite3 \
		  libpq-dev postgresql \
		  systemd systemd-journal-remote

deps:
	@sh tests/deps.sh $(DEPS_PKGS)

# What make check-long needs beyond make deps (the valgrind soak).
deps-long:
	@sh tests/deps.sh valgrind

# What the benches need beyond make deps: Debian's cron for bench/cron.sh
# (which starts its own `cron -f`), python3, PostgreSQL for bench/cluster.sh
# (in make deps too; it runs its own server).  Installing cron must not
# start it as a service: a policy-rc.d that answers 101 (forbidden) is
# required, and put in place for the install if there is none (it keeps
# PostgreSQL's service from starting as well).  A cron process that
# appears during the install is reported, not killed.
BENCH_PKGS	= cron python3 valgrind postgresql

.PHONY: deps-bench
deps-bench:
	@set -e; sudo=; [ "$$(id -u)" -ne 0 ] && sudo=sudo; \
	pol=/usr/sbin/policy-rc.d; made=; \
	crons() { grep -lx cron /proc/[0-9]*/comm 2>/dev/null | \
	    sed 's|^/proc/||; s|/comm$$||'; }; \
	before=$$(crons | tr '\n' ' '); \
	if [ -e $$pol ]; then \
	    rc=0; $$pol cron start >/dev/null 2>&1 || rc=$$?; \
	    [ $$rc -eq 101 ] || { echo "deps-bench: $$pol allows starting" \
	        "services (exit $$rc, not 101): not installing cron" >&2; \
	        exit 1; }; \
	else \
	    made=1; trap '$$sudo rm -f $$pol' EXIT; \
	    printf '#!/bin/sh\nexit 101\n' | $$sudo tee $$pol >/dev/null; \
	    $$sudo chmod 0755 $$pol; \
	fi; \
	sh tests/deps.sh $(BENCH_PKGS); \
	for p in $$(crons); do case " $$before " in *" $$p "*) ;; \
	    *) echo "deps-bench: WARNING: a cron process appeared during" \
	        "the install: pid $$p ($$(tr '\0' ' ' < /proc/$$p/cmdline))." \
	        "bench/cron.sh refuses to run while it does." >&2 ;; \
	    esac; done; \
	[ -z "$$made" ] || echo "deps-bench: used a temporary $$pol (removed)"

# --- tests ------------------------------------------------------------------

# The build runs on every core (a sub-make: `make deps check` stays in order).
check:
	@$(MAKE) --no-print-directory -j$(NPROC) check-build
	@B=$(B) TICKCTL=$(CURDIR)/$(B)/tickctl TICKD=$(CURDIR)/$(B)/tickd \
	    CONFORMANCE=$(CONFORMANCE) \
	    bash tests/run.sh tests/conformance.sh $(UNIT_BINS) \
	    $(FUZZ_REPLAY_TESTS) $(INTEG_TESTS) tests/docs.sh

check-build: all $(UNIT_BINS) fuzz-replay-bins $(B)/tools/conf_keys \
    $(B)/tools/nopidfd check-headers check-purity lint-man

# Long soaks, crash campaigns, load tests and the process-group variants
# of the recovery tests (minutes to hours): tests/long/*.sh.
LONG_TESTS	= $(wildcard tests/long/t_*.sh)

check-long: all
	@B=$(B) TICKCTL=$(CURDIR)/$(B)/tickctl TICKD=$(CURDIR)/$(B)/tickd \
	    TEST_TIMEOUT=$${TEST_TIMEOUT:-14400} KEEP_LOGS=$${KEEP_LOGS:-1} \
	    bash tests/run.sh $(LONG_TESTS)

check-unit: $(UNIT_BINS) fuzz-replay-bins
	@B=$(B) bash tests/run.sh $(UNIT_BINS) $(FUZZ_REPLAY_TESTS)

check-integration: all $(B)/tools/nopidfd
	@B=$(B) TICKCTL=$(CURDIR)/$(B)/tickctl TICKD=$(CURDIR)/$(B)/tickd \
	    bash tests/run.sh $(INTEG_TESTS)

# Every header compiles on its own.
check-headers:
	@for h in src/*.h; do \
	    $(CC) $(WARN) -Isrc -fsyntax-only -x c $$h || exit 1; \
	done; echo "headers: each compiles alone"

# Pure modules never include the event loop, the store or systemd.
check-purity:
	@if grep -nE '#include <(ev|sqlite3|systemd/[a-z-]+)\.h>' \
	    $(LIB_SRCS) $(PURE_HDRS); then \
	    echo "check-purity: a pure module includes daemon headers"; \
	    exit 1; fi; echo "purity: pure modules include no daemon headers"
	@if grep -nE '#include <(sqlite3|libpq-fe)\.h>' \
	    $(filter-out src/db_%,$(DAEMON_SRCS) $(CTL_SRCS) $(TICKCTL_SRCS) \
	    $(TICKD_SRCS)) src/*.h; then \
	    echo "check-purity: only src/db_*.c may talk to an engine"; \
	    exit 1; fi; echo "purity: only the db backends include an engine"

check-docs: $(B)/tools/conf_keys
	@B=$(B) sh tests/docs.sh

lint-man:
	@mandoc -Tlint -W warning man/*.[1-8] && echo "man: mandoc -Tlint clean"

conformance: $(B)/tickctl
	$(CONFORMANCE) $(B)/tickctl

# --- fuzzing and benchmarks -------------------------------------------------
#
# The fuzz targets need clang and libFuzzer: `make deps-fuzz` installs them
# (clang, libclang-rt-14-dev).  See tests/fuzz/README.md and bench/README.md.
#
#   make fuzz             build the libFuzzer targets into build/fuzz/
#   make fuzz-run         fuzz each target for FUZZ_TIME seconds on its
#                         committed corpus and crash reproducers; use
#                         make -j2 fuzz-run to run two at a time.  New inputs
#                         go to build/fuzz/<target>.new/, crashes to
#                         build/fuzz/<target>-crash-*, output to
#                         build/fuzz/<target>.log
#   make fuzz-merge       add the new inputs that reach new coverage to
#                         tests/fuzz/corpus/<target>/ (libFuzzer -merge=1)
#   make fuzz-replay      replay every corpus file and crash reproducer
#                         through the targets built by $(CC) against the
#                         library, without libFuzzer: the test scripts
#                         FUZZ_REPLAY_TESTS, whose programs fuzz-replay-bins
#                         builds
#   make bench            benchmarks, a table on stdout

FUZZ_CC		?= clang
FUZZ_TZIF_DIR	= $(CURDIR)/tests/data/tzif
FUZZ_FLAGS	= -g -O1 -fsanitize=fuzzer,address,undefined \
		  -fno-sanitize-recover=all -fno-omit-frame-pointer -Isrc \
		  -D_GNU_SOURCE -DFUZZ_TZIF_DIR='"$(FUZZ_TZIF_DIR)"' \
		  -DTICKD_VERSION='"$(VERSION)"' $(LIBEV_CFLAGS) $(PKG_CFLAGS)
FUZZ_NAMES	= $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS	= $(FUZZ_NAMES:%=build/fuzz/%)
FUZZ_TIME	?= 600
FUZZ_NICE	?= nice -n 10
FUZZ_ARGS	?=
FUZZ_CFLAGS	?=
FUZZ_REPLAY_BINS = $(FUZZ_NAMES:%=$(B)/fuzz-replay/%)
FUZZ_REPLAY_TESTS = tests/fuzz/t_fuzz_replay.sh
# Targets beyond the pure modules: the sources clang builds with each
# (FUZZ_SRCS_<target>), the archives its replay links (FUZZ_ARCH_), the
# libraries (FUZZ_LIBS_) and linker options (FUZZ_WRAP_: fuzz_ctl_args
# cuts tickctl's commands off from the store, the control socket and the
# files they would read; see the file).
FUZZ_SRCS_fuzz_conf = $(DAEMON_SRCS)
FUZZ_ARCH_fuzz_conf = $(DLIB)
FUZZ_LIBS_fuzz_conf = $(LIBEV_LIBS) $(PKG_LIBS) -pthread
FUZZ_SRCS_fuzz_ctl_args = $(DAEMON_SRCS) $(CTL_SRCS)
FUZZ_ARCH_fuzz_ctl_args = $(CLIB) $(DLIB)
FUZZ_LIBS_fuzz_ctl_args = $(LIBEV_LIBS) $(PKG_LIBS)
FUZZ_WRAP_fuzz_ctl_args = -Wl,--wrap=ctl_ctx_init,--wrap=ctl_ctx_free \
		  -Wl,--wrap=ctl_request,--wrap=ctl_wait_run,--wrap=fopen

.PHONY: deps-fuzz fuzz-merge fuzz-replay fuzz-replay-bins
.SECONDARY: $(FUZZ_NAMES:%=$(B)/tests/fuzz/%.o) $(B)/tests/fuzz/replay.o

deps-fuzz:
	@sh tests/deps.sh clang libclang-rt-14-dev

fuzz: $(FUZZ_TARGETS)

build/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(LIB_SRCS) $(PURE_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(WARN) $(FUZZ_FLAGS) $(FUZZ_CFLAGS) $(FUZZ_WRAP_$*) -o $@ \
	    $< $(LIB_SRCS) $(FUZZ_SRCS_$*) $(FUZZ_LIBS_$*) -lm

build/fuzz/fuzz_conf: $(FUZZ_SRCS_fuzz_conf) $(wildcard src/*.h)
build/fuzz/fuzz_ctl_args: $(FUZZ_SRCS_fuzz_ctl_args) src/tickctl.c \
    $(wildcard src/*.h)

fuzz-run: $(FUZZ_NAMES:%=fuzz-run-%)

fuzz-run-%: build/fuzz/%
	@n=$*; log=build/fuzz/$$n.log; mkdir -p build/fuzz/$$n.new; \
	dict=; [ -f tests/fuzz/$$n.dict ] && dict=-dict=tests/fuzz/$$n.dict; \
	reg=; [ -d tests/fuzz/regress/$$n ] && reg=tests/fuzz/regress/$$n; \
	echo "fuzz: $$n for $(FUZZ_TIME) s, log $$log"; \
	if $(FUZZ_NICE) build/fuzz/$$n -max_total_time=$(FUZZ_TIME) \
	    -timeout=10 -print_final_stats=1 \
	    -artifact_prefix=build/fuzz/$$n- $$dict $(FUZZ_ARGS) \
	    build/fuzz/$$n.new tests/fuzz/corpus/$$n $$reg >$$log 2>&1; then \
	    grep -E '^#[0-9]+[[:space:]]+DONE|^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' \
	        $$log | sed "s/^/$$n: /"; \
	else \
	    tail -n 40 $$log; \
	    echo "fuzz: $$n FAILED; reproducer: `ls build/fuzz/$$n-* 2>/dev/null`"; \
	    exit 1; \
	fi

fuzz-merge: $(FUZZ_TARGETS)
	@for n in $(FUZZ_NAMES); do \
	    [ -d build/fuzz/$$n.new ] || continue; \
	    build/fuzz/$$n -merge=1 tests/fuzz/corpus/$$n \
	        build/fuzz/$$n.new >build/fuzz/$$n.merge.log 2>&1 || \
	        { tail -n 20 build/fuzz/$$n.merge.log; exit 1; }; \
	    echo "$$n: `grep MERGE-OUTER: build/fuzz/$$n.merge.log | tail -n 1`"; \
	done

# The same targets as ordinary programs, run on the corpus by make check.
$(B)/tests/fuzz/%.o: CPPFLAGS += -DFUZZ_TZIF_DIR='"$(FUZZ_TZIF_DIR)"'

$(B)/fuzz-replay/%: $(B)/tests/fuzz/%.o $(B)/tests/fuzz/replay.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) $(FUZZ_WRAP_$*) -o $@ $< \
	    $(B)/tests/fuzz/replay.o $(FUZZ_ARCH_$*) $(LIB) $(FUZZ_LIBS_$*) -lm

$(B)/fuzz-replay/fuzz_conf: $(FUZZ_ARCH_fuzz_conf)
$(B)/fuzz-replay/fuzz_ctl_args: $(FUZZ_ARCH_fuzz_ctl_args)

# A target name rather than $(FUZZ_REPLAY_BINS), so that rules above this
# section (check) can depend on it: prerequisites expand when read.
fuzz-replay-bins: $(FUZZ_REPLAY_BINS)

fuzz-replay: fuzz-replay-bins
	@B=$(B) bash tests/run.sh $(FUZZ_REPLAY_TESTS)

$(B)/bench/%.o: CPPFLAGS += -DBENCH_TZIF_DIR='"$(FUZZ_TZIF_DIR)/fat"'

# Each prints its own table; the scripts take their sizes from the
# environment (see each one's header and bench/README.md), e.g.
# make bench REPEAT=1 JOBS=1000.  store.sh runs bench_store itself.
BENCH_SCRIPTS	= burst batch instructions steady idle scale store cluster

bench: all $(BENCH_BINS) $(B)/bench/stamp $(B)/bench/forkloop \
    $(B)/bench/slowsync.so
	@echo "=== bench_next"; $(B)/bench/bench_next
	@for s in $(BENCH_SCRIPTS); do \
	    echo; echo "=== bench/$$s.sh"; \
	    B=$(B) sh bench/$$s.sh || exit 1; \
	done

# --- systemd in a virtual machine --------------------------------------------
#
# make check-systemd boots Debian 12 with systemd as PID 1 in qemu (TCG,
# no KVM) and checks tickd under it: Type=notify, reload, the watchdog,
# the journal's fields, tickctl, adoption after a kill of the daemon
# (tests/systemd/README).  Not part of make check: it needs root, the
# Debian mirror and several minutes.  The root file system is built once
# into build/vm/base/ (debootstrap, tests/systemd/packages); each run
# copies it, installs the current tickd into the copy, boots an image of
# it and prints the checks' verdicts; the console is in
# build/vm/console.log.  VM_TIMEOUT (seconds, default 900) bounds the
# boot and the checks; VM_CHECKS="name ..." runs only those checks;
# KEEP=1 keeps the run's copy and image.  make clean removes the base too.

VM_HOST_PKGS	= debootstrap qemu-system-x86 e2fsprogs

deps-systemd:
	@sh tests/deps.sh $(DEPS_PKGS) $(VM_HOST_PKGS)

check-systemd: deps-systemd all
	@MAKE='$(MAKE)' bash tests/systemd/run.sh

# --- running and installing -------------------------------------------------

# Start the daemon in the foreground on conf/ (state in build/run/).
run: all
	@mkdir -p build/run
	$(B)/tickd -c conf/tickd.conf --log-target=stderr

# Show the next instants of example schedules around DST changes.
demo: $(B)/tickctl
	@sh conf/demo.sh $(B)/tickctl

# Regenerate the committed TZif test fixtures from their zic sources.
tzif-fixtures:
	sh tests/data/tzif/build.sh

# The installed unit: the paths substituted.  ConfigurationDirectory=
# always means a directory under /etc: kept only when SYSCONFDIR is /etc.
UNIT_SED	= -e 's|@SBINDIR@|$(SBINDIR)|g' \
		  -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		  $(if $(filter /etc,$(SYSCONFDIR)),, \
		  -e '/^ConfigurationDirectory=/d')

# Installed configuration: conf/tickd.conf with the system paths, never
# overwriting an existing one.
CONF_SED	= -e 's|^jobs_dir = .*|jobs_dir = $(SYSCONFDIR)/tickd/jobs.d|' \
		  -e 's|^state = .*|state = /var/lib/tickd/tickd.db|' \
		  -e 's|^control = .*|control = /run/tickd/tickd.sock|'

install: all
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
	    $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(SYSCONFDIR)/tickd/jobs.d
	install -m 0755 $(B)/tickd $(DESTDIR)$(SBINDIR)/tickd
	install -m 0755 $(B)/tickctl $(DESTDIR)$(BINDIR)/tickctl
	install -m 0644 man/tickctl.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 man/tickd.conf.5 man/tickd.job.5 \
	    $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 man/tickd.8 $(DESTDIR)$(MANDIR)/man8/
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0644 contrib/tickctl.bash \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions/tickctl
	install -d $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions \
	    $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 0644 contrib/_tickctl \
	    $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_tickctl
	install -m 0644 contrib/tickctl.fish \
	    $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/tickctl.fish
	install -d $(DESTDIR)$(UNITDIR)
	sed $(UNIT_SED) systemd/tickd.service.in > \
	    $(DESTDIR)$(UNITDIR)/tickd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/tickd.service
	@for f in conf/jobs.d/*.job; do \
	    t=$(DESTDIR)$(SYSCONFDIR)/tickd/jobs.d/$$(basename $$f).example; \
	    [ -e $$t ] || install -m 0644 $$f $$t; \
	done
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/tickd/tickd.conf ]; then \
	    echo "keeping existing $(DESTDIR)$(SYSCONFDIR)/tickd/tickd.conf"; \
	else \
	    sed $(CONF_SED) conf/tickd.conf > \
	        $(DESTDIR)$(SYSCONFDIR)/tickd/tickd.conf && \
	    chmod 0644 $(DESTDIR)$(SYSCONFDIR)/tickd/tickd.conf; \
	fi

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/tickd $(DESTDIR)$(BINDIR)/tickctl \
	    $(DESTDIR)$(MANDIR)/man1/tickctl.1 \
	    $(DESTDIR)$(MANDIR)/man5/tickd.conf.5 \
	    $(DESTDIR)$(MANDIR)/man5/tickd.job.5 \
	    $(DESTDIR)$(MANDIR)/man8/tickd.8 \
	    $(DESTDIR)$(PREFIX)/share/bash-completion/completions/tickctl \
	    $(DESTDIR)$(PREFIX)/share/zsh/vendor-completions/_tickctl \
	    $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/tickctl.fish \
	    $(DESTDIR)$(UNITDIR)/tickd.service
	@echo "left in place: $(SYSCONFDIR)/tickd and /var/lib/tickd"

clean:
	rm -rf build

# Not in build/vm/: the virtual machine's root file systems (check-systemd)
# have directories named *.d.
-include $(shell find build -path build/vm -prune -o -name '*.d' -print \
	   2>/dev/null)

# Quartz's own answers for tests/unit/test_cronexpr_quartz.c (optional,
# not part of check): needs a JDK and Debian's libquartz2-java.
QUARTZ_CP	= /usr/share/java/quartz2.jar:/usr/share/java/slf4j-api.jar
quartz-ref:
	@mkdir -p $(B)/quartz
	javac -d $(B)/quartz -cp $(QUARTZ_CP) tests/quartz/QuartzRef.java
	java -cp $(B)/quartz:$(QUARTZ_CP) QuartzRef \
	    < tests/quartz/cases.txt > tests/unit/quartz_table.h
.PHONY: quartz-ref
