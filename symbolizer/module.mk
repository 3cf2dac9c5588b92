# symbolizer: ELF objects (libelf), build-ids, wpp_meta blobs -> validated models.
SYMBOLIZER_SRCS := symbolizer/elf_object.c symbolizer/meta_parse.c symbolizer/meta_wet_parse.c \
	symbolizer/symbolizer.c \
	symbolizer/dwarf_lookup.c symbolizer/dwarf_inlines.c symbolizer/dwarf_var.c
SYMBOLIZER_OBJS := $(call objs,,$(SYMBOLIZER_SRCS))
SYMBOLIZER_SAN_OBJS := $(call objs,san,$(SYMBOLIZER_SRCS))
SYMBOLIZER_LIBS := -ldw -lelf
# Decoder-side code includes its headers by bare name.
DECODE_SIDE_CPPFLAGS := -Iuser/common -Isymbolizer -Iuser/decode -Iuser/cli -Iuser/report -Iuser/costs \
	-Iuser/analysis/grammar -Iuser/analysis/kpaths -Iuser/collect
$(SYMBOLIZER_OBJS) $(SYMBOLIZER_SAN_OBJS): CPPFLAGS += $(DECODE_SIDE_CPPFLAGS)
