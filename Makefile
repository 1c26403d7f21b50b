# hbcode-tools: one Makefile for everything.  `make run` and `make test` are
# the two commands of the README; both install missing Debian packages first.

CC       ?= gcc
BUILD    ?= build
PREFIX   ?= /usr/local
DESTDIR  ?=
SAN      ?=

# Debian 12 ships msgpack-c as `msgpack`; newer systems call it `msgpack-c`.
MSGPACK_PC := $(shell pkg-config --exists msgpack-c 2>/dev/null && echo msgpack-c || echo msgpack)
# Each program links only the libraries it uses (check with ldd): the
# kernel's own three, and per service what its family needs.
BASE_PKGS     := libzmq $(MSGPACK_PC) jansson
SESSIONS_PKGS := $(BASE_PKGS) sqlite3
MESSAGES_PKGS := $(BASE_PKGS) sqlite3
# svc-alerts: its spool (SQLite), the relay link (WS_LIBS).
ALERTS_PKGS   := $(BASE_PKGS) sqlite3
# svc-browser: libcurl for Chrome's /json/version, the DevTools WebSocket (WS_LIBS).
BROWSER_PKGS  := $(BASE_PKGS) libcurl
SPEECH_PKGS   := $(BASE_PKGS) libcurl samplerate
VIDEO_PKGS    := $(BASE_PKGS) libcurl
# The explainer renderer: librsvg and libav* reach its programs only.
# pangocairo (already librsvg's) draws the worker's colour emoji blocks
# (svc-explainer/blocks_emoji.c), which librsvg's text draws in one colour.
EXPLAINER_PKGS := jansson libxml-2.0 librsvg-2.0 cairo fontconfig libavcodec libavformat \
                  libavutil samplerate libpng pangocairo
PKGS          := $(sort $(BASE_PKGS) $(SESSIONS_PKGS) $(SPEECH_PKGS) $(VIDEO_PKGS) $(EXPLAINER_PKGS))
# The WebSocket client (common/ws*.c): wslay framing over our own socket,
# OpenSSL for wss.  Only programs that call ws_* link them (for now the
# unit tests and svc-alerts): the static archive leaves the ws objects
# out of every other program.  Debian's libwslay-dev has no .pc file.
WS_LIBS       := -lwslay $(shell pkg-config --libs openssl 2>/dev/null)
libs_of        = $(shell pkg-config --libs $(1) 2>/dev/null) -lpthread

# chromium: the real browser svc-browser's tests drive (headless, over the
# DevTools protocol; tests/harness/chromium.c).  Without recommends, so no
# chromium-sandbox: the tests run it with --no-sandbox.
# The fonts the explainer renderer refuses to start without (renderer/fonts.c):
# DejaVu for Latin, Greek and Cyrillic, Noto for the other scripts and emoji.
# `make install` installs them too, unless it is staged into a DESTDIR.
EXPLAINER_FONT_PACKAGES := fonts-dejavu-core fonts-dejavu-extra fonts-noto-core fonts-noto-cjk \
                           fonts-noto-color-emoji
DEB_PACKAGES := build-essential pkg-config libzmq3-dev libmsgpack-dev libsqlite3-dev \
                libjansson-dev libcmocka-dev libxml2-utils iproute2 util-linux \
                libcurl4-openssl-dev libsamplerate0-dev sox sqlite3 jq \
                librsvg2-dev libxml2-dev libfontconfig-dev libavcodec-dev libavformat-dev \
                libavutil-dev libpango1.0-dev ffmpeg $(EXPLAINER_FONT_PACKAGES) \
                libwslay-dev libssl-dev openssl chromium mold

OPT      ?= -O2
CFLAGS   := -std=c17 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE $(OPT) -g -Wall -Wextra -Werror \
            -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Icommon -Iagents -iquote lib -iquote ws -iquote gemini \
            $(shell pkg-config --cflags $(PKGS) openssl 2>/dev/null)
LDLIBS   := $(call libs_of,$(PKGS))
TEST_LDLIBS := $(shell pkg-config --libs cmocka 2>/dev/null)

# The explainer worker's code blocks are highlighted by pygments, run by
# Debian's /usr/bin/python3 (svc-explainer/blocks_code.c).
DEB_PACKAGES += python3-pygments

# make fuzz: clang's libFuzzer (tests/fuzz/, docs/testing.md).  Not test deps.
FUZZ_DEB_PACKAGES := clang libclang-rt-dev
# make bench: valgrind's callgrind counts the broker's instructions per call
# (tests/bench/instructions.sh).  Not test deps.
BENCH_DEB_PACKAGES := valgrind
FUZZ_S       ?= 60
FUZZ_TARGET  ?=

