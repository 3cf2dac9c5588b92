/* SPDX-License-Identifier: MIT */
#include "report_session.h"

#include "commands.h"
#include "log.h"

int rpt_open(struct session *s, struct rpt_profile *p, const char *file, const struct thread_filter *f)
{
	int rc = session_open(s, file);

	if (rc)
		return rc;
	if (rpt_profile_build(p, file, s->trace, s->mods, f->pid, f->tid) < 0) {
		session_close(s);
		return WPP_EXIT_ERROR;
	}
	if ((f->pid >= 0 || f->tid >= 0) && p->nimages == 0)
		wpp_warn("%s: no thread matches the --pid/--tid filter", file);
	return 0;
}

void rpt_close(struct session *s, struct rpt_profile *p)
{
	rpt_profile_free(p);
	session_close(s);
}
