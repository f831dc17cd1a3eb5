// SPDX-License-Identifier: MIT
/*
 * expr.c - evaluates theory's L4 formulas ("1000 * l1d_misses / instructions")
 * over a span's counter values, so the formulas stay data in theory_data.c.
 * Grammar: expr = term {(+|-) term}; term = factor {(*|/) factor};
 * factor = number | name | "(" expr ")". A trailing "(0 if none)" makes a
 * zero denominator give 0; otherwise it is an error, as is a counter that was
 * not measured (its name is reported).
 */
#include "analyze/model.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *const sched_vars[] = { "sched.runq_ns", "sched.on_cpu_ns" };

size_t xa_var_count(void)
{
	return th_counter_name_count + 2;
}

const char *xa_var_name(size_t i)
{
	if (i < th_counter_name_count)
		return th_counter_name_table[i].name;
	return i < xa_var_count() ? sched_vars[i - th_counter_name_count] : NULL;
}

struct parser {
	const char *p;
	const double *vars;
	uint32_t have;
	int zero_ok;
	int err;
	char *why;
	size_t whylen;
};

static double expr(struct parser *ps);

static void fail(struct parser *ps, const char *what, size_t len)
{
	if (!ps->err)
		snprintf(ps->why, ps->whylen, "%.*s", (int)len, what);
	ps->err = 1;
}

static void skip(struct parser *ps)
{
	while (*ps->p == ' ')
		ps->p++;
}

static double name(struct parser *ps)
{
	const char *s = ps->p;
	size_t len;

	while (isalnum((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '.')
		ps->p++;
	len = (size_t)(ps->p - s);
	for (size_t i = 0; i < xa_var_count(); i++) {
		if (strlen(xa_var_name(i)) != len || strncmp(xa_var_name(i), s, len))
			continue;
		if (!(ps->have & (1u << i)))
			fail(ps, s, len);
		return ps->vars[i];
	}
	fail(ps, s, len ? len : 1);
	return 0;
}

static double factor(struct parser *ps)
{
	double v;
	char *end;

	skip(ps);
	if (*ps->p == '(') {
		ps->p++;
		v = expr(ps);
		skip(ps);
		if (*ps->p++ != ')')
			fail(ps, "syntax", 6);
		return v;
	}
	v = strtod(ps->p, &end);
	if (end != ps->p && !isalpha((unsigned char)*ps->p)) {
		ps->p = end;
		return v;
	}
	return name(ps);
}

static double term(struct parser *ps)
{
	double v = factor(ps);

	for (skip(ps); *ps->p == '*' || *ps->p == '/'; skip(ps)) {
		char op = *ps->p++;
		double r = factor(ps);

		if (op == '*')
			v *= r;
		else if (r != 0)
			v /= r;
		else if (ps->zero_ok)
			v = 0;
		else
			fail(ps, "zero denominator", 16);
	}
	return v;
}

static double expr(struct parser *ps)
{
	double v = term(ps);

	for (skip(ps); *ps->p == '+' || *ps->p == '-'; skip(ps)) {
		char op = *ps->p++;
		double r = term(ps);

		v = op == '+' ? v + r : v - r;
	}
	return v;
}

int xa_expr_eval(const char *formula, const double *vars, uint32_t have, double *out, char *why,
		 size_t whylen)
{
	const char *note = strstr(formula, "(0 if none)");
	char buf[160];
	struct parser ps = { buf, vars, have, note != NULL, 0, why, whylen };

	snprintf(buf, sizeof(buf), "%.*s", note ? (int)(note - formula) : (int)strlen(formula),
		 formula);
	*out = expr(&ps);
	skip(&ps);
	if (*ps.p && !ps.err)
		fail(&ps, "syntax", 6);
	return ps.err ? -1 : 0;
}
