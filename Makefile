# swag: sliding-window aggregation.  See README.md.
#
#   make            build ./swag
#   make check      build and run every test (unit, command-line, process-level)
#   make check-sanitize   the same under AddressSanitizer and UBSan
#   make demo       run swag on a generated sample log
#   make bench      run the benchmarks
#   make install    install swag and its man page (PREFIX, DESTDIR)
#
# make demo, make check (and its variants), make fuzz and make bench first run
# scripts/install-deps, which installs the missing Debian packages.  The build alone
# (make, make install) only names what is missing and stops: packagers build in
# chroots without network or root.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
CC ?= cc
CFLAGS ?= -O2
BUILD ?= build
BIN ?= swag
# The binary as a command: BIN itself when absolute, else ./BIN (never looked up in PATH).
RUN_BIN = $(if $(filter /%,$(BIN)),$(BIN),./$(BIN))
SANITIZE_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all

ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Isrc $(CFLAGS) $(EXTRA_CFLAGS)
LIBS = -lcsv -lxxhash -lz -lm

SOURCES = src/agg.c src/agg_distinct.c src/agg_ends.c src/agg_ewma.c src/agg_minmax.c src/agg_mode.c src/agg_monoid.c src/agg_quantile.c src/csvread.c src/hashtable.c src/keytable.c src/mem.c \
	src/numparse.c src/numprint.c src/output.c src/pipeline.c src/reader.c src/ring.c src/spec.c \
	src/timestamp.c src/window.c
# make WORK=1 builds the instrumented swag of src/work.h (make swag-work does, in
# $(BUILD)/work): every module keeps the counters kept for tests, and swag reports the
# most work of any one record when it ends.
ifdef WORK
ALL_CFLAGS += -DSWAG_TEST_COUNTERS -DSWAG_WORK_COUNTERS
SOURCES += src/work.c
endif
OBJECTS = $(SOURCES:src/%.c=$(BUILD)/%.o)
UNIT_TESTS = twostack agg numparse numprint spec csvread keytable mode quantile split \
	distinct timestamp ring hashtable window ewma minmax
UNIT_BINARIES = $(UNIT_TESTS:%=$(BUILD)/test_%)

all: $(BIN)

# The goals a person runs to try or test swag install what they need; any other goal
# only checks.  (A recursive make, such as check-sanitize's, sees its own goal.)
INSTALLING_GOALS = demo check check-sanitize check-faults check-faults-quick check-valgrind \
	unit unit-portable bench fuzz fuzz-smoke swag-work
ifeq ($(filter $(INSTALLING_GOALS),$(MAKECMDGOALS)),)
DEPS_CHECK_ONLY = --check
endif

deps:
	@scripts/install-deps $(DEPS_CHECK_ONLY) build
test-deps: deps
	@scripts/install-deps $(DEPS_CHECK_ONLY) test
bench-deps: test-deps
	@scripts/install-deps $(DEPS_CHECK_ONLY) bench

# The decimal-comma locale the tests run swag under, generated into the build
# directory (LOCPATH finds it there): no test depends on the locales a machine was
# given or that an earlier run generated, and none needs root.
TEST_LOCPATH = $(abspath $(BUILD)/locale)
$(BUILD)/locale/de_DE.UTF-8/LC_NUMERIC: | test-deps
	@mkdir -p $(BUILD)/locale
	@localedef -i de_DE -f UTF-8 $(BUILD)/locale/de_DE.UTF-8 || \
		{ rm -rf $(BUILD)/locale/de_DE.UTF-8; exit 1; }
test-locale: $(BUILD)/locale/de_DE.UTF-8/LC_NUMERIC

