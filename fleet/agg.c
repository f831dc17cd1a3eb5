// SPDX-License-Identifier: MIT
/*
 * agg.c - the fleet aggregates: sums over sessions (time is summed in ns, so
 * every share is weighted by turn time), per-L3 counts of turns and sessions
 * in which the point fired, the (node, agent) series, and two short lists kept
 * in a stable order whatever the order the directories are read in: the least
 * effective sessions (ties by path) and the lexically first invalid files.
 * Every name is stored as valid UTF-8 (fleet_copy_name), so reports stay valid.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "lib/grow.h"

int fleet_agg_init(struct fleet_agg *a, const char *dir)
{
	memset(a, 0, sizeof(*a));
	fleet_copy_name(a->dir, sizeof(a->dir), dir);
	a->points = calloc(th_l3_count, sizeof(*a->points));
	return a->points ? 0 : -1;
}

void fleet_agg_free(struct fleet_agg *a)
{
	free(a->points);
	for (size_t i = 0; i < a->nseries; i++)
		free(a->series[i].ctr);
	for (size_t i = 0; i < a->nsess; i++)
		free(a->sess[i].v);
	free(a->sess);
	free(a->series);
	free(a->nodes);
	memset(a, 0, sizeof(*a));
}

static struct fleet_node *node_of(struct fleet_agg *a, const char *name)
{
	struct fleet_node *n;
	char key[FLEET_NAME];

	fleet_copy_name(key, sizeof(key), name);
	for (size_t i = 0; i < a->nnodes; i++)
		if (!strcmp(a->nodes[i].name, key))
			return &a->nodes[i];
	if (xp_grow((void **)&a->nodes, &a->cap_nodes, a->nnodes + 1, sizeof(*n)))
		return NULL;
	n = memset(&a->nodes[a->nnodes++], 0, sizeof(*n));
	memcpy(n->name, key, sizeof(key));
	return n;
}

static struct fleet_series *series_of(struct fleet_agg *a, const char *node, const char *agent)
{
	struct fleet_series *s;
	char kn[FLEET_NAME], ka[FLEET_NAME];

	fleet_copy_name(kn, sizeof(kn), node);
	fleet_copy_name(ka, sizeof(ka), agent);
	for (size_t i = 0; i < a->nseries; i++)
		if (!strcmp(a->series[i].node, kn) && !strcmp(a->series[i].agent, ka))
			return &a->series[i];
	if (xp_grow((void **)&a->series, &a->cap_series, a->nseries + 1, sizeof(*s)))
		return NULL;
	s = memset(&a->series[a->nseries++], 0, sizeof(*s));
	memcpy(s->node, kn, sizeof(kn));
	memcpy(s->agent, ka, sizeof(ka));
	return s;
}

uint64_t *fleet_series_ctr(struct fleet_agg *a, const char *node, const char *agent)
{
	struct fleet_series *s = series_of(a, node, agent);

	if (s && !s->ctr)
		s->ctr = calloc(fleet_ctr_len(), sizeof(*s->ctr));
	return s ? s->ctr : NULL;
}

/* A usage block of the counter vector: whole tokens, cost to the nano-dollar. */
static void usage_block(uint64_t *v, const struct xa_usage *u)
{
	for (int k = 0; k < XA_TOK_COUNT; k++)
		v[FU_TOK + k] = (uint64_t)llround(u->tok[k]);
	v[FU_NUSD] = (uint64_t)llround(u->usd * 1e9);
	v[FU_CALLS] = u->calls;
	v[FU_UNPRICED] = u->unpriced;
}

/* in's counter vector: its figures, and its histograms when it has them. */
static void session_vector(const struct fleet_input *in, uint64_t *v)
{
	size_t n = fleet_ctr_len();

	if (in->ctr)
		memcpy(v, in->ctr, n * sizeof(*v));
	else
		memset(v, 0, n * sizeof(*v));
	v[FC_TURNS] = in->turns;
	v[FC_INCOMPLETE] = in->incomplete;
	v[FC_WALL_NS] = in->wall_ns;
	v[FC_DROPPED] = in->dropped_events;
	for (int d = 0; d < XP_DOMAIN_COUNT; d++)
		for (int c = 0; c < XP_CAT_COUNT; c++)
			v[FC_L2 + d * XP_CAT_COUNT + c] = in->l2_ns[d][c];
	for (size_t i = 0; i < th_l3_count; i++) {
		v[fleet_ctr_l3_turns() + i] = in->fired[i];
		v[fleet_ctr_l3_ns() + i] = in->ns[i];
	}
	usage_block(v + fleet_ctr_usage(), &in->use);
	usage_block(v + fleet_ctr_usage() + FU_LEN, &in->waste);
}

/* path without its leading "dir/" (dir as fleet_copy_name stored it). */
static const char *below(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (strncmp(path, dir, n) || path[n] != '/')
		return path;
	path += n;
	while (*path == '/')
		path++;
	return path;
}

/* Keep v, in's counter vector, for the ledger (serve). 0 ok, -1 memory. */
static int keep_session(struct fleet_agg *a, const struct fleet_input *in, const uint64_t *v)
{
	struct fleet_sess_ctr *e;
	size_t n = fleet_ctr_len();

	if (xp_grow((void **)&a->sess, &a->cap_sess, a->nsess + 1, sizeof(*e)))
		return -1;
	e = memset(&a->sess[a->nsess], 0, sizeof(*e));
	if (!(e->v = malloc(n * sizeof(*e->v))))
		return -1;
	memcpy(e->v, v, n * sizeof(*e->v));
	/* the key is the path below DIR: the same however DIR is spelled at the next start */
	fleet_copy_name(e->path, sizeof(e->path), below(a->dir, in->path));
	fleet_copy_name(e->node, sizeof(e->node), in->node);
	fleet_copy_name(e->agent, sizeof(e->agent), in->agent);
	a->nsess++;
	return 0;
}

