# symbolizer: ELF objects (libelf), build-ids, wpp_meta blobs -> validated models.
SYMBOLIZER_SRCS := symbolizer/elf_object.c symbolizer/meta_parse.c symbolizer/meta_wet_parse.c \
	symbolizer/meta_tpp_parse.c \
	symbolizer/symbolizer.c \
	symbolizer/dwarf_lookup.c symbolizer/dwarf_inlines.c symbolizer/dwarf_var.c
SYMBOLIZER_OBJS := $(call objs,,$(SYMBOLIZER_SRCS))
SYMBOLIZER_SAN_OBJS := $(call objs,san,$(SYMBOLIZER_SRCS))
SYMBOLIZER_LIBS := -ldw -lelf