ifeq ($(FUZZ),1)
# Coverage for libFuzzer on every object; its main only on the targets.
CFLAGS  += -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
           -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(SAN),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
# mold, where it is installed (make deps), links in less time than ld: the
# sanitizer build's 300 links make up a third of its CPU with ld (both
# builds 166 CPU-s with ld, 128 with mold: docs/benchmarks.md).  Without it
# (macOS), the compiler's own linker.
LINK_WITH := $(shell command -v mold >/dev/null 2>&1 && echo -fuse-ld=mold)
LDFLAGS   += $(LINK_WITH)

COMMON_SRC   := $(wildcard common/*.c)
# lib/: utilities any program could use, with no hbcode in them.
UTIL_SRC     := $(wildcard lib/*.c)
# ws/ and gemini/: the WebSocket client and the Gemini client.
WS_SRC       := $(wildcard ws/*.c)
GEMINI_SRC   := $(wildcard gemini/*.c)
# agents/: what hbcode knows of the two agents it drives (docs/agents.md).
AGENTS_SRC   := $(wildcard agents/*.c)
BROKER_SRC   := $(wildcard broker/*.c)
HBCTL_SRC    := $(wildcard hbctl/*.c)
# mcp/: hb-mcp, the MCP stdio server (docs/mcp.md).
MCP_SRC      := $(wildcard mcp/*.c)
BRIDGE_LIB_SRC := bridge/pump.c bridge/deliveries.c bridge/timeline_pub.c
APPDATA_SRC  := $(wildcard appdata/*.c)
SESSIONS_SRC := $(wildcard svc-sessions/*.c)
MESSAGES_SRC := $(wildcard svc-messages/*.c)
ALERTS_SRC   := $(wildcard svc-alerts/*.c)
BROWSER_SRC  := $(wildcard svc-browser/*.c)
SPEECH_SRC   := $(wildcard svc-speech/*.c)
VIDEO_SRC    := $(wildcard svc-video/*.c)
EXPLAINER_SRC := $(wildcard svc-explainer/*.c)
# renderer/: SVG scenes and narration to MP4, linked by hb-explainer and svc-explainer.
RENDER_SRC   := $(wildcard renderer/*.c)
TIMELINE_SRC := $(wildcard timeline/*.c)
UNIT_SRC     := $(wildcard tests/unit/test_*.c)
ITEST_SRC    := $(wildcard tests/integration/itest_*.c)
HARNESS_SRC  := $(wildcard tests/harness/*.c)
FUZZ_SRC     := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.c,%,$(FUZZ_SRC))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIBCOMMON   := $(BUILD)/libhbcommon.a
LIBUTIL     := $(BUILD)/libhbutil.a
LIBWS       := $(BUILD)/libws.a
LIBGEMINI   := $(BUILD)/libgemini.a
LIBRENDER   := $(BUILD)/librender.a
LIBAGENTS   := $(BUILD)/libagents.a
LIBAPPDATA  := $(BUILD)/libappdata.a
LIBSESSIONS := $(BUILD)/libsessions.a
LIBMESSAGES := $(BUILD)/libmessages.a
LIBALERTS   := $(BUILD)/libalerts.a
LIBBROWSER  := $(BUILD)/libbrowser.a
LIBSPEECH   := $(BUILD)/libspeech.a
LIBVIDEO    := $(BUILD)/libvideo.a
LIBEXPLAINER := $(BUILD)/libexplainer.a
LIBTIMELINE := $(BUILD)/libtimeline.a
LIBHARNESS  := $(BUILD)/libharness.a
PROGRAMS    := $(BUILD)/hb-broker $(BUILD)/hbctl $(BUILD)/svc-sessions $(BUILD)/svc-messages \
               $(BUILD)/svc-speech $(BUILD)/svc-video $(BUILD)/hb-codex-bridge $(BUILD)/hb-claude-bridge \
               $(BUILD)/hb-explainer $(BUILD)/svc-explainer $(BUILD)/svc-alerts \
               $(BUILD)/svc-browser $(BUILD)/hb-mcp
TEST_PROGS  := $(BUILD)/tests/svc-echo $(BUILD)/tests/worker-drive \
               $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC)) \
               $(patsubst tests/integration/%.c,$(BUILD)/tests/%,$(ITEST_SRC)) \
               $(patsubst %,$(BUILD)/tests/replay_%,$(FUZZ_NAMES))
FUZZ_PROGS  := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(or $(FUZZ_TARGET),$(FUZZ_NAMES)))
BENCH_PROGS := $(BUILD)/bench/bench-broker $(BUILD)/bench/bare-relay $(BUILD)/bench/bridge-peer \
               $(BUILD)/bench/bench-speech $(BUILD)/bench/bench-explainer-preview $(BUILD)/bench/bench-browser \
               $(BUILD)/bench/bench-browser-peers \
               $(BUILD)/bench/bench-scale $(BUILD)/bench/front-call

.PHONY: all programs-and-tests deps npm-deps run test test-asan check soak bench fuzz fuzz-run install clean timeline-golden
# Keep test objects: they are intermediate files of the pattern rules.
.SECONDARY:

all: $(PROGRAMS)

# Everything `check` runs, built but not run (for a quick look after a change).
programs-and-tests: $(PROGRAMS) $(TEST_PROGS)

deps:
	@sh deploy/deps.sh $(DEB_PACKAGES)

# The real agents for the end-to-end tests, the official MCP TypeScript
# SDK for hb-mcp's conformance test (tests/mcp), and the browser tool's
# peers for make bench (tests/browser-peers), pinned in their lock files.
npm-deps:
	@sh deploy/npm-deps.sh tests/codex agent-host tests/mcp tests/browser-peers

# svc-sessions and svc-messages share appdata.db through appdata/'s public
# header; the fuzz targets run the sessions tools on a database of their own.
$(BUILD)/obj/svc-sessions/%.o $(BUILD)/obj/svc-messages/%.o $(BUILD)/obj/tests/fuzz/%.o: CFLAGS += -Iappdata

# svc-explainer's files (and the tests of them) include the renderer's headers by name.
$(BUILD)/obj/svc-explainer/%.o $(BUILD)/obj/tests/%.o: CFLAGS += -iquote renderer

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# Each archive is made anew: `ar rcs` would keep the member of a source file that moved away.
$(LIBCOMMON): $(call obj,$(COMMON_SRC))
	rm -f $@ && $(AR) rcs $@ $^
$(LIBUTIL): $(call obj,$(UTIL_SRC))
	rm -f $@ && $(AR) rcs $@ $^
$(LIBWS): $(call obj,$(WS_SRC))
	rm -f $@ && $(AR) rcs $@ $^
$(LIBGEMINI): $(call obj,$(GEMINI_SRC))
	rm -f $@ && $(AR) rcs $@ $^
$(LIBRENDER): $(call obj,$(filter-out renderer/cli.c,$(RENDER_SRC)))
	rm -f $@ && $(AR) rcs $@ $^
# The colour conversion of every drawn frame: its loops vectorised (-O3)
# run in 2.3 ms a frame instead of 3.1 (renderer/yuv_convert.c).
$(call obj,renderer/yuv_convert.c): CFLAGS += -O3
$(LIBAGENTS): $(call obj,$(AGENTS_SRC))
	rm -f $@ && $(AR) rcs $@ $^
$(LIBAPPDATA): $(call obj,$(APPDATA_SRC))
	rm -f $@ && $(AR) rcs $@ $^
$(LIBSESSIONS): $(call obj,$(filter-out svc-sessions/main.c,$(SESSIONS_SRC)))
	rm -f $@ && $(AR) rcs $@ $^
$(LIBSPEECH): $(call obj,$(filter-out svc-speech/main.c,$(SPEECH_SRC)))
	rm -f $@ && $(AR) rcs $@ $^
$(LIBVIDEO): $(call obj,$(filter-out svc-video/main.c,$(VIDEO_SRC)))
	rm -f $@ && $(AR) rcs $@ $^
$(LIBMESSAGES): $(call obj,$(filter-out svc-messages/main.c,$(MESSAGES_SRC)))
	rm -f $@ && $(AR) rcs $@ $^
$(LIBALERTS): $(call obj,$(filter-out svc-alerts/main.c,$(ALERTS_SRC)))
	rm -f $@ && $(AR) rcs $@ $^
$(LIBBROWSER): $(call obj,$(filter-out svc-browser/main.c,$(BROWSER_SRC)))
	rm -f $@ && $(AR) rcs $@ $^
$(LIBEXPLAINER): $(call obj,$(filter-out svc-explainer/main.c,$(EXPLAINER_SRC)))
	rm -f $@ && $(AR) rcs $@ $^
$(LIBHARNESS): $(call obj,$(HARNESS_SRC))
	rm -f $@ && $(AR) rcs $@ $^
# The shared timeline's rows (timeline/, docs/timeline.md): the projectors
# for the bridges, the renderer for hbctl.
$(LIBTIMELINE): $(call obj,$(TIMELINE_SRC))
	rm -f $@ && $(AR) rcs $@ $^

$(BUILD)/hb-broker: $(call obj,$(BROKER_SRC)) $(LIBTIMELINE) $(LIBAGENTS) $(LIBCOMMON) $(LIBUTIL)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(BASE_PKGS))
$(BUILD)/hbctl: $(call obj,$(HBCTL_SRC)) $(LIBTIMELINE) $(LIBAGENTS) $(LIBCOMMON) $(LIBUTIL)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(BASE_PKGS))
$(BUILD)/hb-mcp: $(call obj,$(MCP_SRC)) $(LIBAGENTS) $(LIBCOMMON) $(LIBUTIL)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(BASE_PKGS))
$(BUILD)/hb-codex-bridge: $(call obj,bridge/codex.c bridge/codex_approval.c bridge/codex_deliver.c bridge/codex_once.c bridge/codex_timeline.c $(BRIDGE_LIB_SRC)) $(LIBTIMELINE) $(LIBAGENTS) $(LIBCOMMON) $(LIBUTIL)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(BASE_PKGS))
$(BUILD)/hb-claude-bridge: $(call obj,bridge/claude.c bridge/claude_deliver.c bridge/claude_failure.c bridge/claude_usage_end.c bridge/claude_history.c bridge/claude_lastread.c bridge/claude_timeline.c bridge/claude_once.c $(BRIDGE_LIB_SRC)) $(LIBTIMELINE) $(LIBAGENTS) $(LIBCOMMON) $(LIBUTIL)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(BASE_PKGS))
$(BUILD)/svc-sessions: $(call obj,svc-sessions/main.c) $(LIBSESSIONS) $(LIBAPPDATA) $(LIBCOMMON) $(LIBUTIL)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(SESSIONS_PKGS))
$(BUILD)/svc-messages: $(call obj,svc-messages/main.c) $(LIBMESSAGES) $(LIBAPPDATA) $(LIBCOMMON) $(LIBUTIL)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(MESSAGES_PKGS))
$(BUILD)/svc-alerts: $(call obj,svc-alerts/main.c) $(LIBALERTS) $(LIBWS) $(LIBCOMMON) $(LIBUTIL)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(ALERTS_PKGS)) $(WS_LIBS)
$(BUILD)/svc-browser: $(call obj,svc-browser/main.c) $(LIBBROWSER) $(LIBWS) $(LIBCOMMON) $(LIBUTIL)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(BROWSER_PKGS)) $(WS_LIBS)
$(BUILD)/svc-speech: $(call obj,svc-speech/main.c) $(LIBSPEECH) $(LIBGEMINI) $(LIBCOMMON) $(LIBUTIL)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(SPEECH_PKGS))
$(BUILD)/svc-video: $(call obj,svc-video/main.c) $(LIBVIDEO) $(LIBGEMINI) $(LIBCOMMON) $(LIBUTIL)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(VIDEO_PKGS))
$(BUILD)/hb-explainer: $(call obj,renderer/cli.c) $(LIBRENDER) $(LIBCOMMON) $(LIBUTIL)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(EXPLAINER_PKGS)) -lm
$(BUILD)/svc-explainer: $(call obj,svc-explainer/main.c) $(LIBEXPLAINER) $(LIBRENDER) $(LIBAGENTS) $(LIBGEMINI) $(LIBCOMMON) $(LIBUTIL)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(BASE_PKGS) $(EXPLAINER_PKGS)) -lm

$(BUILD)/tests/svc-echo: $(call obj,tests/echo/svc-echo.c) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(BASE_PKGS))
# The explainer's worker driven alone, for tests/e2e/worker-codex.sh and worker-claude.sh.
$(BUILD)/tests/worker-drive: $(BUILD)/obj/tests/explainer/worker-drive.o $(LIBEXPLAINER) $(LIBRENDER) $(LIBAGENTS) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(BASE_PKGS))
# The harness is for the WebSocket tests' fixtures (tls_fixture, node_server,
# fake_relay, ws_pump), the browser tests' (chromium, test_pages) and the
# explainer's (folder, explainer_env): an archive, so a test takes only what
# it calls; before the services' archives, whose code it may call.
$(BUILD)/tests/test_%: $(BUILD)/obj/tests/unit/test_%.o $(LIBHARNESS) $(LIBALERTS) $(LIBBROWSER) $(LIBMESSAGES) $(LIBSESSIONS) \
                       $(LIBAPPDATA) $(LIBSPEECH) $(LIBVIDEO) $(LIBEXPLAINER) $(LIBRENDER) $(LIBTIMELINE) $(LIBAGENTS) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(WS_LIBS) $(TEST_LDLIBS) -lm
# The broker's sleep is tested alone, on real sockets (broker/ is in no archive).
$(BUILD)/tests/test_broker_wait: $(call obj,broker/wait.c)
$(call obj,tests/unit/test_broker_wait.c): CFLAGS += -Ibroker -Itimeline
# The bridge's transcript search is tested alone (it is in no archive).
$(BUILD)/tests/test_claude_history: $(call obj,bridge/claude_history.c)
$(BUILD)/tests/test_claude_failure: $(call obj,bridge/claude_failure.c)
$(BUILD)/tests/test_claude_lastread: $(call obj,bridge/claude_lastread.c bridge/claude_history.c)
# (they call agents/ and common/: the archives again after them, since $^ lists it first)
$(BUILD)/tests/test_claude_history $(BUILD)/tests/test_claude_failure $(BUILD)/tests/test_claude_lastread: LDLIBS := $(LIBAGENTS) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL) $(LDLIBS)
# hb-mcp's parts but its main (mcp/ is in no archive).
MCP_LIB_SRC := $(filter-out mcp/main.c,$(MCP_SRC))
$(BUILD)/tests/test_mcp_jsonrpc $(BUILD)/tests/test_mcp_tools: $(call obj,$(MCP_LIB_SRC))
$(BUILD)/tests/test_mcp_jsonrpc $(BUILD)/tests/test_mcp_tools: LDLIBS := $(LIBAGENTS) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL) $(LDLIBS)
# hbctl's live view (hbctl/ is in no archive): its lines, cuts and screen.
$(BUILD)/tests/test_live_line: $(call obj,hbctl/live_line.c hbctl/live_text.c hbctl/live_screen.c hbctl/since.c)
$(BUILD)/tests/test_live_line: LDLIBS := $(LIBTIMELINE) $(LIBUTIL) $(LDLIBS)
# Tests split by subject share their fixture (tests/unit/*_rig.c), linked
# into each of them (and the archives again after it, as above).
$(BUILD)/tests/test_sessions $(BUILD)/tests/test_sessions_links: $(call obj,tests/unit/sessions_db_rig.c)
$(BUILD)/tests/test_sessions $(BUILD)/tests/test_sessions_links: LDLIBS := $(LIBSESSIONS) $(LIBAPPDATA) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL) $(LDLIBS)
$(BUILD)/tests/test_speech_answer $(BUILD)/tests/test_speech_answer_refs: $(call obj,tests/unit/speech_answer_rig.c)
$(BUILD)/tests/test_speech_answer $(BUILD)/tests/test_speech_answer_refs: LDLIBS := $(LIBSPEECH) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL) $(LDLIBS)
$(BUILD)/tests/test_explainer_workdir $(BUILD)/tests/test_explainer_workdir_render $(BUILD)/tests/test_explainer_blocks: $(call obj,tests/unit/workdir_rig.c)
$(BUILD)/tests/test_explainer_workdir $(BUILD)/tests/test_explainer_workdir_render $(BUILD)/tests/test_explainer_blocks: LDLIBS := $(LIBHARNESS) $(LIBEXPLAINER) $(LIBRENDER) $(LIBSPEECH) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL) $(LDLIBS)
$(BUILD)/tests/test_envelope $(BUILD)/tests/test_envelope_limits: $(call obj,tests/unit/envelope_rig.c)
$(BUILD)/tests/test_envelope $(BUILD)/tests/test_envelope_limits: LDLIBS := $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL) $(LDLIBS)
$(BUILD)/tests/test_explainer_videos $(BUILD)/tests/test_explainer_revisions: $(call obj,tests/unit/videos_rig.c)
$(BUILD)/tests/test_explainer_videos $(BUILD)/tests/test_explainer_revisions: LDLIBS := $(LIBEXPLAINER) $(LIBRENDER) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL) $(LDLIBS)
$(BUILD)/tests/test_explainer_smil $(BUILD)/tests/test_explainer_smil_rules: $(call obj,tests/unit/smil_rig.c)
$(BUILD)/tests/test_explainer_smil $(BUILD)/tests/test_explainer_smil_rules: LDLIBS := $(LIBEXPLAINER) $(LIBRENDER) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL) $(LDLIBS)
# The integration tests drive the real programs over sockets: they link
# the kernel's libraries (and SQLite, to look into appdata.db; libcurl, to
# ask Chromium's own /json/list), not the services' own.
# A test split by subject shares its fixture with its siblings
# (tests/integration/*_rig.c), linked into each of them: the archives come
# again after it, since $^ lists them first.
$(BUILD)/tests/itest_%: $(BUILD)/obj/tests/integration/itest_%.o $(LIBHARNESS) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBHARNESS) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL) $(call libs_of,$(BASE_PKGS) sqlite3 libcurl) $(TEST_LDLIBS)
$(BUILD)/tests/itest_alerts $(BUILD)/tests/itest_alerts_relay $(BUILD)/tests/itest_alerts_approvals \
  $(BUILD)/tests/itest_idle_alerts: $(call obj,tests/integration/alerts_rig.c)
$(BUILD)/tests/itest_browser $(BUILD)/tests/itest_browser_control $(BUILD)/tests/itest_browser_input \
$(BUILD)/tests/itest_browser_devtools $(BUILD)/tests/itest_browser_emulate \
  $(BUILD)/tests/itest_browser_frames $(BUILD)/tests/itest_browser_hostile: $(call obj,tests/integration/browser_rig.c)
# These read the page (or its frames) over a DevTools link of their own.
$(BUILD)/tests/itest_browser_emulate $(BUILD)/tests/itest_browser_frames: TEST_LDLIBS += $(WS_LIBS) -lm
$(BUILD)/tests/itest_video $(BUILD)/tests/itest_video_files: $(call obj,tests/integration/video_rig.c)
$(BUILD)/tests/itest_messages $(BUILD)/tests/itest_messages_delivery \
  $(BUILD)/tests/itest_idle_messages: $(call obj,tests/integration/messages_rig.c)
$(BUILD)/tests/itest_sessions $(BUILD)/tests/itest_sessions_store: $(call obj,tests/integration/sessions_rig.c)
$(BUILD)/tests/itest_badinput $(BUILD)/tests/itest_badinput_frames: $(call obj,tests/integration/badinput_rig.c)
$(BUILD)/tests/itest_frontends $(BUILD)/tests/itest_frontends_runs $(BUILD)/tests/itest_external_runs: $(call obj,tests/integration/frontends_rig.c)
# The kill storm is one test: its rig holds the storm, the program its checks.
$(BUILD)/tests/itest_killstorm: $(call obj,tests/integration/killstorm_rig.c)
# The fuzz targets take what they parse from the services' archives, like
# the unit tests: with replay.c's main for `make test`, with libFuzzer's
# for `make fuzz`.
FUZZ_LIBS := $(LIBALERTS) $(LIBBROWSER) $(LIBMESSAGES) $(LIBSESSIONS) $(LIBAPPDATA) $(LIBSPEECH) \
             $(LIBVIDEO) $(LIBEXPLAINER) $(LIBRENDER) $(LIBTIMELINE) $(LIBAGENTS) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL)
$(BUILD)/tests/replay_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/obj/tests/fuzz/replay.o $(FUZZ_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(WS_LIBS) -lm
$(BUILD)/fuzz/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS) $(WS_LIBS) -lm
# The speech benchmark times the stitching in-process and starts the fake Gemini.
$(BUILD)/bench/bench-speech: $(BUILD)/obj/tests/bench/bench-speech.o $(BUILD)/obj/tests/bench/bench_stats.o $(LIBSPEECH) $(LIBHARNESS) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
# The browser benchmark starts Chromium and the test pages (the harness)
# and speaks DevTools to Chromium itself for its baseline
# (browser_direct.c, WS_LIBS).
$(BUILD)/bench/bench-browser: $(BUILD)/obj/tests/bench/bench-browser.o $(BUILD)/obj/tests/bench/browser_direct.o \
                              $(BUILD)/obj/tests/bench/browser_bench_rig.o \
                              $(BUILD)/obj/tests/bench/bench_stats.o $(LIBHARNESS) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(BASE_PKGS)) $(WS_LIBS)
# The benchmark against the peer tools: the same fixture, and the Node
# driver (tests/bench/browser-peers.mjs) with the pinned peers of
# tests/browser-peers (make npm-deps).
$(BUILD)/bench/bench-browser-peers: $(BUILD)/obj/tests/bench/bench-browser-peers.o \
                              $(BUILD)/obj/tests/bench/browser_bench_rig.o \
                              $(BUILD)/obj/tests/bench/bench_stats.o $(LIBHARNESS) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(BASE_PKGS)) $(WS_LIBS)
# The scale benchmark times svc-sessions' handler in-process on databases it
# fills through appdata/ (their archives), plays attached bridges with the
# bridges' own delivery bookkeeping (bridge/deliveries.c), and starts its
# brokers through the harness.
# Its files: main, the three parts, what they share (scale_*.h say which
# is which); those that open appdata.db include appdata/'s header.
BENCH_SCALE_SRC := tests/bench/bench-scale.c tests/bench/scale_sessions.c tests/bench/scale_sessions_rig.c \
                   tests/bench/scale_sessions_report.c tests/bench/scale_fill.c tests/bench/scale_messages.c \
                   tests/bench/scale_attach.c tests/bench/scale_standins.c tests/bench/scale_broker.c \
                   tests/bench/scale_stats.c tests/bench/scale_proc.c tests/bench/bench_stats.c
$(call obj,tests/bench/scale_fill.c tests/bench/scale_sessions_rig.c tests/bench/scale_messages.c \
           tests/bench/scale_broker.c): CFLAGS += -Iappdata
$(BUILD)/bench/bench-scale: $(call obj,$(BENCH_SCALE_SRC) bridge/deliveries.c) \
                            $(LIBSESSIONS) $(LIBAPPDATA) $(LIBHARNESS) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(SESSIONS_PKGS))
# The broker's benchmark: its clock and percentiles are bench_stats.c's.
$(BUILD)/bench/bench-broker: $(BUILD)/obj/tests/bench/bench-broker.o $(BUILD)/obj/tests/bench/bench_stats.o $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
# hb-mcp's baselines (tests/bench/mcp.sh): the front door and hbctl.
$(BUILD)/bench/front-call: $(BUILD)/obj/tests/bench/front-call.o $(BUILD)/obj/tests/bench/bench_stats.o $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
$(BUILD)/bench/bench-explainer-preview: $(BUILD)/obj/tests/bench/bench-explainer-preview.o $(LIBRENDER) $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(call libs_of,$(EXPLAINER_PKGS)) -lm
$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.o $(LIBGEMINI) $(LIBWS) $(LIBCOMMON) $(LIBUTIL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The checks: unit tests, the real broker and services end to end, the
# deploy files; then the same again under ASan and UBSan.
check: $(PROGRAMS) $(TEST_PROGS)
	@SAN='$(SAN)' OPT='$(OPT)' HB_TEST_JOBS='$(TEST_JOBS)' bash tests/run.sh $(BUILD)

# The build takes a job per CPU; the test programs two (tests/run.sh:
# HB_TEST_JOBS), since most of them wait on agents and timers more than
# they compute: on 2 CPUs, 4 at once took both passes from 16.9 to 13.0
# minutes, and 6 gained nothing over 4 (docs/benchmarks.md).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
TEST_JOBS ?= $(shell echo $$(($(JOBS) * 2)))
# npm ci of the test rigs (unpacking, mostly) runs beside the first build,
# which needs none of it: alone it took 21 s of a clean clone's set-up.
# The sanitizer build runs beside the first pass, one compiler at a time:
# the first pass leaves most of the CPUs idle while its programs wait on
# agents and timers (docs/testing.md), and the second pass starts without
# a build of its own.  Their output is kept in build/npm-deps.log and
# build-asan/build.log and shown when they fail.
test: deps
	@mkdir -p $(BUILD); \
	$(MAKE) --no-print-directory npm-deps >$(BUILD)/npm-deps.log 2>&1 & npm=$$!; \
	$(MAKE) -j$(JOBS) programs-and-tests; rc=$$?; \
	if ! wait $$npm; then cat $(BUILD)/npm-deps.log; echo "make npm-deps failed ($(BUILD)/npm-deps.log)"; exit 1; fi; \
	exit $$rc
	@mkdir -p build-asan; \
	$(MAKE) -j1 BUILD=build-asan SAN=1 OPT=-O1 programs-and-tests >build-asan/build.log 2>&1 & asan=$$!; \
	$(MAKE) check; rc=$$?; \
	if ! wait $$asan; then cat build-asan/build.log; echo "the sanitizer build failed (build-asan/build.log)"; exit 1; fi; \
	exit $$rc
	$(MAKE) -j$(JOBS) test-asan

test-asan: deps npm-deps
	$(MAKE) BUILD=build-asan SAN=1 OPT=-O1 check

# Rewrite the timeline's golden files (tests/fixtures/timeline/*.golden)
# from its fixtures: only on purpose, after a change of the projection;
# review the diff (git diff tests/fixtures/timeline) before committing it.
timeline-golden: $(BUILD)/tests/test_timeline_golden
	HB_TIMELINE_REGEN=1 $(BUILD)/tests/test_timeline_golden

# The kill storm at length (tests/integration/itest_killstorm.c, the storm
# in killstorm_rig.c), not part of `make test`: KILLSTORM_N signals within
# KILLSTORM_S seconds.  With BUILD=build-asan SAN=1 it runs under the
# sanitizers.
KILLSTORM_N ?= 5000
KILLSTORM_S ?= 600
soak: $(BUILD)/hb-broker $(BUILD)/svc-sessions $(BUILD)/tests/svc-echo $(BUILD)/tests/itest_killstorm
	HB_BUILD=$(CURDIR)/$(BUILD) KILLSTORM_N=$(KILLSTORM_N) KILLSTORM_S=$(KILLSTORM_S) \
	LSAN_OPTIONS=$${LSAN_OPTIONS:-suppressions=$(CURDIR)/tests/lsan.supp} \
	$(BUILD)/tests/itest_killstorm

# Each fuzz target (FUZZ_TARGET=name for one) runs FUZZ_S seconds under
# ASan and UBSan, from its seed corpus in tests/fuzz/corpus/.
fuzz:
	@sh deploy/deps.sh $(DEB_PACKAGES) $(FUZZ_DEB_PACKAGES)
	$(MAKE) BUILD=build-fuzz CC=clang FUZZ=1 OPT=-O1 fuzz-run

fuzz-run: $(FUZZ_PROGS)
	@sh tests/fuzz/run.sh $(BUILD) $(FUZZ_S) $(or $(FUZZ_TARGET),$(FUZZ_NAMES))

# deps may install pkg-config and the libraries, so the build runs in a
# sub-make that reads their flags afresh.
run: deps
	$(MAKE) all
	./$(BUILD)/hb-broker --config deploy/services.conf --libexec $(CURDIR)/$(BUILD)

bench:
	@sh deploy/deps.sh $(DEB_PACKAGES) $(BENCH_DEB_PACKAGES)
	@sh deploy/npm-deps.sh tests/browser-peers
	$(MAKE) $(PROGRAMS) $(BUILD)/tests/svc-echo $(BENCH_PROGS)
	@rc=0; sh tests/bench/run.sh $(BUILD) || rc=1; echo; \
	sh tests/bench/instructions.sh $(BUILD) || rc=1; echo; \
	sh tests/bench/idle.sh $(BUILD) || rc=1; echo; \
	sh tests/bench/coldstart.sh $(BUILD) || rc=1; echo; \
	sh tests/bench/mcp.sh $(BUILD) || rc=1; exit $$rc

# The Claude agent host: PREFIX/libexec/hbcode/agent-host, where hbctl and
# the broker find it when agentHost is not set (agents/agent_cmd.h).
AGENT_HOST_DIR := $(DESTDIR)$(PREFIX)/libexec/hbcode/agent-host

install: all
	@[ -n "$(DESTDIR)" ] || sh deploy/deps.sh $(EXPLAINER_FONT_PACKAGES)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/hbcode $(AGENT_HOST_DIR) \
	           $(DESTDIR)$(PREFIX)/share/hbcode $(DESTDIR)$(PREFIX)/lib/systemd/user \
	           $(DESTDIR)$(PREFIX)/share/hbcode/launchd
	install -m 0755 $(BUILD)/hb-broker $(BUILD)/hbctl $(BUILD)/hb-codex-bridge $(BUILD)/hb-claude-bridge \
	        $(BUILD)/hb-explainer $(BUILD)/hb-mcp $(DESTDIR)$(PREFIX)/bin/
	install -m 0755 $(BUILD)/svc-sessions $(BUILD)/svc-messages $(BUILD)/svc-speech $(BUILD)/svc-video \
	        $(BUILD)/svc-explainer $(BUILD)/svc-alerts $(BUILD)/svc-browser $(DESTDIR)$(PREFIX)/libexec/hbcode/
	install -m 0644 deploy/services.conf $(DESTDIR)$(PREFIX)/share/hbcode/services.conf
	sed 's|@PREFIX@|$(PREFIX)|g' deploy/hb-broker.service.in > $(DESTDIR)$(PREFIX)/lib/systemd/user/hb-broker.service
	sed 's|@PREFIX@|$(PREFIX)|g' deploy/hb-broker.socket.in > $(DESTDIR)$(PREFIX)/lib/systemd/user/hb-broker.socket
	sed 's|@PREFIX@|$(PREFIX)|g' deploy/ai.hbcode.broker.plist.in > $(DESTDIR)$(PREFIX)/share/hbcode/launchd/ai.hbcode.broker.plist
	install -m 0644 $(filter-out agent-host/host.mjs,$(wildcard agent-host/*.mjs)) agent-host/package.json \
	        agent-host/package-lock.json $(AGENT_HOST_DIR)/
	install -m 0755 agent-host/host.mjs $(AGENT_HOST_DIR)/
	sh deploy/install-agent-host.sh agent-host $(AGENT_HOST_DIR)

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
