/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_BENCH_DASH_INTERNAL_H
#define GPUISO_BENCH_DASH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/atomic_file.h"
#include "dash.h"
#include "findings.h"
#include "history.h"

/*
 * What the dashboard's files share (dash.c the overview, series and
 * campaigns pages, dash_finding.c the pages of findings): the site being
 * written and its pages.
 */

/* A page being written. */
struct page {
	struct atomic_file file; /* write to file.f */
	int charts;              /* static charts written (the tests' count) */
};

/* The site being written and what it is made of. */
struct site {
	struct store *s;
	const char *dir;
	const struct dash_opts *o;
	struct history h;
	struct findings findings; /* of the stored campaigns and sweeps, with their states */
	size_t pages;
};

/** dash_esc() - @s as HTML text, escaped; nothing for NULL. @f: the page; @s: the text. */
void dash_esc(FILE *f, const char *s);

/**
 * dash_rev_cell() - a revision, linked to --rev-url when the user gave one.
 * @st: the site.
 * @f: the page.
 * @rev: the revision.
 */
void dash_rev_cell(const struct site *st, FILE *f, const char *rev);

/**
 * dash_page_open() - open a page, its head, navigation and title written.
 * @p: out: the page.
 * @dir: the site's folder.
 * @name: the page's file name.
 * @title: its title (text).
 * @head: more of its <head> (HTML), or "".
 *
 * Return: 0 or a negative errno.
 */
int dash_page_open(struct page *p, const char *dir, const char *name, const char *title,
		   const char *head);

/**
 * dash_page_close() - end a page and put it in place.
 * @p: the page.
 *
 * Return: 0 or a negative errno.
 */
int dash_page_close(struct page *p);

/**
 * dash_finding_pages() - a page for each signature any stored run listed.
 * @st: the site.
 *
 * Return: 0 or a negative errno.
 */
int dash_finding_pages(struct site *st);

#endif