$(BUILD)/%.o: src/%.c $(wildcard src/*.h) | deps
	@mkdir -p $(BUILD)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BIN): $(OBJECTS) $(BUILD)/main.o
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# Each unit test links the modules it exercises (all but main.o) and Criterion.  A test
# that reads the counters kept only for tests (src/counters.h) compiles the modules that
# keep them itself, with -DSWAG_TEST_COUNTERS, in place of their objects.
TEST_COUNTED_hashtable = src/hashtable.c
TEST_COUNTED_keytable = src/keytable.c src/hashtable.c
TEST_COUNTED_ring = src/ring.c
TEST_COUNTED_mode = src/agg_mode.c src/hashtable.c
TEST_COUNTED_distinct = src/agg_distinct.c
TEST_COUNTED_minmax = src/agg_minmax.c
TEST_COUNTED_agg = src/agg_monoid.c src/agg_ends.c src/ring.c
TEST_COUNTED_quantile = src/agg_quantile.c
$(BUILD)/test_%: tests/unit/test_%.c $(wildcard tests/unit/*.h) tests/agg_steps.h $(OBJECTS) | test-deps
	$(CC) $(ALL_CFLAGS) $(if $(TEST_COUNTED_$*),-DSWAG_TEST_COUNTERS) -Itests/unit \
		$(LDFLAGS) -o $@ $< $(TEST_COUNTED_$*) \
		$(filter-out $(TEST_COUNTED_$*:src/%.c=$(BUILD)/%.o),$(OBJECTS)) $(LIBS) -lcriterion

# numprint.c writes digits with SSE2 on x86-64 and with 64-bit SWAR arithmetic elsewhere,
# and split.h splits lines with SSE2 or a word at a time: their tests run a second time
# on a build that takes the portable paths.
PORTABLE_OBJECTS = $(filter-out $(BUILD)/numprint.o,$(OBJECTS))
$(BUILD)/test_numprint_nosimd: tests/unit/test_numprint.c src/numprint.c $(wildcard src/*.h) \
		$(PORTABLE_OBJECTS) | test-deps
	$(CC) $(ALL_CFLAGS) -DNUMPRINT_NO_SIMD -Itests/unit $(LDFLAGS) -o $@ \
		tests/unit/test_numprint.c src/numprint.c $(PORTABLE_OBJECTS) $(LIBS) -lcriterion
$(BUILD)/test_split_nosimd: tests/unit/test_split.c $(wildcard src/*.h) $(OBJECTS) | test-deps
	$(CC) $(ALL_CFLAGS) -DSPLIT_NO_SIMD -Itests/unit $(LDFLAGS) -o $@ \
		tests/unit/test_split.c $(OBJECTS) $(LIBS) -lcriterion

unit: $(UNIT_BINARIES) test-locale
	@for t in $(UNIT_BINARIES); do \
		echo "== $$t"; SWAG_TEST_LOCPATH=$(TEST_LOCPATH) $(UNIT_RUNNER) $$t --jobs 1 || \
		exit 1; done

unit-portable: $(BUILD)/test_numprint_nosimd $(BUILD)/test_split_nosimd
	@for t in $^; do echo "== $$t"; $(UNIT_RUNNER) $$t --jobs 1 || exit 1; done

# The differential tests (tests/diff/differential.c: swag against a naive
# recomputation of every window over random mixes of options), run by
# tests/sh/differential.sh; it needs only libc and libm.
$(BUILD)/differential: tests/diff/differential.c
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror $(CFLAGS) $(LDFLAGS) -o $@ $< -lm
export SWAG_DIFFERENTIAL = $(abspath $(BUILD)/differential)

check: test-deps $(BIN) $(BUILD)/differential unit unit-portable swag-work
	@SWAG=$(RUN_BIN) tests/cli/run tests/cli/*.case
	@for t in tests/sh/*.sh; do \
		echo "== $$t"; SWAG=$(RUN_BIN) SWAG_TEST_LOCPATH=$(TEST_LOCPATH) bash $$t || \
		exit 1; done
	@$(MAKE) --no-print-directory fuzz-smoke
	@$(MAKE) --no-print-directory check-faults-quick
	@echo "make check: all tests passed"

# The whole suite again, built with AddressSanitizer and UndefinedBehaviorSanitizer.
check-sanitize:
	$(MAKE) BUILD=build/sanitize BIN=build/sanitize/swag \
		CFLAGS="$(SANITIZE_FLAGS)" LDFLAGS="$(SANITIZE_FLAGS)" check

demo: $(BIN)
	@scripts/demo $(RUN_BIN)

bench: bench-deps $(BIN)
	@scripts/bench $(RUN_BIN)

# The benchmark's second swag (scripts/bench): min and max on agg_monoid.c's two-stack
# instead of agg_minmax.c's deque, tests/bench/agg_twostack.c linked in place of agg.o.
$(BUILD)/swag-twostack: tests/bench/agg_twostack.c src/agg.c \
		$(filter-out $(BUILD)/agg.o,$(OBJECTS)) $(BUILD)/main.o
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(filter-out $(BUILD)/agg.o,$(OBJECTS)) \
		$(BUILD)/main.o $(LIBS)

install: $(BIN)
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	@# A copy renamed into place: a swag still running (tail -f | swag) keeps the old
	@# file, which cp over it would refuse ("Text file busy").
	cp $(BIN) $(DESTDIR)$(BINDIR)/.swag.new
	chmod 755 $(DESTDIR)$(BINDIR)/.swag.new
	mv -f $(DESTDIR)$(BINDIR)/.swag.new $(DESTDIR)$(BINDIR)/swag
	cp man/swag.1 $(DESTDIR)$(MANDIR)/man1/.swag.1.new
	chmod 644 $(DESTDIR)$(MANDIR)/man1/.swag.1.new
	mv -f $(DESTDIR)$(MANDIR)/man1/.swag.1.new $(DESTDIR)$(MANDIR)/man1/swag.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/swag $(DESTDIR)$(MANDIR)/man1/swag.1

clean:
	rm -rf build swag

.PHONY: all deps test-deps bench-deps test-locale unit unit-portable check check-sanitize demo bench install uninstall clean

# Fuzzing: the libFuzzer harnesses of tests/fuzz/, built with clang, AddressSanitizer
# and UBSan into $(BUILD)/fuzz by scripts/fuzz, which runs them one after another from
# the seed corpus in tests/fuzz/corpus/ (what they find goes to $(BUILD)/fuzz, not
# the tree).  make fuzz gives each harness two minutes; make fuzz-smoke, a step of
# make check, five seconds, and skips with a message when clang or libFuzzer is
# missing (Debian: clang libclang-rt-dev), or in make check-sanitize, whose run
# would only repeat it (the harnesses always have the sanitizers).
fuzz: deps
	@FUZZ_BUILD=$(BUILD)/fuzz scripts/fuzz 120

fuzz-smoke: deps
	@case '$(CFLAGS)' in *-fsanitize=*) \
		echo "fuzz-smoke: skipped in a sanitizer build";; \
	*) FUZZ_BUILD=$(BUILD)/fuzz SWAG_FUZZ_OPTIONAL=1 scripts/fuzz 5;; esac

.PHONY: fuzz fuzz-smoke

# Robustness (issue 7): the allocation-failure sweep and valgrind.
#
#   make check-faults        builds swag with -DSWAG_FAULT_INJECTION (src/mem.h),
#                            AddressSanitizer (LeakSanitizer with it) and UBSan in
#                            $(BUILD)/faults, and makes each allocation fail in turn
#                            over scripts/check-faults' cases and every tests/cli case:
#                            exit 3 and "out of memory", or the unfaulted result, and
#                            never a crash, hang, leak or wrong number (~2 minutes)
#   make check-faults-quick  the same over a representative subset: the last step of
#                            make check (~30 s); skipped in make check-sanitize, since
#                            the fault build is a sanitizer build already
#   make check-valgrind      the unit tests (scripts/valgrind-unit: Criterion's
#                            children too) and every tests/cli case under valgrind,
#                            failing on any error or leak; too slow for make check
#
# make FAULT=1 builds with the fault-injection seam of src/mem.h (SWAG_FAIL_ALLOC=N
# fails the Nth allocation; SWAG_COUNT_ALLOC=FILE gets their number at exit).
ifdef FAULT
ALL_CFLAGS += -DSWAG_FAULT_INJECTION
endif
FAULT_BUILD = $(BUILD)/faults
FAULT_MAKE = $(MAKE) --no-print-directory BUILD=$(FAULT_BUILD) BIN=$(FAULT_BUILD)/swag \
	CFLAGS="$(SANITIZE_FLAGS)" LDFLAGS="$(SANITIZE_FLAGS)" FAULT=1 $(FAULT_BUILD)/swag
VALGRIND_SWAG = $(BUILD)/valgrind-swag

WORK_BUILD = $(BUILD)/work
# tests/sh/work.sh, in make check, compares it with the plain build and checks its charges.
export SWAG_WORK = $(abspath $(WORK_BUILD)/swag)
swag-work: deps
	@$(MAKE) --no-print-directory BUILD=$(WORK_BUILD) BIN=$(WORK_BUILD)/swag WORK=1 \
		$(WORK_BUILD)/swag

check-faults: test-deps
	@$(FAULT_MAKE)
	@scripts/check-faults $(FAULT_BUILD)/swag

check-faults-quick: test-deps
	@case '$(CFLAGS)' in *-fsanitize=*) \
		echo "check-faults-quick: skipped in a sanitizer build";; \
	*) $(FAULT_MAKE) && scripts/check-faults --quick $(FAULT_BUILD)/swag;; esac

check-valgrind: test-deps $(BIN) $(UNIT_BINARIES)
	@command -v valgrind > /dev/null || \
		{ echo "check-valgrind: valgrind is not installed (Debian: valgrind)"; exit 1; }
	@$(MAKE) --no-print-directory unit UNIT_RUNNER=scripts/valgrind-unit
	@printf '#!/bin/sh\nexec valgrind -q --error-exitcode=99 --leak-check=full "%s" "$$@"\n' \
		"$(abspath $(BIN))" > $(VALGRIND_SWAG)
	@chmod +x $(VALGRIND_SWAG)
	@SWAG=$(abspath $(VALGRIND_SWAG)) tests/cli/run tests/cli/*.case

.PHONY: check-faults check-faults-quick check-valgrind swag-work
