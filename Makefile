# swag: sliding-window aggregation.  See README.md.
#
#   make            build ./swag
#   make check      build and run every test (unit, command-line, process-level)
#   make check-sanitize   the same under AddressSanitizer and UBSan
#   make demo       run swag on a generated sample log
#   make bench      run the benchmarks
#   make install    install swag and its man page (PREFIX, DESTDIR)
#
# Every target first runs scripts/install-deps, which installs missing Debian packages.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
CC ?= cc
CFLAGS ?= -O2
BUILD ?= build
BIN ?= swag
SANITIZE_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all

ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Isrc $(CFLAGS) $(EXTRA_CFLAGS)
LIBS = -lcsv -lxxhash -lm

SOURCES = src/agg.c src/agg_distinct.c src/agg_mode.c src/agg_monoid.c src/agg_quantile.c src/csvread.c src/hash.c src/keytable.c src/mem.c \
	src/numparse.c src/numprint.c src/output.c src/pipeline.c src/reader.c src/spec.c \
	src/timestamp.c src/twostack.c src/window.c
OBJECTS = $(SOURCES:src/%.c=$(BUILD)/%.o)
UNIT_TESTS = twostack agg numparse numprint spec csvread keytable mode quantile \
	distinct timestamp
UNIT_BINARIES = $(UNIT_TESTS:%=$(BUILD)/test_%)

all: $(BIN)

deps:
	@scripts/install-deps build
test-deps:
	@scripts/install-deps test

$(BUILD)/%.o: src/%.c $(wildcard src/*.h) | deps
	@mkdir -p $(BUILD)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BIN): $(OBJECTS) $(BUILD)/main.o
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# Each unit test links the modules it exercises (all but main.o) and Criterion.
$(BUILD)/test_%: tests/unit/test_%.c $(wildcard tests/unit/*.h) $(OBJECTS) | test-deps
	$(CC) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(OBJECTS) $(LIBS) -lcriterion

unit: $(UNIT_BINARIES)
	@for t in $(UNIT_BINARIES); do \
		echo "== $$t"; $(UNIT_RUNNER) $$t --jobs 1 || exit 1; done

check: test-deps $(BIN) unit
	@SWAG=./$(BIN) tests/cli/run tests/cli/*.case
	@for t in tests/sh/*.sh; do \
		echo "== $$t"; SWAG=./$(BIN) bash $$t || exit 1; done
	@echo "make check: all tests passed"

# The whole suite again, built with AddressSanitizer and UndefinedBehaviorSanitizer.
check-sanitize:
	$(MAKE) BUILD=build/sanitize BIN=build/sanitize/swag \
		CFLAGS="$(SANITIZE_FLAGS)" LDFLAGS="$(SANITIZE_FLAGS)" check

demo: $(BIN)
	@scripts/demo ./$(BIN)

bench: test-deps $(BIN)
	@scripts/bench ./$(BIN)

install: $(BIN)
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	cp $(BIN) $(DESTDIR)$(BINDIR)/swag
	chmod 755 $(DESTDIR)$(BINDIR)/swag
	cp man/swag.1 $(DESTDIR)$(MANDIR)/man1/swag.1
	chmod 644 $(DESTDIR)$(MANDIR)/man1/swag.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/swag $(DESTDIR)$(MANDIR)/man1/swag.1

clean:
	rm -rf build swag

.PHONY: all deps test-deps unit check check-sanitize demo bench install uninstall clean