/* Is x worse (less effective) than y? Ties: the lexically first path. */
static int worse(const struct fleet_session *x, const struct fleet_session *y)
{
	if (x->effective_share != y->effective_share)
		return x->effective_share < y->effective_share;
	return strcmp(x->path, y->path) < 0;
}

static void keep_worst(struct fleet_agg *a, const struct fleet_session *s)
{
	unsigned i = a->nworst;

	if (i == FLEET_WORST) {
		if (!worse(s, &a->worst[i - 1]))
			return;
		i--;
	} else {
		a->nworst++;
	}
	for (; i > 0 && worse(s, &a->worst[i - 1]); i--)
		a->worst[i] = a->worst[i - 1];
	a->worst[i] = *s;
}

int fleet_add_session(struct fleet_agg *a, const struct fleet_input *in)
{
	struct fleet_series *se = series_of(a, in->node, in->agent);
	struct fleet_node *no = node_of(a, in->node);
	struct fleet_session w = { .turns = in->turns, .wall_ns = in->wall_ns, .top = in->top };
	uint64_t *ctr = se ? fleet_series_ctr(a, in->node, in->agent) : NULL;
	uint64_t eff = 0, v[fleet_ctr_len()];

	session_vector(in, v);
	if (!se || !no || !ctr || (a->keep_sessions && keep_session(a, in, v)))
		return -1;
	for (size_t k = 0; k < fleet_ctr_len(); k++)
		ctr[k] += v[k];
	a->sessions++;
	a->turns += in->turns;
	a->incomplete += in->incomplete;
	a->wall_ns += in->wall_ns;
	a->dropped_events += in->dropped_events;
	for (int d = 0; d < XP_DOMAIN_COUNT; d++) {
		for (int c = 0; c < XP_CAT_COUNT; c++)
			a->l2_ns[d][c] += in->l2_ns[d][c];
		eff += in->l2_ns[d][XP_CAT_EFFECTIVE];
	}
	for (size_t i = 0; i < th_l3_count; i++) {
		a->points[i].turns += in->fired[i];
		a->points[i].sessions += in->fired[i] > 0;
		a->points[i].ns += in->ns[i];
	}
	se->sessions++;
	se->turns += in->turns;
	se->incomplete += in->incomplete;
	se->wall_ns += in->wall_ns;
	se->usd += in->use.usd;
	xa_usage_add(&a->use, &in->use);
	xa_usage_add(&a->waste, &in->waste);
	no->sessions++;
	no->dropped_events += in->dropped_events;
	fleet_copy_name(w.path, sizeof(w.path), in->path);
	fleet_copy_name(w.node, sizeof(w.node), in->node);
	fleet_copy_name(w.agent, sizeof(w.agent), in->agent);
	w.effective_share = in->wall_ns ? (double)eff / (double)in->wall_ns : 1;
	keep_worst(a, &w);
	return 0;
}

int fleet_add_bad(struct fleet_agg *a, const char *node, const char *msg, int whole_session)
{
	struct fleet_node *no = node_of(a, node);
	unsigned i = a->nbad;
	char m[FLEET_MSG];

	if (!no)
		return -1;
	fleet_copy_name(m, sizeof(m), msg);
	if (whole_session) {
		a->failed_sessions++;
	} else {
		a->invalid_files++;
		no->invalid_files++;
	}
	if (i == FLEET_BAD_SHOWN) {
		if (strcmp(m, a->bad[i - 1]) >= 0)
			return 0;
		i--;
	} else {
		a->nbad++;
	}
	for (; i > 0 && strcmp(m, a->bad[i - 1]) < 0; i--)
		memcpy(a->bad[i], a->bad[i - 1], sizeof(a->bad[i]));
	memcpy(a->bad[i], m, sizeof(m));
	return 0;
}

/* Does point x rank before point y? */
static int before(const struct fleet_point *p, size_t x, size_t y)
{
	if (p[x].turns != p[y].turns)
		return p[x].turns > p[y].turns;
	if (p[x].sessions != p[y].sessions)
		return p[x].sessions > p[y].sessions;
	if (p[x].ns != p[y].ns)
		return p[x].ns > p[y].ns;
	return x < y;
}

size_t fleet_ranked_points(const struct fleet_agg *a, size_t *idx)
{
	size_t n = 0;

	/* Insertion sort: theory has a few dozen points. */
	for (size_t i = 0; i < th_l3_count; i++) {
		size_t j;

		if (!a->points[i].turns)
			continue;
		for (j = n++; j > 0 && before(a->points, i, idx[j - 1]); j--)
			idx[j] = idx[j - 1];
		idx[j] = i;
	}
	return n;
}

static int cmp_series(const void *x, const void *y)
{
	const struct fleet_series *a = x, *b = y;
	int c = strcmp(a->node, b->node);

	return c ? c : strcmp(a->agent, b->agent);
}

static int cmp_node(const void *x, const void *y)
{
	return strcmp(((const struct fleet_node *)x)->name, ((const struct fleet_node *)y)->name);
}

void fleet_sort(struct fleet_agg *a)
{
	if (a->nseries)
		qsort(a->series, a->nseries, sizeof(*a->series), cmp_series);
	if (a->nnodes)
		qsort(a->nodes, a->nnodes, sizeof(*a->nodes), cmp_node);
}

uint64_t fleet_cat_ns(const struct fleet_agg *a, enum th_category c)
{
	uint64_t ns = 0;

	for (int d = 0; d < XP_DOMAIN_COUNT; d++)
		ns += a->l2_ns[d][c];
	return ns;
}

double fleet_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}
