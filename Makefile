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
FUZZ_PKGS	= clang libclang-rt-dev

deps:
	@sh tests/deps.sh $(DEPS_PKGS)

# --- tests ------------------------------------------------------------------

check: all $(UNIT_BINS) check-headers check-purity lint-man
	@B=$(B) TICKCTL=$(CURDIR)/$(B)/tickctl TICKD=$(CURDIR)/$(B)/tickd \
	    CONFORMANCE=$(CONFORMANCE) \
	    sh tests/run.sh $(UNIT_BINS) $(INTEG_TESTS) tests/conformance.sh

check-unit: $(UNIT_BINS)
	@B=$(B) sh tests/run.sh $(UNIT_BINS)

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

FUZZ_CC		?= clang
FUZZ_FLAGS	= -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
		  -D_GNU_SOURCE
FUZZ_TARGETS	= $(patsubst tests/fuzz/%.c,build/fuzz/%,\
		  $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TIME	?= 600

fuzz: $(FUZZ_TARGETS)

build/fuzz/%: tests/fuzz/%.c $(LIB_SRCS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(LIB_SRCS)

# Run every fuzzer for FUZZ_TIME seconds on its committed corpus.
fuzz-run: fuzz
	@for f in $(FUZZ_TARGETS); do \
	    n=$$(basename $$f); mkdir -p build/fuzz/$$n.new; \
	    $$f -max_total_time=$(FUZZ_TIME) -timeout=10 \
	        build/fuzz/$$n.new tests/fuzz/corpus/$$n || exit 1; \
	done

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
