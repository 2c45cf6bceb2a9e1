# git-durable — durable git object writes.
PREFIX ?= /usr/local
GO     ?= go
# git runs "git unpack-durable" and the helper of durable:: URLs from its
# exec-path before PATH: make install links both there, so that they work
# wherever git runs — cron too, whose PATH=/usr/bin:/bin lacks
# /usr/local/bin. GITEXECDIR= (empty) installs without the links.
GITEXECDIR ?= $(shell git --exec-path 2>/dev/null)
BIN    := bin
CMDS   := $(BIN)/git-unpack-durable $(BIN)/git-remote-durable
MANDIR ?= $(PREFIX)/share/man
MANS   := docs/git-unpack-durable.1 docs/git-remote-durable.1
# --version says it (a go install of a tagged module knows its own).
VERSION ?= $(shell git describe --tags --always 2>/dev/null)
LDFLAGS := $(if $(VERSION),-ldflags "-X github.com/git-durable/git-durable/internal/cli.version=$(VERSION)")
# What the binaries are built from: they are rebuilt only when one of these
# changed, so that "sudo make install" after "make" needs no Go in root's
# PATH.
SOURCES := go.mod go.sum $(shell find . -name '*.go' ! -name '*_test.go' ! -path './integration/*' ! -path './bench/*' ! -path './.git/*')

.PHONY: all build test vet fmtvet fuzz bench install uninstall demo dist deb clean FORCE

all: build

build: $(CMDS)

$(BIN)/git-unpack-durable: $(SOURCES) $(BIN)/.version
	$(GO) build $(LDFLAGS) -o $@ ./cmd/git-unpack-durable

$(BIN)/git-remote-durable: $(SOURCES) $(BIN)/.version
	$(GO) build $(LDFLAGS) -o $@ ./cmd/git-remote-durable

# The version the binaries say: rewritten (and so rebuilding them) only
# when git describe says something new, never emptied where it says
# nothing (no git, or a checkout git will not read).
$(BIN)/.version: FORCE
	@mkdir -p $(BIN)
	@if [ -n '$(VERSION)' ] && [ "$$(cat $@ 2>/dev/null)" != '$(VERSION)' ]; then echo '$(VERSION)' >$@; fi; [ -e $@ ] || : >$@

FORCE:

# The other systems the durability policy claims: each must build and vet
# clean, and its test binaries must build (CROSS_TEST); CROSS_BUILD only
# builds and vets (the BSDs and illumos run the fsync fallback by design).
CROSS_TEST  ?= windows darwin freebsd
CROSS_BUILD ?= openbsd netbsd illumos

