# sockbench: one Makefile. `make`, `make run`, `make test`, `make SAN=1 test`, `make install`.
# Each builds in parallel (a job per CPU; -jN on the command line chooses) and quietly (V=1:
# every command).
CC      ?= cc
PREFIX  ?= /usr/local
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

ifeq ($(SAN),1)
BUILD   := build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD   := build
SANFLAGS :=
endif

CFLAGS  ?= -O2 -g
CFLAGS  += -Isrc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -pthread $(SANFLAGS) \
	   -DSB_VERSION='"$(VERSION)"' -MMD -MP
LDFLAGS += -pthread $(SANFLAGS)
LIBS    := $(shell pkg-config --libs libcjson 2>/dev/null || echo -lcjson) \
	   $(shell pkg-config --libs libsodium 2>/dev/null || echo -lsodium) \
	   $(shell pkg-config --libs gsl 2>/dev/null || echo -lgsl -lgslcblas) \
	   $(shell pkg-config --libs libmnl 2>/dev/null || echo -lmnl) -lm
# The io_uring back end when liburing is there (HAVE_LIBURING; docs/style.md, "Back ends").
ifneq ($(shell pkg-config --exists liburing && echo yes),)
CFLAGS  += -DHAVE_LIBURING
LIBS    += $(shell pkg-config --libs liburing)
else
SKIP_SRC := src/transport/io_uring.c
endif
# --trace's BPF programs when libbpf, bpftool and clang are there (else --trace says so).
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || ls /usr/sbin/bpftool 2>/dev/null)
BPF_CLANG ?= clang
ifneq ($(and $(shell pkg-config --exists libbpf && echo yes),$(BPFTOOL),$(shell command -v $(BPF_CLANG))),)
CFLAGS  += -DHAVE_LIBBPF -I$(BUILD)/trace
LIBS    += $(shell pkg-config --libs libbpf)
TRACE_SKEL := $(BUILD)/trace/stages.skel.h
endif
CMOCKA  := $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

