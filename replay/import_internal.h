/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_IMPORT_INTERNAL_H
#define GPUISO_REPLAY_IMPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/u64map.h"
#include "replay/import.h"

/*
 * An import map as its two files share it: import_map.c loads the rules
 * and groups them by the event classes they name, import.c translates each
 * event by them.
 */

#define OP_PRESSURE WL_NKINDS /* a rule's op beyond the catalogue: memory pressure */
#define MAX_RULE_EVENTS 4
#define MAX_SETS WL_NSLOTS
#define MAX_WHERE 4
#define MAX_KEYS 4

/* An operand: a constant, or the value of a bound payload field. */
struct operand {
	int field; /* index in the group's names, or -1 for a constant */
	uint64_t c;
};

/* A value: a, a << b, or a * b. */
struct value {
	struct operand a, b;
	char op; /* 0, '<' or '*' */
};

struct rule {
	char *events[MAX_RULE_EVENTS];
	size_t nevents;
	uint32_t op;                 /* enum wl_kind, or OP_PRESSURE */
	int keys[MAX_KEYS];          /* field indexes: together they name the object */
	size_t nkeys;                /* 0: the rule acts on no object */
	int ref;                     /* field index, or -1 */
	struct { enum wl_slot slot; struct value v; } sets[MAX_SETS];
	size_t nsets;
	struct { int field; char *str; bool negate; } where[MAX_WHERE];
	size_t nwhere;
	struct value pressure;       /* bytes added (or removed, with sub) */
	bool sub;
	bool spans;                  /* a destroy that ends what lies in [key, key + span) */
	struct value span;
	char *names[CTF_MAX_FIELDS]; /* payload fields the rule reads */
	unsigned int nnames;
	char at[256];                /* "FILE:LINE:COL (rules[N])", for warnings */
	size_t file;                 /* which of the map files, from 0 */
	bool bound;                  /* some event class of the trace took the rule */
	unsigned int warned;         /* a bit per name: said once that events lack it */
};

/* A rule of a group, and where each field it reads is in the group's binding. */
struct member {
	size_t rule;
	unsigned char at[CTF_MAX_FIELDS];
};

/*
 * The rules of one map file that name one event class, in their order: an
 * event of the class goes to the first whose filter it passes. The first
 * file naming a class owns it; a later file's group of it takes nothing.
 */
struct group {
	const char *event;                 /* the class (a rule's string) */
	size_t file;
	struct member *members;
	size_t nmembers, members_cap;
	const char *names[CTF_MAX_FIELDS]; /* the fields its rules read (theirs) */
	unsigned int nnames;
};

struct import_map {
	struct rule *rules;
	size_t nrules, rules_cap;
	struct group *groups;        /* in the order the rules first name them */
	size_t ngroups, groups_cap;
	uint64_t adapter;            /* default adapter */
	uint64_t memory_base;        /* what pressure rules subtract from */
	/* while translating */
	struct u64map objects;       /* foreign key -> trace id << 8 | kind */
	uint64_t next_id;
	uint64_t outstanding;        /* bytes the pressure rules hold */
	uint64_t unmatched_ends;     /* ends of objects created before the trace began */
	/*
	 * With a `span` rule: the objects whose key is an address, by that
	 * address, with the bytes of their extent not yet ended, so that one
	 * event can end what it covers; and the ends it made that did not fit
	 * in import_event()'s two (import_next() hands them out).
	 */
	bool spans;
	struct span_obj *extents;
	size_t nextents, extents_cap;
	struct wl_event *queue;
	size_t nqueue, queue_cap, queue_head;
	const char *unmatched_event; /* the class of the last event found unmatched */
	const char *unmatched_why;   /* and why */
};

/* An object with an extent: [start, end) at its key, @left bytes of it still mapped. */
struct span_obj {
	uint64_t start, end, left;
};

#endif
