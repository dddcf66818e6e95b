# tickd -- a cron daemon that records every decision.  See README.md.
#
#   make deps            install missing build and test packages (apt-get)
#   make                 build build/tickd and build/tickctl
#   make check           every test; ends with "N passed, N failed"
#   make check SANITIZE=1   the same under AddressSanitizer + UBSan
#   make fuzz            build the libFuzzer targets (clang)
#   make bench           benchmarks, figures on stdout
#   make install         honours PREFIX, DESTDIR, SYSCONFDIR

VERSION		= 0.1.0

PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
SBINDIR		?= $(PREFIX)/sbin
MANDIR		?= $(PREFIX)/share/man
SYSCONFDIR	?= /etc
DESTDIR		?=

CC		?= cc
CFLAGS		?= -O2 -g
WARN		= -std=c11 -Wall -Wextra -Wformat=2 -Wmissing-prototypes \
		  -Wstrict-prototypes -Wmissing-declarations -Wshadow \
		  -Wpointer-arith -Wwrite-strings -Wundef
CPPFLAGS	+= -D_GNU_SOURCE -DTICKD_VERSION='"$(VERSION)"'
LIBEV_CFLAGS	?=
LIBEV_LIBS	?= -lev

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

ALL_CFLAGS	= $(WARN) $(CFLAGS) $(SANFLAGS) -Isrc -MMD -MP
ALL_LDFLAGS	= $(LDFLAGS) $(SANFLAGS)

# Pure modules: no I/O beyond reading zone files, no libev, no SQLite.
LIB_SRCS	= src/civil.c src/cronexpr.c src/duration.c src/rfc3339.c \
		  src/schedule.c src/tz.c src/xmalloc.c
PURE_HDRS	= $(LIB_SRCS:.c=.h)
TICKCTL_SRCS	= src/tickctl.c src/ctl-next.c
TICKD_SRCS	= src/tickd.c

LIB		= $(B)/libtickd.a
LIB_OBJS	= $(LIB_SRCS:%.c=$(B)/%.o)
TICKCTL_OBJS	= $(TICKCTL_SRCS:%.c=$(B)/%.o)
TICKD_OBJS	= $(TICKD_SRCS:%.c=$(B)/%.o)

UNIT_SRCS	= $(wildcard tests/unit/test_*.c)
UNIT_BINS	= $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)
INTEG_TESTS	= $(wildcard tests/integration/t_*.sh)
BENCH_SRCS	= $(wildcard bench/bench_*.c)
BENCH_BINS	= $(BENCH_SRCS:bench/%.c=$(B)/bench/%)

CONFORMANCE	?= ../shared/conformance/run.sh

.PHONY: all deps check check-unit check-integration check-headers \
	check-purity lint-man conformance fuzz fuzz-run bench install \
	uninstall clean run tzif-fixtures

all: $(B)/tickd $(B)/tickctl

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $(LIB_OBJS)

$(B)/tickctl: $(TICKCTL_OBJS) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $(TICKCTL_OBJS) $(LIB)

$(B)/tickd: $(TICKD_OBJS) $(LIB)
	$(CC) $(ALL_LDFLAGS) -o $@ $(TICKD_OBJS) $(LIB)

# A unit test links the library archive: only the modules it calls (and
# theirs) are pulled in, so each pure module is tested on its own.
$(B)/tests/%: $(B)/tests/unit/%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIB) -lm

$(B)/bench/%: $(B)/bench/%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIB) -lm

# --- dependencies -----------------------------------------------------------

DEPS_PKGS	= gcc make pkg-config libev-dev libinih-dev libsqlite3-dev \
		  libsystemd-dev tzdata mandoc python3 faketime sqlite3

deps:
	@sh tests/deps.sh $(DEPS_PKGS)

# --- tests ------------------------------------------------------------------

check: all $(UNIT_BINS) fuzz-replay-bins check-headers check-purity \
    lint-man
	@B=$(B) TICKCTL=$(CURDIR)/$(B)/tickctl TICKD=$(CURDIR)/$(B)/tickd \
	    CONFORMANCE=$(CONFORMANCE) \
	    sh tests/run.sh $(UNIT_BINS) $(FUZZ_REPLAY_TESTS) $(INTEG_TESTS) \
	    tests/conformance.sh

check-unit: $(UNIT_BINS) fuzz-replay-bins
	@B=$(B) sh tests/run.sh $(UNIT_BINS) $(FUZZ_REPLAY_TESTS)

check-integration: all
	@B=$(B) TICKCTL=$(CURDIR)/$(B)/tickctl TICKD=$(CURDIR)/$(B)/tickd \
	    sh tests/run.sh $(INTEG_TESTS)

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
		  -D_GNU_SOURCE -DFUZZ_TZIF_DIR='"$(FUZZ_TZIF_DIR)"'
FUZZ_NAMES	= $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS	= $(FUZZ_NAMES:%=build/fuzz/%)
FUZZ_TIME	?= 600
FUZZ_NICE	?= nice -n 10
FUZZ_ARGS	?=
FUZZ_CFLAGS	?=
FUZZ_REPLAY_BINS = $(FUZZ_NAMES:%=$(B)/fuzz-replay/%)
FUZZ_REPLAY_TESTS = tests/fuzz/t_fuzz_replay.sh

.PHONY: deps-fuzz fuzz-merge fuzz-replay fuzz-replay-bins
.SECONDARY: $(FUZZ_NAMES:%=$(B)/tests/fuzz/%.o) $(B)/tests/fuzz/replay.o

deps-fuzz:
	@sh tests/deps.sh clang libclang-rt-14-dev

fuzz: $(FUZZ_TARGETS)

build/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(LIB_SRCS) $(PURE_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(WARN) $(FUZZ_FLAGS) $(FUZZ_CFLAGS) -o $@ $< $(LIB_SRCS) -lm

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
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(B)/tests/fuzz/replay.o $(LIB) -lm

# A target name rather than $(FUZZ_REPLAY_BINS), so that rules above this
# section (check) can depend on it: prerequisites expand when read.
fuzz-replay-bins: $(FUZZ_REPLAY_BINS)

fuzz-replay: fuzz-replay-bins
	@B=$(B) sh tests/run.sh $(FUZZ_REPLAY_TESTS)

$(B)/bench/%.o: CPPFLAGS += -DBENCH_TZIF_DIR='"$(FUZZ_TZIF_DIR)/fat"'

bench: $(BENCH_BINS)
	@for b in $(BENCH_BINS); do $$b || exit 1; done

# --- running and installing -------------------------------------------------

run: all
	@sh conf/demo.sh $(B)/tickctl

# Regenerate the committed TZif test fixtures from their zic sources.
tzif-fixtures:
	sh tests/data/tzif/build.sh

install: all
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
	    $(DESTDIR)$(MANDIR)/man8
	install -m 0755 $(B)/tickd $(DESTDIR)$(SBINDIR)/tickd
	install -m 0755 $(B)/tickctl $(DESTDIR)$(BINDIR)/tickctl
	install -m 0644 man/tickctl.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 man/tickd.job.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 man/tickd.8 $(DESTDIR)$(MANDIR)/man8/

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/tickd $(DESTDIR)$(BINDIR)/tickctl \
	    $(DESTDIR)$(MANDIR)/man1/tickctl.1 \
	    $(DESTDIR)$(MANDIR)/man5/tickd.job.5 \
	    $(DESTDIR)$(MANDIR)/man8/tickd.8

clean:
	rm -rf build

-include $(shell find build -name '*.d' 2>/dev/null)