SRC  := $(filter-out $(SKIP_SRC),$(wildcard src/*/*.c))
OBJ  := $(SRC:src/%.c=$(BUILD)/%.o)
LIBOBJ := $(filter-out $(BUILD)/cli/main.o,$(OBJ))
UNIT := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))

# Quiet unless V=1: no line per file (a compiler's errors and warnings still show), a line
# for the link; V=1 prints every command.
ifeq ($(V),1)
Q :=
else
Q := @
MAKEFLAGS += --no-print-directory
endif
# Parallel by default, a job per CPU, unless the command line says -j (make -j1: one at a time);
# a make this one runs (make test's) shares its jobs.
ifeq ($(MAKELEVEL)$(filter -j% --jobserver%,$(MAKEFLAGS)),0)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

.PHONY: all run test test-only unit install clean deps bench fuzz man deb FORCE
all: $(BUILD)/sockbench

$(BUILD)/%.o: src/%.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

# The BPF object (no sanitizer, no host flags: BPF's own target) and its libbpf skeleton.
$(BUILD)/trace/stages.bpf.o: src/trace/bpf/stages.bpf.c src/trace/bpf/stages_maps.bpf.h src/trace/bpf/stages_sock.bpf.h src/trace/trace_abi.h
	@mkdir -p $(@D)
	$(Q)$(BPF_CLANG) -O2 -g -target bpf -Wall -Werror \
		-I/usr/include/$(shell $(CC) -dumpmachine) -c -o $@ $<
$(BUILD)/trace/stages.skel.h: $(BUILD)/trace/stages.bpf.o
	$(Q)$(BPFTOOL) gen skeleton $< name stages_bpf >$@.tmp && mv $@.tmp $@
$(BUILD)/trace/trace.o: $(TRACE_SKEL)

# The version (git describe) is compiled into three objects: they are built again whenever it
# changes (a commit, an edit), not only when their sources do.
$(BUILD)/version.stamp: FORCE
	@mkdir -p $(@D)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' >$@
$(BUILD)/report/json.o $(BUILD)/report/html.o $(BUILD)/cli/main.o: $(BUILD)/version.stamp
FORCE:

$(BUILD)/sockbench: $(OBJ)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# The profiler's attribution replayed over perf's samples (e2e/profile.sh).
$(BUILD)/tests/prof_replay: tests/helpers/prof_replay.c $(LIBOBJ)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(LIBOBJ) $(LDFLAGS) $(LIBS)

$(BUILD)/tests/%: tests/helpers/%.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIBOBJ)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Isrc -DFIXTURES='"$(CURDIR)/tests/fixtures/"' -o $@ $< $(LIBOBJ) $(LDFLAGS) $(LIBS) $(CMOCKA)

# Sets up a fresh Debian machine (root) with what building and running need (scripts/deps
# run), builds, runs the default job for a few seconds.
run:
	@scripts/deps run
	$(MAKE) all
	./$(BUILD)/sockbench udp-rr --duration 3 --warmup 1

# Every set: building and running, the tests' tools, packaging (.ci/run's).
deps:
	@scripts/deps

# The unit tests alone (each a cmocka binary), through the same runner.
unit: all $(UNIT)
	@T='^unit/' SOCKBENCH=$(CURDIR)/$(BUILD)/sockbench tests/run.sh $(UNIT)

# J: e2e tests side by side (tests/run.sh; those marked "# solo:" alone after), two where
# there are two CPUs or more: `make test J=1` one after another.
J ?= $(if $(filter 0 1,$(shell nproc 2>/dev/null || echo 1)),1,2)
# The tests' tools too (scripts/deps run test); without root, what is missing is said and the
# tests that need it skip.
test:
	@scripts/deps run test || echo "sockbench: going on: the tests that need those skip" >&2
	@$(MAKE) --no-print-directory test-only

test-only: all $(UNIT) $(BUILD)/tests/udp_probe $(BUILD)/tests/flood $(BUILD)/tests/prof_replay
	@scripts/layers
	@scripts/funcs
	@BUILD=$(BUILD) scripts/exports
	@T='$(value T)' J='$(J)' SOCKBENCH=$(CURDIR)/$(BUILD)/sockbench UDP_PROBE=$(CURDIR)/$(BUILD)/tests/udp_probe \
		FLOOD=$(CURDIR)/$(BUILD)/tests/flood \
		PROF_REPLAY=$(CURDIR)/$(BUILD)/tests/prof_replay tests/run.sh $(UNIT)

# Every script in bench/ (lib.sh is theirs), each against its reference in the same
# invocation; then one table of what they measured (bench/summary.awk). 77: a peer is missing.
BENCH := $(filter-out bench/lib.sh,$(wildcard bench/*.sh))
bench: all
	@sum=$$(mktemp); for b in $(BENCH); do echo "== $$b"; BENCH_SUMMARY=$$sum $$b; rc=$$?; \
		if [ $$rc = 77 ]; then echo "(skipped)"; elif [ $$rc != 0 ]; then rm -f $$sum; exit 1; fi; \
	done; echo; echo "== summary"; awk -f bench/summary.awk $$sum; rm -f $$sum

# libFuzzer, FUZZ_TIME seconds each (clang): the control codec and config parsing (ctl), a
# whole control session as the agent reads it (session), and what the data plane reads from
# the network (data).
FUZZ_TIME ?= 30
FUZZERS := ctl session data results
# Every source but main.c, so a new file can never break the fuzz link again.
FUZZ_SRC := $(filter-out src/cli/main.c,$(SRC))
fuzz:
	@for f in $(FUZZERS); do \
		mkdir -p build-fuzz/corpus-$$f && \
		clang -g -O1 -std=c11 -D_GNU_SOURCE -pthread -fsanitize=fuzzer,address,undefined \
			-fno-sanitize-recover=undefined $(filter -DHAVE_LIBURING,$(CFLAGS)) \
			-DSB_VERSION='"fuzz"' -Isrc -o build-fuzz/fuzz_$$f tests/fuzz/fuzz_$$f.c \
			$(FUZZ_SRC) $(LIBS) || exit 1; \
	done
	cp tests/fuzz/corpus/* build-fuzz/corpus-ctl/
	cp tests/fuzz/corpus-session/* build-fuzz/corpus-session/
	cp tests/fuzz/corpus-data/* build-fuzz/corpus-data/
	cp tests/fuzz/corpus-results/* build-fuzz/corpus-results/
	@for f in $(FUZZERS); do \
		echo "fuzz_$$f:"; \
		build-fuzz/fuzz_$$f -max_total_time=$(FUZZ_TIME) -max_len=4096 -print_final_stats=1 \
			build-fuzz/corpus-$$f >build-fuzz/log-$$f 2>&1; rc=$$?; \
		tail -n 8 build-fuzz/log-$$f; [ $$rc -eq 0 ] || exit $$rc; \
	done

# The man page's option lists come from the option table (scripts/mkman); `make man` after
# changing an option, and commit docs/sockbench.1 (tests/e2e/man.sh fails when it is stale).
man: all
	scripts/mkman $(BUILD)/sockbench >docs/sockbench.1

# The Debian package (debian/): build/deb/sockbench_VERSION_ARCH.deb, built by dpkg-buildpackage
# in a temporary copy of the tree (scripts/mkdeb), so this tree and its build/ stay as they are.
deb:
	@scripts/deps run deb
	@scripts/mkdeb build/deb

install: all
	install -D -m 0755 $(BUILD)/sockbench $(DESTDIR)$(PREFIX)/bin/sockbench
	install -D -m 0644 docs/sockbench.1 $(DESTDIR)$(PREFIX)/share/man/man1/sockbench.1
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	./$(BUILD)/sockbench completion bash >$(DESTDIR)$(PREFIX)/share/bash-completion/completions/sockbench

clean:
	rm -rf build build-san build-fuzz

-include $(OBJ:.o=.d)
