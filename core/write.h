/* SPDX-License-Identifier: MIT */
/*
 * write.h - the one TurnTrace writer (write.c). Every file a writer of this
 * project produces goes through tt_turn_write: exact 64-bit integers,
 * atomic rename, mode 0600.
 */
#ifndef XPERF_CORE_WRITE_H
#define XPERF_CORE_WRITE_H

#include "core/turn.h"

/* The document; it refers to t's attribute objects (free it before t). NULL on ENOMEM. */
cJSON *tt_turn_json(const struct tt_turn *t);
/*
 * Its parts as the document has them, for a reader that shows one (the Chrome
 * export's args); like the document, they refer to t's attribute objects.
 */
cJSON *tt_span_json(const struct tt_span *s);
cJSON *tt_span_attrs_json(const struct tt_span *s); /* the span's "attributes", in order */
cJSON *tt_mark_json(const struct tt_mark *m);
cJSON *tt_agent_json(const struct tt_agent *ag);
cJSON *tt_quality_json(const struct tt_quality *q);
cJSON *tt_anchor_json(const struct xp_clock_anchor *a);
cJSON *tt_gpu_json(const struct tt_gpu *g);
cJSON *tt_gpu_act_json(const struct tt_gpu_act *a);
/* The document as formatted text (caller frees); NULL on ENOMEM. */
char *tt_turn_text(const struct tt_turn *t);
/* Writes the file at path (atomic, 0600); 0 or -errno. */
int tt_turn_save(const struct tt_turn *t, const char *path);
/* Writes DIR/turn_NNN.json (DIR made 0700 if missing); 0 or -errno. path gets the name. */
int tt_turn_write(const struct tt_turn *t, const char *dir, char *path, size_t pathlen);

#endif /* XPERF_CORE_WRITE_H */
