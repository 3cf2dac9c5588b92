# user/costs: counter samples attributed to path executions (docs/counters.md)
# and `--cost NAME` as every command selects it (cost_select.h).  Used by
# report, hot, kpaths and info; joins bin/wpptrace via WPPTRACE_EXTRA_OBJS.
COSTS_SRCS := user/costs/cost_file.c user/costs/cost_attr.c user/costs/cost_position.c \
	user/costs/cost_summary.c user/costs/cost_terms.c user/costs/cost_scale.c \
	user/costs/cost_run_end.c user/costs/cost_lines.c user/costs/cost_info.c \
	user/costs/cost_select.c
COSTS_OBJS := $(call objs,,$(COSTS_SRCS))
COSTS_SAN_OBJS := $(call objs,san,$(COSTS_SRCS))

WPPTRACE_EXTRA_OBJS += $(COSTS_OBJS)
