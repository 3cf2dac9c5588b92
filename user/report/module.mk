# user/report: profiles of a trace and their renderings (text, JSON, HTML,
# diff, annotate, CFG, pprof).  Joins bin/wpptrace via WPPTRACE_EXTRA_*.
REPORT_SRCS := user/report/table_fmt.c user/report/edge_profile.c user/report/interesting_set.c user/report/profile.c user/report/profile_view.c \
	user/report/path_text.c user/report/report_common.c user/report/report_text.c \
	user/report/report_json.c user/report/report_diff.c user/report/report_html.c \
	user/report/fn_flow.c user/report/annotate.c user/report/cfg_dot.c \
	user/report/report_session.c user/report/pprof_export.c \
	user/report/inline_names.c user/report/tpp_quality.c
REPORT_OBJS := $(call objs,,$(REPORT_SRCS))
REPORT_SAN_OBJS := $(call objs,san,$(REPORT_SRCS))

# profile.proto -> C with protoc-c at build time (protobuf-c does the encoding).
REPORT_GEN := $(BUILD)/gen/report
REPORT_PB_C := $(REPORT_GEN)/profile.pb-c.c
REPORT_PB_H := $(REPORT_GEN)/profile.pb-c.h
REPORT_PB_OBJ := $(REPORT_GEN)/profile.pb-c.o
REPORT_PB_SAN_OBJ := $(REPORT_GEN)/profile.pb-c.san.o

$(REPORT_PB_H): $(REPORT_PB_C)
$(REPORT_PB_C): user/report/profile.proto
	@mkdir -p $(REPORT_GEN)
	protoc-c --c_out=$(REPORT_GEN) --proto_path=user/report $<
# Generated code: compiled without -Werror (its warnings are not ours to fix).
$(REPORT_PB_OBJ): $(REPORT_PB_C)
	$(CC) $(CPPFLAGS) -I$(REPORT_GEN) -std=gnu11 -O2 -g -c $< -o $@
$(REPORT_PB_SAN_OBJ): $(REPORT_PB_C)
	$(CC) $(CPPFLAGS) -I$(REPORT_GEN) -std=gnu11 -O2 -g $(SANFLAGS) -c $< -o $@

$(REPORT_OBJS) $(REPORT_SAN_OBJS): CPPFLAGS += -I$(REPORT_GEN)
$(call objs,,user/report/pprof_export.c) $(call objs,san,user/report/pprof_export.c): $(REPORT_PB_H)
# The HTML page is embedded with .incbin; make must know the object depends on it.
$(call objs,,user/report/report_html.c) $(call objs,san,user/report/report_html.c): \
	user/report/report_page.html

REPORT_LIBS := -lprotobuf-c -lz
WPPTRACE_EXTRA_OBJS += $(REPORT_OBJS) $(REPORT_PB_OBJ)
WPPTRACE_EXTRA_LIBS += $(REPORT_LIBS)