# gofmt and go vet of this system: what the cross-OS checks do first.
fmtvet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { gofmt -l .; echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

vet: fmtvet
	@for os in $(CROSS_TEST) $(CROSS_BUILD); do \
		echo "GOOS=$$os: build, vet"; \
		GOOS=$$os $(GO) build ./... && GOOS=$$os $(GO) vet ./... || exit 1; \
	done
	@for os in $(CROSS_TEST); do \
		echo "GOOS=$$os: test binaries"; \
		for p in $$(GOOS=$$os $(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...); do \
			GOOS=$$os $(GO) test -c -o /dev/null $$p || exit 1; \
		done; \
	done

# The tests build the binaries themselves and drive real git. Progress: a
# line per test as it ends, every skip with its reason, the output of
# every failure (internal/testreport); then the race detector's run, and
# the cross-OS checks last (about 13 minutes with a cold build cache).
test: fmtvet $(BIN)/testreport
	@echo "make test: unit, integration and crash tests (about 18 minutes on 2 cores), then -race, then the other systems' builds"
	@bash -o pipefail -c '$(GO) test -json -count=1 -timeout 45m ./... | $(BIN)/testreport'
	$(GO) test -count=1 -race ./internal/unpack ./batch ./loose
	@$(MAKE) --no-print-directory vet

$(BIN)/testreport: internal/testreport/main.go
	@mkdir -p $(BIN)
	$(GO) build -o $@ ./internal/testreport

# Each fuzz target runs FUZZTIME: a number of inputs by default, since a
# duration (FUZZTIME=10m, by hand) can fail in Go 1.26 with a bare "context
# deadline exceeded" as it ends, no input at fault (golang/go#75804, fixed
# in Go 1.27). 150,000 inputs take 4-21 s a target on 2 cores. A new
# interesting input is minimised for at most FUZZMIN runs: the default, 60 s,
# stalled every worker for most of a short run. A crasher is written to the
# package's testdata/fuzz/<target>/ and fails the run: commit it as a
# regression seed.
FUZZTIME ?= 150000x
FUZZMIN  ?= 2000x
FUZZ     := ./pack:FuzzReader ./pack:FuzzApplyDelta ./internal/inflate:FuzzInflate ./internal/sha1dc:FuzzSHA1DC ./loose:FuzzDecode ./internal/fsck:FuzzCheck ./internal/fsck:FuzzTreeLinks ./internal/remote:FuzzRelay ./internal/remote:FuzzList ./internal/remote:FuzzListV2 ./internal/upstream:FuzzAnswer ./internal/upstream/transport:FuzzCredential ./internal/reftable:FuzzReftable

fuzz:
	@for t in $(FUZZ); do \
		echo "fuzz $${t#*:} in $${t%%:*} for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$${t#*:}\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN) -timeout 10m "$${t%%:*}" || exit 1; \
	done

# Ours beside git on the same generated pack, alternating, medians: see
# bench/main.go for the flags (BENCHFLAGS="-rounds 5", -dir on another disk).
# REPO=<repository> or PACK=<file> adds the rows of a real history;
# GIT=<path> measures beside another git (built by hand: see
# docs/performance.md), which then drives the helper too.
BENCHFLAGS ?=
REPO ?=
PACK ?=
GIT ?=
bench: build
	$(GO) build -o $(BIN)/bench ./bench
	$(BIN)/bench -bin $(BIN)/git-unpack-durable $(if $(REPO),-repo '$(REPO)') $(if $(PACK),-pack '$(PACK)') $(if $(GIT),-git '$(GIT)') $(BENCHFLAGS)

# Release binaries for the systems people run mirrors and laptops on:
# static (no cgo), reproducible paths (-trimpath), stamped with the
# version, each with the man pages, README, CHANGELOG and LICENSE in an
# archive of its own, and SHA256SUMS beside them. A Debian 12 host (Go
# 1.19) needs no Go to install them.
# The archives are named after git describe (a tag only where the commit
# is tagged, "-dirty" for uncommitted changes), else the release of
# internal/cli/version.go where there is no git; two runs on one commit
# give the same bytes (the commit's time on every file, no owners, sorted,
# gzip without a name or time).
DIST_TARGETS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64
DIST         ?= dist
RELEASE      := $(shell sed -n 's/^const Release = "\(.*\)"/v\1/p' internal/cli/version.go)
DIST_VERSION := $(or $(shell git describe --tags --always --dirty 2>/dev/null),$(RELEASE))
DIST_EPOCH   := $(or $(SOURCE_DATE_EPOCH),$(shell git log -1 --format=%ct 2>/dev/null),0)
dist:
	@rm -rf $(DIST) && mkdir -p $(DIST)
	@for t in $(DIST_TARGETS); do \
		os=$${t%/*}; arch=$${t#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		name=git-durable-$(DIST_VERSION)-$$os-$$arch; dir=$(DIST)/$$name; \
		echo "dist: $$name"; mkdir -p $$dir; \
		for c in git-unpack-durable git-remote-durable; do \
			CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath \
				-ldflags "-s -w -X github.com/git-durable/git-durable/internal/cli.version=$(or $(VERSION),$(RELEASE))" \
				-o $$dir/$$c$$ext ./cmd/$$c || exit 1; \
		done; \
		cp $(MANS) README.md CHANGELOG.md LICENSE $$dir/; \
		mkdir -p $$dir/docs && cp -R docs/systemd docs/logrotate docs/prometheus $$dir/docs/; \
		chmod 0644 $$dir/*.1 $$dir/*.md $$dir/LICENSE $$dir/docs/*/*; \
		find $$dir -exec touch -h -d @$(DIST_EPOCH) {} +; \
		if [ $$os = windows ]; then (cd $(DIST) && TZ=UTC zip -qrX $$name.zip $$name); \
		else tar -C $(DIST) --sort=name --owner=0 --group=0 --numeric-owner --mtime=@$(DIST_EPOCH) -cf - $$name | gzip -9n >$(DIST)/$$name.tar.gz; fi; \
		rm -rf $$dir; \
	done
	@cd $(DIST) && sha256sum git-durable-* > SHA256SUMS && cat SHA256SUMS

# A Debian package, built with dpkg-deb from a control file and maintainer
# scripts (packaging/deb): no debhelper or nfpm to install, on the Debian
# hosts the package is for. Static binaries, as make dist's; the version
# is the release, with the commit where it is not the release's tag; two
# builds of one commit give the same bytes. apt-get install
# ./dist/git-durable_<version>_<arch>.deb installs it.
DEB_ARCH    ?= $(or $(shell dpkg --print-architecture 2>/dev/null),$(shell $(GO) env GOARCH))
DEB_VERSION ?= $(patsubst v%,%,$(RELEASE))$(if $(filter $(RELEASE),$(DIST_VERSION)),,+git.$(subst -,.,$(DIST_VERSION)))
deb:
	@mkdir -p $(BIN)/deb
	@for c in git-unpack-durable git-remote-durable; do \
		CGO_ENABLED=0 $(GO) build -trimpath \
			-ldflags "-s -w -X github.com/git-durable/git-durable/internal/cli.version=$(or $(VERSION),$(RELEASE))" \
			-o $(BIN)/deb/$$c ./cmd/$$c || exit 1; \
	done
	@packaging/deb/build.sh $(DIST) $(DEB_VERSION) $(DEB_ARCH) $(DIST_EPOCH) $(BIN)/deb

# The exec-path links are checked first, so that a failure leaves nothing
# half installed: the directory must be writable, and a file there that is
# not a link (one of git's own, or a copy put there by hand) is never
# replaced.
install: build
ifneq ($(GITEXECDIR),)
	@for c in $(notdir $(CMDS)); do \
		f=$(DESTDIR)$(GITEXECDIR)/$$c; \
		if [ -e "$$f" ] && [ ! -L "$$f" ]; then echo "make install: $$f is not a link; not replacing it (GITEXECDIR= installs without the links)" >&2; exit 1; fi; \
	done
	@if [ -d $(DESTDIR)$(GITEXECDIR) ] && [ ! -w $(DESTDIR)$(GITEXECDIR) ]; then \
		echo "make install: cannot write to git's exec-path $(DESTDIR)$(GITEXECDIR) (GITEXECDIR= installs without the links)" >&2; exit 1; \
	fi
endif
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(CMDS) $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 $(MANS) $(DESTDIR)$(MANDIR)/man1/
ifneq ($(GITEXECDIR),)
	install -d $(DESTDIR)$(GITEXECDIR)
	for c in $(notdir $(CMDS)); do ln -sf $(abspath $(PREFIX))/bin/$$c $(DESTDIR)$(GITEXECDIR)/$$c || exit 1; done
endif

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(CMDS))) $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MANS)))
ifneq ($(GITEXECDIR),)
	for c in $(notdir $(CMDS)); do \
		if [ -L $(DESTDIR)$(GITEXECDIR)/$$c ]; then rm -f $(DESTDIR)$(GITEXECDIR)/$$c; fi; \
	done
endif

demo: build
	@BIN='$(abspath $(BIN))' scripts/demo.sh

clean:
	rm -rf $(BIN) $(DIST)
