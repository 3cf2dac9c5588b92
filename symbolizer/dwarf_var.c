/* SPDX-License-Identifier: MIT */
/*
 * dwarf_var.c — a function's local variable at an address, as a register,
 * register + offset or constant (dwarf_lookup.h).  libdw evaluates the
 * location list (dwarf_getlocation_addr); the few expression shapes a
 * register set can answer are recognised here, everything else is NONE.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <string.h>

#include "symbolizer/dwarf_lookup.h"
#include "symbolizer/dwarf_private.h"

struct wpp_varloc wpp_varloc_from_ops(const struct wpp_dwarf_op *ops, size_t nops)
{
	struct wpp_varloc l = {WPP_VARLOC_NONE, 0, 0};
	if (nops == 1) {
		/* The variable lives in a register. */
		if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
			l = (struct wpp_varloc){WPP_VARLOC_REG, ops[0].atom - DW_OP_reg0, 0};
		else if (ops[0].atom == DW_OP_regx && ops[0].number < 128)
			l = (struct wpp_varloc){WPP_VARLOC_REG, (uint32_t)ops[0].number, 0};
		return l;
	}
	/* A computed value: one operand, then DW_OP_stack_value. */
	if (nops != 2 || ops[1].atom != DW_OP_stack_value)
		return l;
	uint8_t a = ops[0].atom;
	if (a >= DW_OP_lit0 && a <= DW_OP_lit31)
		l = (struct wpp_varloc){WPP_VARLOC_CONST, 0, (uint64_t)(a - DW_OP_lit0)};
	else if (a == DW_OP_constu || a == DW_OP_const1u || a == DW_OP_const2u ||
		 a == DW_OP_const4u || a == DW_OP_const8u)
		l = (struct wpp_varloc){WPP_VARLOC_CONST, 0, ops[0].number};
	else if (a >= DW_OP_breg0 && a <= DW_OP_breg31)
		l = (struct wpp_varloc){WPP_VARLOC_REG_OFFSET, a - DW_OP_breg0, ops[0].number};
	else if (a == DW_OP_bregx && ops[0].number < 128)
		l = (struct wpp_varloc){WPP_VARLOC_REG_OFFSET, (uint32_t)ops[0].number,
					ops[0].number2};
	return l;
}

int wpp_varloc_eval(const struct wpp_varloc *l, const uint64_t *regs, uint32_t nregs,
		    uint64_t *value)
{
	switch (l->kind) {
	case WPP_VARLOC_CONST:
		*value = l->value;
		return 1;
	case WPP_VARLOC_REG:
	case WPP_VARLOC_REG_OFFSET:
		if (!regs || l->reg >= nregs)
			return 0;
		/* The offset is two's complement: unsigned addition wraps to it. */
		*value = regs[l->reg] + (l->kind == WPP_VARLOC_REG_OFFSET ? l->value : 0);
		return 1;
	default:
		return 0;
	}
}

/* The subprogram DIE among cu's children whose ranges hold a. */
static int subprogram_at(Dwarf_Die *cu, Dwarf_Addr a, Dwarf_Die *out)
{
	Dwarf_Die die;
	if (dwarf_child(cu, &die) != 0)
		return 0;
	do {
		if (dwarf_tag(&die) == DW_TAG_subprogram && dwarf_haspc(&die, a) > 0) {
			*out = die;
			return 1;
		}
	} while (dwarf_siblingof(&die, &die) == 0);
	return 0;
}

/* The direct child of fn named var that is a variable. */
static int variable_named(Dwarf_Die *fn, const char *var, Dwarf_Die *out)
{
	Dwarf_Die die;
	if (dwarf_child(fn, &die) != 0)
		return 0;
	do {
		const char *name;
		if (dwarf_tag(&die) == DW_TAG_variable && (name = dwarf_diename(&die)) &&
		    !strcmp(name, var)) {
			*out = die;
			return 1;
		}
	} while (dwarf_siblingof(&die, &die) == 0);
	return 0;
}

int wpp_dwarf_var_location(struct wpp_dwarf *d, const char *path, const uint8_t *build_id,
			   uint32_t build_id_len, uint64_t load_bias, uint64_t addr,
			   const char *var, struct wpp_varloc *out, char *err, size_t errlen)
{
	Dwfl_Module *mod = wpp_dwarf_module(d, path, build_id, build_id_len, err, errlen);
	Dwarf_Addr a = addr - load_bias, bias = 0;
	Dwarf_Die *cu, fn, v;
	Dwarf_Attribute attr;
	Dwarf_Op *expr;
	size_t nexpr;

	*out = (struct wpp_varloc){WPP_VARLOC_NONE, 0, 0};
	if (!mod)
		return -1;
	cu = wpp_dwarf_cu_at(mod, a, &bias);
	if (!cu || !subprogram_at(cu, a - bias, &fn) || !variable_named(&fn, var, &v) ||
	    !dwarf_attr(&v, DW_AT_location, &attr))
		return 1;
	/* One location at most applies at an address of a location list. */
	if (dwarf_getlocation_addr(&attr, a - bias, &expr, &nexpr, 1) != 1)
		return 1;
	struct wpp_dwarf_op ops[2];
	if (nexpr == 0 || nexpr > 2)
		return 1;
	for (size_t i = 0; i < nexpr; i++)
		ops[i] = (struct wpp_dwarf_op){expr[i].atom, expr[i].number, expr[i].number2};
	*out = wpp_varloc_from_ops(ops, nexpr);
	return 1;
}
