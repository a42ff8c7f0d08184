/* SPDX-License-Identifier: MIT */
/*
 * Reading CTF traces through libbabeltrace2.
 *
 * The graph is one src.ctf.fs per trace folder (each folder that directly
 * holds a "metadata" file), all feeding one filter.utils.muxer, which feeds a
 * simple sink of ours. src.ctf.fs makes an output port per stream and does
 * not look into subfolders, hence the walk and the muxer. A single stream
 * has nothing to merge: its port feeds the sink directly, and the sink
 * checks the order of time that the muxer would have checked.
 *
 * Per event class the caller's binding is resolved once to payload member
 * indices and field kinds; per event only index-based accessors run, so the
 * cost per event is a few borrows and no string comparison. Nothing is kept
 * per event: memory grows with the number of event classes only.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <babeltrace2/babeltrace.h>

#include "common/array.h"
#include "common/u64map.h"
#include "replay/ctf_decode.h"

/* Folders nested deeper than this below @path are not searched (symlink loops). */
#define WALK_MAX_DEPTH 16

/* A component name; sources are "ctf-fs-N" with N the trace folder's index. */
#define SRC_NAME_FMT "ctf-fs-%u"

enum fkind { FK_NONE, FK_UINT, FK_SINT, FK_STR, FK_ARRAY };

/* One event class as the caller bound it, resolved to member indices. */
struct cls_info {
	const bt_event_class *ec;   /* a reference of ours: keeps the key's address unique */
	int tag;
	unsigned int n;
	bool has_clock;             /* its stream class has a default clock */
	uint64_t idx[CTF_MAX_FIELDS];
	uint8_t kind[CTF_MAX_FIELDS]; /* enum fkind; FK_NONE: never present */
	uint8_t sel[CTF_MAX_FIELDS];  /* FK_ARRAY: enum ctf_sel */
	uint32_t elem[CTF_MAX_FIELDS]; /* CTF_SEL_ELEM: the element */
};

struct folders {
	char **v;
	unsigned int n;
	size_t cap;
};

/* How many packets of one stream have begun. */
struct stream_packets {
	const bt_stream *stream;
	uint64_t packets;
};

/* Everything one read needs; the sink's user data. */
struct reader {
	const char *path;
	ctf_bind_fn bind;
	ctf_event_fn on_event;
	ctf_mark_fn mark;
	void *ctx;
	struct folders *folders;
	struct stream_packets *streams; /* packets begun per stream, for the marks */
	size_t nstreams, streams_cap;

	struct u64map classes;      /* event class address -> its struct cls_info * */
	struct cls_info *last;      /* consecutive events mostly share a class */
	struct ctf_stats *st;       /* the caller's, kept current */

	int stop;                   /* < 0: a callback (or we) stopped the read with it */
	char *err;
	size_t errlen;
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- finding the trace folders ---- */

static int folders_add(struct folders *f, const char *dir)
{
	if (array_reserve(&f->v, &f->cap, f->n, sizeof(*f->v)))
		return -ENOMEM;
	f->v[f->n] = strdup(dir);
	if (!f->v[f->n])
		return -ENOMEM;
	f->n++;
	return 0;
}

static void folders_free(struct folders *f)
{
	for (unsigned int i = 0; i < f->n; i++)
		free(f->v[i]);
	free(f->v);
}

static int not_dots(const struct dirent *d)
{
	return strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0;
}

/* Byte order, not alphasort's strcoll: the folder order must not depend on the locale. */
static int by_bytes(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static bool is_file(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct stat sb;

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, name) >= sizeof(p))
		return false;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

/*
 * A folder holding "metadata" is a trace: it is taken whole and not searched
 * further (its subfolders are LTTng's index/ and the like), and every entry
 * in it must be a subfolder or a regular file: babeltrace2 skips anything
 * else (a FIFO, a socket, a dangling link) without a word, and the trace
 * would replay as if those streams had no events. Otherwise the folder's
 * subfolders are searched in byte order, so the result is deterministic.
 */
static int walk(const char *dir, int depth, struct folders *out, char *err, size_t errlen)
{
	bool trace = is_file(dir, "metadata");
	struct dirent **ents;
	int n, ret = 0;

	if (!trace && depth >= WALK_MAX_DEPTH)
		return 0;
	n = scandir(dir, &ents, not_dots, by_bytes);
	if (n < 0) {
		ret = -errno;
		set_err(err, errlen, "%s: cannot list folder: %s", dir, strerror(errno));
		return ret;
	}
	for (int i = 0; i < n; i++) {
		char sub[PATH_MAX];
		struct stat sb;
		bool named = !ret && (size_t)snprintf(sub, sizeof(sub), "%s/%s", dir,
						      ents[i]->d_name) < sizeof(sub);
		bool found = named && stat(sub, &sb) == 0;

		if (named && trace && !found) {
			set_err(err, errlen, "%s: %s", sub, strerror(errno));
			ret = -EINVAL;
		} else if (found && trace && !S_ISDIR(sb.st_mode) && !S_ISREG(sb.st_mode)) {
			set_err(err, errlen, "%s: not a regular file: its events could not be read", sub);
			ret = -EINVAL;
		} else if (found && !trace && S_ISDIR(sb.st_mode)) {
			ret = walk(sub, depth + 1, out, err, errlen);
		}
		free(ents[i]);
	}
	free(ents);
	return ret || !trace ? ret : folders_add(out, dir);
}

static int find_traces(const char *path, struct folders *out, char *err, size_t errlen)
{
	struct stat sb;
	int ret;

	if (stat(path, &sb) != 0) {
		ret = -errno;
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		return ret;
	}
	if (!S_ISDIR(sb.st_mode)) {
		set_err(err, errlen, "%s: neither a trace folder (CTF) nor a trace file (a trace.dat, an .etl file)", path);
		return -ENOENT;
	}
	ret = walk(path, 0, out, err, errlen);
	if (ret == -ENOMEM)
		set_err(err, errlen, "%s: out of memory", path);
	if (ret)
		return ret;
	if (out->n == 0) {
		set_err(err, errlen, "%s: no CTF trace (no metadata file) below it", path);
		return -ENOENT;
	}
	return 0;
}

/* ---- babeltrace2 errors as one line ---- */

/* "comp-addr=0x55…": a field that only means something in a debugger. */
static bool is_addr_field(const char *s, size_t n)
{
	const char *eq = memchr(s, '=', n);
	size_t k;

	if (!eq)
		return false;
	k = (size_t)(eq - s);
	if (memchr(s, ' ', k))
		return false;
	return k >= 4 && memcmp(eq - 4, "addr", 4) == 0;
}

/* Length of the ", "-separated field at @s; quoted values may hold ", ". */
static size_t field_len(const char *s)
{
	bool quoted = false;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] == '"')
			quoted = !quoted;
		else if (!quoted && s[i] == ',' && s[i + 1] == ' ')
			break;
	}
	return i;
}

static void put(char *out, size_t len, size_t *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n && *o + 1 < len; i++)
		out[(*o)++] = (s[i] == '\n' || s[i] == '\t') ? ' ' : s[i];
	out[*o] = '\0';
}

/*
 * Babeltrace's cause messages read "what: key=value, key=value"; drop the
 * address fields ("msg-it-addr=0x…") and fold line breaks, so what is left
 * fits on one line and says something to a user.
 */
void ctf_err_first(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen || err[0])
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void ctf_clean_cause(const char *in, char *out, size_t len)
{
	const char *sep = "";
	size_t o = 0;

	if (!len)
		return;
	out[0] = '\0';
	while (*in) {
		size_t n = field_len(in);
		const char *colon = NULL;

		for (size_t i = 0; i + 1 < n; i++)
			if (in[i] == ':' && in[i + 1] == ' ')
				colon = in + i;
		if (colon && is_addr_field(colon + 2, n - (size_t)(colon + 2 - in))) {
			/* "what: x-addr=0x…": keep "what", the next field follows its colon. */
			put(out, len, &o, sep, strlen(sep));
			put(out, len, &o, in, (size_t)(colon - in));
			sep = ": ";
		} else if (!is_addr_field(in, n)) {
			put(out, len, &o, sep, strlen(sep));
			put(out, len, &o, in, n);
			sep = ", ";
		}
		in += n;
		if (*in)
			in += 2;
	}
}

/*
 * src.ctf.fs names the file it failed on only in its causes' text: "Failed
 * to index CTF stream file '/path'", "Cannot add stream file `/path` to...".
 */
static void quoted_stream_file(const char *text, char *stream, size_t slen)
{
	const char *at = strstr(text, "stream file ");
	const char *end;

	if (!at || (at[12] != '\'' && at[12] != '`'))
		return;
	end = strchr(at + 13, at[12] == '`' ? '`' : '\'');
	if (end)
		snprintf(stream, slen, "%.*s", (int)(end - at - 13), at + 13);
}

/*
 * Takes the current thread's babeltrace2 error, writes its root cause (it
 * names what actually failed, the others only relay it) into
 * @msg, and reports which source component (-1 if none) and which stream
 * file ("" if none) the causes name. Releases the error.
 * Return: whether there was one.
 */
static bool take_bt_error(char *msg, size_t len, int *src, char *stream, size_t slen)
{
	const bt_error *e = bt_current_thread_take_error();
	uint64_t count;
	bool have_msg = false;

	*src = -1;
	stream[0] = '\0';
	snprintf(msg, len, "babeltrace2 failed without saying why");
	if (!e)
		return false;
	count = bt_error_get_cause_count(e);
	/* Cause 0 is the first appended: the root; the later ones relay it upwards. */
	for (uint64_t i = 0; i < count; i++) {
		const bt_error_cause *c = bt_error_borrow_cause_by_index(e, i);
		const char *text = bt_error_cause_get_message(c);
		const char *comp = NULL, *port = NULL;
		unsigned int n;

		if (!have_msg && text && *text) {
			ctf_clean_cause(text, msg, len);
			have_msg = true;
		}
		switch (bt_error_cause_get_actor_type(c)) {
		case BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT:
			comp = bt_error_cause_component_actor_get_component_name(c);
			break;
		case BT_ERROR_CAUSE_ACTOR_TYPE_MESSAGE_ITERATOR:
			comp = bt_error_cause_message_iterator_actor_get_component_name(c);
			port = bt_error_cause_message_iterator_actor_get_component_output_port_name(c);
			break;
		default:
			break;
		}
		if (*src < 0 && comp && sscanf(comp, SRC_NAME_FMT, &n) == 1)
			*src = (int)n;
		if (!stream[0] && text)
			quoted_stream_file(text, stream, slen);
		/*
		 * src.ctf.fs names its ports "UUID-or-PATH | STREAM-CLASS-ID | X"
		 * where X is the stream file, or the stream's instance id when
		 * the trace gives one.
		 */
		if (!stream[0] && port && *src >= 0) {
			const char *bar = strrchr(port, '|');
			const char *x = bar ? bar + 1 + (bar[1] == ' ') : port;

			snprintf(stream, slen, "%s%s", strchr(x, '/') ? "" : "stream ", x);
		}
	}
	bt_error_release(e);
	return true;
}

/*
 * src.ctf.fs 2.0 logs why metadata fails but reports only "Cannot create
 * trace": look at the file ourselves to say which kind of failure it is.
 */
/* The first bytes of a metadata packet, and of a stream packet, in either byte order. */
static const unsigned char metadata_magic[2][4] = { { 0x57, 0x1d, 0xd1, 0x75 },
						    { 0x75, 0xd1, 0x1d, 0x57 } };
static const unsigned char packet_magic[2][4] = { { 0xc1, 0x1f, 0xfc, 0xc1 },
						  { 0xc1, 0xfc, 0x1f, 0xc1 } };

/* Whether @head (@n bytes) begins with @magic in either byte order; 0 little, 1 big endian. */
static int magic_order(const unsigned char *head, size_t n, const unsigned char magic[2][4])
{
	for (int o = 0; n >= 4 && o < 2; o++)
		if (!memcmp(head, magic[o], 4))
			return o;
	return -1;
}

static const char *metadata_hint(const char *dir)
{
	unsigned char head[8];
	char p[PATH_MAX];
	size_t n = 0;
	FILE *f;

	snprintf(p, sizeof(p), "%s/metadata", dir);
	f = fopen(p, "rb");
	if (!f)
		return "the metadata file cannot be read";
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (n == 0)
		return "the metadata file is empty";
	if (magic_order(head, n, metadata_magic) >= 0)
		return "its packetized metadata does not decode";
	if (n >= 6 && memcmp(head, "/* CTF", 6) == 0)
		return "its metadata text does not parse";
	return "the metadata file is not CTF (no \"/* CTF\" signature, no metadata packets)";
}

/*
 * Packetized metadata (LTTng's) must be whole packets: src.ctf.fs spins for
 * ever on one cut short. Each packet's header gives its size: walk them.
 * Return: 0 (text metadata, or whole packets), or -EINVAL with @why said.
 */
static int metadata_packets_whole(const char *dir, char *why, size_t len)
{
	enum { HEADER = 37, SIZES = 24 }; /* header bytes; content and packet sizes (bits) at 24 */
	unsigned char h[HEADER];
	char p[PATH_MAX];
	uint64_t at = 0, total;
	struct stat st;
	bool le;
	FILE *f;
	int rc = 0;

	snprintf(p, sizeof(p), "%s/metadata", dir);
	f = fopen(p, "rb");
	if (!f || fstat(fileno(f), &st) || magic_order(h, fread(h, 1, 4, f), metadata_magic) < 0) {
		if (f)
			fclose(f);
		return 0; /* text, or src.ctf.fs says what is wrong with it */
	}
	le = magic_order(h, 4, metadata_magic) == 0;
	total = (uint64_t)st.st_size;
	for (unsigned int k = 0; at < total; k++) {
		uint32_t content = 0, packet = 0;

		if (fseek(f, (long)at, SEEK_SET) || fread(h, 1, HEADER, f) != HEADER) {
			snprintf(why, len, "its metadata is cut short in the header of packet %u "
				 "(byte %" PRIu64 " of %" PRIu64 ")", k, at, total);
			rc = -EINVAL;
			break;
		}
		for (int i = 0; i < 4; i++) {
			int b = le ? 3 - i : i;

			content = content << 8 | h[SIZES + b];
			packet = packet << 8 | h[SIZES + 4 + b];
		}
		if (packet / 8 < HEADER || content > packet || packet % 8) {
			snprintf(why, len, "its metadata packet %u (byte %" PRIu64 ") has a bad size",
				 k, at);
			rc = -EINVAL;
			break;
		}
		if (at + packet / 8 > total) {
			snprintf(why, len, "its metadata is cut short: packet %u (byte %" PRIu64
				 ") needs %u bytes, the file has %" PRIu64, k, at, packet / 8,
				 total - at);
			rc = -EINVAL;
			break;
		}
		at += packet / 8;
	}
	fclose(f);
	return rc;
}

static uint64_t load_be64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * One LTTng packet index (index/NAME.idx, big endian): a 16-byte header
 * (magic, major, minor, entry size), then per packet its offset in the
 * stream file and its packet and content sizes in bits, then timestamps and
 * more. src.ctf.fs trusts it and aborts when a packet lies past the stream
 * file's end: check that each one lies within.
 * Return: 0, or -EINVAL with @why said.
 */
static int index_fits(const char *dir, const char *name, char *why, size_t len)
{
	enum { HEADER = 16, ENTRY_MIN = 24 };
	unsigned char h[HEADER], e[ENTRY_MIN];
	char p[PATH_MAX];
	struct stat st;
	uint64_t size, entry;
	FILE *f;
	int rc = 0;

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, name) >= sizeof(p) || stat(p, &st))
		return 0;
	size = (uint64_t)st.st_size;
	snprintf(p, sizeof(p), "%s/index/%s.idx", dir, name);
	f = fopen(p, "rb");
	if (!f)
		return 0; /* no index: src.ctf.fs reads the packets' own headers */
	if (fread(h, 1, HEADER, f) != HEADER || load_be64(h) >> 32 != 0xc1f1dcc1) {
		fclose(f);
		return 0; /* not one it would use */
	}
	entry = load_be64(h + 8) & 0xffffffff;
	for (uint64_t k = 0; entry >= ENTRY_MIN; k++) {
		uint64_t at, bits, content;

		if (fseek(f, (long)(HEADER + k * entry), SEEK_SET) || fread(e, 1, ENTRY_MIN, f) != ENTRY_MIN)
			break;
		at = load_be64(e);
		bits = load_be64(e + 8);
		content = load_be64(e + 16);
		if (at > size || bits / 8 > size - at || content > bits) {
			snprintf(why, len, "stream file %.100s: its index (index/%.100s.idx) says "
				 "packet %" PRIu64 " is at byte %" PRIu64 ", %" PRIu64 " bytes with %"
				 PRIu64 " bits of content: that does not fit the %" PRIu64 "-byte file",
				 name, name, k, at, bits / 8, content, size);
			rc = -EINVAL;
			break;
		}
	}
	fclose(f);
	return rc;
}

/*
 * Where packet @k of the stream file @path begins: byte 0 for the first,
 * else as its LTTng packet index (index/NAME.idx) says (src.ctf.fs alone
 * knows the packets' sizes otherwise). Return: whether it is known.
 */
static bool packet_offset(const char *path, uint64_t k, uint64_t *at)
{
	enum { HEADER = 16, ENTRY_MIN = 8 };
	const char *slash = strrchr(path, '/');
	unsigned char h[HEADER];
	char p[PATH_MAX];
	uint64_t entry;
	bool known = false;
	FILE *f;

	*at = 0;
	if (!k)
		return true;
	if (!slash || (size_t)snprintf(p, sizeof(p), "%.*s/index/%s.idx", (int)(slash - path),
				       path, slash + 1) >= sizeof(p))
		return false;
	f = fopen(p, "rb");
	if (!f)
		return false;
	if (fread(h, 1, HEADER, f) == HEADER && load_be64(h) >> 32 == 0xc1f1dcc1) {
		entry = load_be64(h + 8) & 0xffffffff;
		known = entry >= ENTRY_MIN && k <= (UINT64_MAX - HEADER) / entry &&
			!fseeko(f, (off_t)(HEADER + k * entry), SEEK_SET) &&
			fread(h, 1, 8, f) == 8;
		if (known)
			*at = load_be64(h);
	}
	fclose(f);
	return known;
}

/* Every stream file's index, as index_fits() checks one. */
static int indexes_fit(const char *dir, char *why, size_t len)
{
	struct dirent **names;
	int n = scandir(dir, &names, not_dots, by_bytes), rc = 0;

	for (int k = 0; k < n; k++) {
		if (!rc && strcmp(names[k]->d_name, "metadata") && is_file(dir, names[k]->d_name))
			rc = index_fits(dir, names[k]->d_name, why, len);
		free(names[k]);
	}
	if (n >= 0)
		free(names);
	return rc;
}

/*
 * src.ctf.fs takes every file of a trace folder but the metadata for a
 * stream, and does not say which one it could not read: the first that
 * cannot be one (not empty, but too short for a packet's header and
 * context, or without a packet's magic).
 * Return: 0 with @out saying which, or -ENOENT.
 */
static int stream_suspect(const char *dir, char *out, size_t len)
{
	struct dirent **names;
	int n = scandir(dir, &names, not_dots, alphasort), rc = -ENOENT;

	for (int k = 0; k < n; k++) {
		unsigned char head[64];
		const char *what = NULL;
		char p[PATH_MAX];
		size_t got = 0;
		FILE *f;

		if (rc && strcmp(names[k]->d_name, "metadata") && names[k]->d_name[0] != '.' &&
		    is_file(dir, names[k]->d_name)) {
			snprintf(p, sizeof(p), "%s/%s", dir, names[k]->d_name);
			f = fopen(p, "rb");
			if (f) {
				got = fread(head, 1, sizeof(head), f);
				fclose(f);
			}
			/* (an empty file is an empty stream, which is fine) */
			if (got >= 4 && magic_order(head, got, packet_magic) < 0)
				what = "not a CTF stream file (no packet magic)";
			else if (got && got < sizeof(head))
				what = "cut short in its first packet";
		}
		if (what) {
			snprintf(out, len, "%.200s: %s", names[k]->d_name, what);
			rc = 0;
		}
		free(names[k]);
	}
	free(names);
	return rc;
}

/* ---- event classes ---- */

static struct cls_info *cls_find(const struct u64map *classes, const bt_event_class *ec)
{
	uint64_t *ci = u64map_get(classes, (uintptr_t)ec);

	return ci ? (struct cls_info *)(uintptr_t)*ci : NULL;
}

static void cls_free(struct u64map *classes)
{
	uint64_t ec, ci;
	size_t pos = 0;

	while (u64map_next(classes, &pos, &ec, &ci)) {
		bt_event_class_put_ref((const bt_event_class *)(uintptr_t)ec);
		free((struct cls_info *)(uintptr_t)ci);
	}
	u64map_fini(classes);
}

static enum fkind kind_of(const bt_field_class *fc)
{
	bt_field_class_type t = bt_field_class_get_type(fc);

	/* Enumerations are integers of these types too. */
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		return FK_UINT;
	if (bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		return FK_SINT;
	if (t == BT_FIELD_CLASS_TYPE_STRING)
		return FK_STR;
	return FK_NONE;
}

enum ctf_sel ctf_name_parse(const char *name, char *base, size_t len, uint32_t *index)
{
	const char *br = strchr(name, '['), *dot = strrchr(name, '.');
	enum ctf_sel sel = CTF_SEL_WHOLE;
	size_t n = strlen(name);
	char *end;

	if (br) {
		unsigned long long i = strtoull(br + 1, &end, 10);

		if (end != br + 1 && br[1] >= '0' && br[1] <= '9' && !strcmp(end, "]") &&
		    i <= UINT32_MAX) {
			sel = CTF_SEL_ELEM;
			*index = (uint32_t)i;
			n = (size_t)(br - name);
		}
	} else if (dot && (!strcmp(dot, ".count") || !strcmp(dot, ".sum"))) {
		sel = dot[1] == 'c' ? CTF_SEL_COUNT : CTF_SEL_SUM;
		n = (size_t)(dot - name);
	}
	if (n >= len) {
		if (len)
			base[0] = '\0';
		return CTF_SEL_WHOLE;
	}
	memcpy(base, name, n);
	base[n] = '\0';
	return sel;
}

/* An array (static or dynamic) of integers: what CTF_SEL_ELEM and the others read. */
static bool is_int_array(const bt_field_class *fc)
{
	bt_field_class_type t = bt_field_class_get_type(fc);
	enum fkind k;

	if (!bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_ARRAY))
		return false;
	k = kind_of(bt_field_class_array_borrow_element_field_class_const(fc));
	return k == FK_UINT || k == FK_SINT;
}

static bool class_has_clock(const bt_event_class *ec)
{
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);

	return bt_stream_class_borrow_default_clock_class_const(sc) != NULL;
}

/* The first event of a class: ask the caller and resolve its names once. */
static int cls_bind(struct reader *r, const bt_event_class *ec, struct cls_info **out)
{
	struct ctf_binding b = { .tag = -1 };
	const char *name = bt_event_class_get_name(ec);
	const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(ec);
	struct cls_info *ci;
	uint64_t nmemb = 0;
	int ret;

	ret = r->bind(r->ctx, name ? name : "", &b);
	if (ret < 0)
		return ret;
	if (b.tag >= 0 && b.n > CTF_MAX_FIELDS) {
		set_err(r->err, r->errlen, "%s: binding of event \"%s\" asks for %u fields (max %d)",
			r->path, name ? name : "", b.n, CTF_MAX_FIELDS);
		return -EINVAL;
	}
	ci = calloc(1, sizeof(*ci));
	if (!ci)
		return -ENOMEM;
	ci->tag = b.tag < 0 ? -1 : b.tag;
	ci->n = b.tag < 0 ? 0 : b.n;
	ci->has_clock = class_has_clock(ec);
	if (payload && bt_field_class_get_type(payload) == BT_FIELD_CLASS_TYPE_STRUCTURE)
		nmemb = bt_field_class_structure_get_member_count(payload);
	for (unsigned int f = 0; f < ci->n; f++) {
		char base[256];
		uint32_t elem = 0;
		enum ctf_sel sel = ctf_name_parse(b.names[f] ? b.names[f] : "", base, sizeof(base),
						  &elem);

		ci->kind[f] = FK_NONE;
		for (uint64_t m = 0; base[0] && m < nmemb; m++) {
			const bt_field_class_structure_member *mb =
				bt_field_class_structure_borrow_member_by_index_const(payload, m);
			const bt_field_class *fc;

			if (strcmp(bt_field_class_structure_member_get_name(mb), base) != 0)
				continue;
			fc = bt_field_class_structure_member_borrow_field_class_const(mb);
			ci->idx[f] = m;
			if (sel == CTF_SEL_WHOLE)
				ci->kind[f] = (uint8_t)kind_of(fc);
			else if (is_int_array(fc))
				ci->kind[f] = FK_ARRAY;
			ci->sel[f] = (uint8_t)sel;
			ci->elem[f] = elem;
			break;
		}
	}
	ci->ec = ec;
	ret = u64map_put(&r->classes, (uintptr_t)ec, (uintptr_t)ci);
	if (ret) {
		free(ci);
		return ret;
	}
	/* Held until the end so no other class can reuse the address we key on. */
	bt_event_class_get_ref(ec);
	*out = ci;
	return 0;
}

/* ---- the sink ---- */

static uint64_t event_ts(const bt_message *msg)
{
	const bt_clock_snapshot *cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
	int64_t ns;

	if (bt_clock_snapshot_get_ns_from_origin(cs, &ns) != BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		/* Beyond int64 ns from the origin: the raw cycle count still orders events. */
		bt_current_thread_clear_error();
		return bt_clock_snapshot_get_value(cs);
	}
	/* Before the origin cannot be shown as an unsigned time; such clocks are unheard of. */
	return ns < 0 ? 0 : (uint64_t)ns;
}

/* An array's element, count or sum into @v (an element past its end: absent). */
static void array_value(const bt_field *fld, enum ctf_sel sel, uint32_t elem, struct ctf_value *v)
{
	uint64_t n = bt_field_array_get_length(fld);

	if (sel == CTF_SEL_COUNT) {
		v->u = n;
		return;
	}
	for (uint64_t i = sel == CTF_SEL_ELEM ? elem : 0; i < n; i++) {
		const bt_field *e = bt_field_array_borrow_element_field_by_index_const(fld, i);
		uint64_t x = kind_of(bt_field_borrow_class_const(e)) == FK_SINT
				     ? (uint64_t)bt_field_integer_signed_get_value(e)
				     : bt_field_integer_unsigned_get_value(e);

		if (sel == CTF_SEL_ELEM) {
			v->u = x;
			v->negative = kind_of(bt_field_borrow_class_const(e)) == FK_SINT &&
				      (int64_t)x < 0;
			return;
		}
		v->u += x;
	}
	if (sel == CTF_SEL_ELEM)
		v->present = false;
}

static int on_event_msg(struct reader *r, const bt_message *msg)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	const bt_event_class *ec = bt_event_borrow_class_const(ev);
	struct ctf_value vals[CTF_MAX_FIELDS];
	struct cls_info *ci = r->last;
	uint64_t index, ts = 0;
	int ret;

	if (!ci || ci->ec != ec) {
		ci = cls_find(&r->classes, ec);
		if (!ci) {
			ret = cls_bind(r, ec, &ci);
			if (ret < 0) {
				/* the caller refused it: say where (its message says what) */
				if (r->err && r->errlen && !r->err[0])
					set_err(r->err, r->errlen, "%s: event %" PRIu64 " at %" PRIu64 " ns",
						r->path, r->st->events,
						class_has_clock(ec) ? event_ts(msg) : 0);
				return ret;
			}
		}
		r->last = ci;
	}
	if (ci->has_clock) {
		ts = event_ts(msg);
		/* A muxer refuses this between streams; within one stream it is ours to see. */
		if (ts < r->st->last_ts) {
			set_err(r->err, r->errlen,
				"%s: corrupt trace: event %" PRIu64 " at %" PRIu64
				" ns comes after event %" PRIu64 " at %" PRIu64 " ns",
				r->path, r->st->events, ts, r->st->events - 1, r->st->last_ts);
			return -EINVAL;
		}
	}
	index = r->st->events++;
	if (index == 0)
		r->st->first_ts = ts;
	r->st->last_ts = ts;
	if ((index & 4095) == 4095)
		r->mark(r->ctx, CTF_MARK_STATS, NULL, 0);
	if (ci->tag < 0)
		return 0;

	const bt_field *payload = ci->n ? bt_event_borrow_payload_field_const(ev) : NULL;

	for (unsigned int f = 0; f < ci->n; f++) {
		struct ctf_value *v = &vals[f];
		const bt_field *fld;

		v->present = ci->kind[f] != FK_NONE;
		v->is_str = false;
		v->negative = false;
		v->u = 0;
		v->s = NULL;
		if (!v->present)
			continue;
		fld = bt_field_structure_borrow_member_field_by_index_const(payload, ci->idx[f]);
		switch (ci->kind[f]) {
		case FK_UINT:
			v->u = bt_field_integer_unsigned_get_value(fld);
			break;
		case FK_SINT: {
			int64_t i = bt_field_integer_signed_get_value(fld);

			v->u = (uint64_t)i;
			v->negative = i < 0;
			break;
		}
		case FK_ARRAY:
			array_value(fld, ci->sel[f], ci->elem[f], v);
			break;
		default:
			v->is_str = true;
			v->s = bt_field_string_get_value(fld);
			break;
		}
	}
	for (unsigned int f = ci->n; f < CTF_MAX_FIELDS; f++)
		vals[f].present = false; /* (a reader may look past the binding's count) */
	return r->on_event(r->ctx, ci->tag, index, ts, vals);
}

/* A packet begins: mark it with its stream's name and its index in the stream. */
static int mark_packet(struct reader *r, const bt_message *msg)
{
	const bt_stream *s = bt_packet_borrow_stream_const(
		bt_message_packet_beginning_borrow_packet_const(msg));
	const char *name = bt_stream_get_name(s);
	char id[32];
	size_t i;

	for (i = 0; i < r->nstreams && r->streams[i].stream != s; i++)
		;
	if (i == r->nstreams) {
		if (array_reserve(&r->streams, &r->streams_cap, r->nstreams, sizeof(*r->streams)))
			return -ENOMEM;
		r->streams[r->nstreams++] = (struct stream_packets){ .stream = s };
	}
	if (!name) {
		snprintf(id, sizeof(id), "stream %" PRIu64, bt_stream_get_id(s));
		name = id;
	}
	r->mark(r->ctx, CTF_MARK_PACKET, name, r->streams[i].packets++);
	return 0;
}

static bt_graph_simple_sink_component_consume_func_status
consume(bt_message_iterator *it, void *data)
{
	struct reader *r = data;
	bt_message_array_const msgs;
	uint64_t count;

	switch (bt_message_iterator_next(it, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_MEMORY_ERROR;
	default:
		return BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < count; i++) {
		const bt_message *msg = msgs[i];
		uint64_t n;

		if (r->stop == 0) {
			switch (bt_message_get_type(msg)) {
			case BT_MESSAGE_TYPE_EVENT:
				r->stop = on_event_msg(r, msg);
				if (r->stop > 0)
					r->stop = 0;
				break;
			case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
				if (bt_message_discarded_events_get_count(msg, &n) !=
				    BT_PROPERTY_AVAILABILITY_AVAILABLE)
					n = 1; /* some, the tracer did not say how many */
				r->st->discarded += n;
				r->mark(r->ctx, CTF_MARK_STATS, NULL, 0);
				break;
			case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
				/* lost packets held an unknown number of events: counted apart */
				if (bt_message_discarded_packets_get_count(msg, &n) !=
				    BT_PROPERTY_AVAILABILITY_AVAILABLE)
					n = 1;
				r->st->lost_packets += n;
				r->mark(r->ctx, CTF_MARK_STATS, NULL, 0);
				break;
			case BT_MESSAGE_TYPE_PACKET_BEGINNING:
				r->stop = mark_packet(r, msg);
				break;
			default:
				break; /* stream and packet boundaries, inactivity */
			}
		}
		/* Every message is ours, also those after a stop. */
		bt_message_put_ref(msg);
	}
	/* END, not ERROR: a stop by the caller is no babeltrace2 failure to report. */
	return r->stop ? BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_END
		       : BT_GRAPH_SIMPLE_SINK_COMPONENT_CONSUME_FUNC_STATUS_OK;
}

/* ---- the graph ---- */

/* The "ctf" and "utils" plugins, from one pass over the plugin folders (each pass loads them all). */
static int find_plugins(const bt_plugin **ctf, const bt_plugin **utils, char *err, size_t errlen)
{
	const bt_plugin_set *set = NULL;
	bt_plugin_find_all_status st = bt_plugin_find_all(BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE,
							  BT_FALSE, &set);
	const char *missing;

	*ctf = *utils = NULL;
	if (st == BT_PLUGIN_FIND_ALL_STATUS_MEMORY_ERROR) {
		bt_current_thread_clear_error();
		set_err(err, errlen, "out of memory loading babeltrace2 plugins");
		return -ENOMEM;
	}
	for (uint64_t i = 0; st == BT_PLUGIN_FIND_ALL_STATUS_OK && i < bt_plugin_set_get_plugin_count(set); i++) {
		const bt_plugin *p = bt_plugin_set_borrow_plugin_by_index_const(set, i);

		if (!strcmp(bt_plugin_get_name(p), "ctf"))
			*ctf = p;
		else if (!strcmp(bt_plugin_get_name(p), "utils"))
			*utils = p;
	}
	missing = !*ctf ? "ctf" : !*utils ? "utils" : NULL;
	if (missing) {
		*ctf = *utils = NULL;
		bt_current_thread_clear_error();
		set_err(err, errlen, "babeltrace2 plugin \"%s\" not found (is babeltrace2 installed?)",
			missing);
	} else {
		bt_plugin_get_ref(*ctf);
		bt_plugin_get_ref(*utils);
	}
	bt_plugin_set_put_ref(set);
	return missing ? -ENOSYS : 0;
}

static int add_source(struct reader *r, bt_graph *graph, const bt_component_class_source *cls,
		      unsigned int i, const bt_component_source **src)
{
	bt_value *params = bt_value_map_create();
	bt_value *inputs = NULL;
	char name[32], cut[512];
	int ret = -ENOMEM;

	if (!params)
		goto out;
	r->mark(r->ctx, CTF_MARK_FOLDER, r->folders->v[i], 0);
	if (metadata_packets_whole(r->folders->v[i], cut, sizeof(cut)) ||
	    indexes_fit(r->folders->v[i], cut, sizeof(cut))) {
		set_err(r->err, r->errlen, "%s: cannot open CTF trace: %s", r->folders->v[i], cut);
		ret = -EINVAL;
		goto put_params;
	}
	if (bt_value_map_insert_empty_array_entry(params, "inputs", &inputs) ||
	    bt_value_array_append_string_element(inputs, r->folders->v[i]))
		goto put_params;
	snprintf(name, sizeof(name), SRC_NAME_FMT, i);
	switch (bt_graph_add_source_component(graph, cls, name, params, BT_LOGGING_LEVEL_NONE, src)) {
	case BT_GRAPH_ADD_COMPONENT_STATUS_OK:
		ret = 0;
		break;
	case BT_GRAPH_ADD_COMPONENT_STATUS_MEMORY_ERROR:
		bt_current_thread_clear_error();
		break;
	default: {
		char why[512], stream[256];
		int which;

		take_bt_error(why, sizeof(why), &which, stream, sizeof(stream));
		if (strncmp(why, "Cannot create trace", 19) == 0)
			set_err(r->err, r->errlen, "%s: cannot open CTF trace: %s",
				r->folders->v[i], metadata_hint(r->folders->v[i]));
		else if (!stream_suspect(r->folders->v[i], stream, sizeof(stream)))
			set_err(r->err, r->errlen, "%s: cannot open CTF trace: %s (%s)",
				r->folders->v[i], stream, why);
		else if (stream[0])
			set_err(r->err, r->errlen, "%s: cannot open CTF trace: stream file %s: %s "
				"(found indexing its packets: truncated or damaged)",
				r->folders->v[i], stream, why);
		else
			set_err(r->err, r->errlen, "%s: cannot open CTF trace: %s%s",
				r->folders->v[i], why,
				strstr(why, "index CTF stream file") ?
				" (truncated or damaged: its packets do not fit the file)" : "");
		ret = -EINVAL;
		break;
	}
	}
put_params:
	bt_value_put_ref(params);
out:
	if (ret == -ENOMEM)
		set_err(r->err, r->errlen, "%s: out of memory", r->folders->v[i]);
	return ret;
}

/* The muxer always keeps one free input port: connect @out to it. */
static int connect_to_muxer(bt_graph *graph, const bt_component_filter *mux,
			    const bt_port_output *out)
{
	uint64_t n = bt_component_filter_get_input_port_count(mux);

	for (uint64_t i = 0; i < n; i++) {
		const bt_port_input *in = bt_component_filter_borrow_input_port_by_index_const(mux, i);

		if (bt_port_is_connected(bt_port_input_as_port_const(in)))
			continue;
		return bt_graph_connect_ports(graph, out, in, NULL) == BT_GRAPH_CONNECT_PORTS_STATUS_OK
			       ? 0 : -ENOMEM;
	}
	return -ENOMEM;
}

static int nomem(struct reader *r)
{
	bt_current_thread_clear_error();
	set_err(r->err, r->errlen, "%s: cannot build the babeltrace2 graph (out of memory?)", r->path);
	return -ENOMEM;
}

/*
 * A source per trace folder, and all their output ports in order in
 * *@ports (the caller frees the array; each port is borrowed from its
 * source, which the graph holds).
 */
static int add_sources(struct reader *r, bt_graph *graph, const bt_component_class_source *fs,
		       const bt_port_output ***ports, uint64_t *nports)
{
	*ports = NULL;
	*nports = 0;
	for (unsigned int i = 0; i < r->folders->n; i++) {
		const bt_component_source *src;
		uint64_t n;
		const bt_port_output **more;
		int ret = add_source(r, graph, fs, i, &src);

		if (ret)
			return ret;
		n = bt_component_source_get_output_port_count(src);
		more = realloc(*ports, (*nports + n) * sizeof(**ports));
		if (!more && n)
			return nomem(r);
		*ports = more;
		for (uint64_t p = 0; p < n; p++)
			(*ports)[(*nports)++] = bt_component_source_borrow_output_port_by_index_const(src, p);
	}
	return 0;
}

/*
 * Sources, then the sink. Streams are merged in time order by a muxer; a
 * trace of one stream has nothing to merge and feeds the sink directly, which
 * spares a muxer's work per message.
 */
static int build_graph(struct reader *r, bt_graph *graph, const bt_plugin *ctf,
		       const bt_plugin *utils)
{
	const bt_component_class_source *fs =
		bt_plugin_borrow_source_component_class_by_name_const(ctf, "fs");
	const bt_component_class_filter *muxer =
		bt_plugin_borrow_filter_component_class_by_name_const(utils, "muxer");
	const bt_port_output **ports, *to_sink;
	const bt_component_filter *mux;
	const bt_component_sink *sink;
	uint64_t nports;
	int ret;

	if (!fs || !muxer) {
		set_err(r->err, r->errlen, "babeltrace2 lacks %s",
			!fs ? "source.ctf.fs" : "filter.utils.muxer");
		return -ENOSYS;
	}
	ret = add_sources(r, graph, fs, &ports, &nports);
	if (ret) {
		free(ports);
		return ret;
	}
	ret = -ENOMEM;
	if (bt_graph_add_simple_sink_component(graph, "sink", NULL, consume, NULL, r, &sink) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK)
		goto free_ports;
	if (nports == 1) {
		to_sink = ports[0];
	} else {
		if (bt_graph_add_filter_component(graph, muxer, "muxer", NULL, BT_LOGGING_LEVEL_NONE,
						  &mux) != BT_GRAPH_ADD_COMPONENT_STATUS_OK)
			goto free_ports;
		for (uint64_t p = 0; p < nports; p++)
			if (connect_to_muxer(graph, mux, ports[p]))
				goto free_ports;
		to_sink = bt_component_filter_borrow_output_port_by_index_const(mux, 0);
	}
	if (bt_graph_connect_ports(graph, to_sink,
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0),
				   NULL) == BT_GRAPH_CONNECT_PORTS_STATUS_OK)
		ret = 0;
free_ports:
	free(ports);
	return ret ? nomem(r) : 0;
}

/* bt_graph_run() failed: say what, in which trace folder, and after which event. */
static int run_error(struct reader *r, bt_graph_run_status st)
{
	char why[512], stream[256], where[128];
	int which;

	take_bt_error(why, sizeof(why), &which, stream, sizeof(stream));
	if (r->st->events)
		snprintf(where, sizeof(where), "after event %" PRIu64 " at %" PRIu64 " ns",
			 r->st->events - 1, r->st->last_ts);
	else
		snprintf(where, sizeof(where), "before the first event");
	if (st == BT_GRAPH_RUN_STATUS_MEMORY_ERROR) {
		set_err(r->err, r->errlen, "%s: out of memory %s", r->path, where);
		return -ENOMEM;
	}
	/* The muxer logs why it cannot order messages but reports only this. */
	if (strncmp(why, "Cannot find the youngest upstream", 33) == 0) {
		set_err(r->err, r->errlen,
			"%s: cannot merge the streams in time order %s: their clocks cannot be "
			"compared (traces from different machines, or clocks without a Unix-epoch "
			"origin): read the traces one at a time", r->path, where);
		return -EINVAL;
	}
	set_err(r->err, r->errlen, "%s: corrupt trace %s%s%s: %s",
		which >= 0 && (unsigned int)which < r->folders->n ? r->folders->v[which] : r->path,
		where, stream[0] ? " in " : "", stream, why);
	return -EINVAL;
}

/*
 * The run ended well, yet babeltrace2 may have given up on a stream: src.ctf.fs
 * 2.0 ends a stream whose packet it cannot decode ("Cannot handle state:
 * state=DSCOPE_EVENT_HEADER_CONTINUE") as if it had ended there, and only
 * the error it leaves behind says so. Such a stream is damaged, not short
 * or empty: say where, as a packet of the stream and the byte it begins at.
 * Return: 0, or -EINVAL with the error said.
 */
static int gave_up(struct reader *r)
{
	char why[512], stream[256], where[128], packet[128] = "";
	const char *name = NULL;
	uint64_t at, k = 0;
	struct stat sb;
	int which;

	if (!take_bt_error(why, sizeof(why), &which, stream, sizeof(stream)))
		return 0;
	/* the stream the error names, else the only one, and the last packet begun in it */
	for (size_t i = 0; i < r->nstreams; i++) {
		const char *s = bt_stream_get_name(r->streams[i].stream);

		if (s && (stream[0] ? !strcmp(s, stream) : r->nstreams == 1)) {
			name = s;
			k = r->streams[i].packets ? r->streams[i].packets - 1 : 0;
		}
	}
	if (name) {
		bool known = packet_offset(name, k, &at);
		size_t n = (size_t)snprintf(packet, sizeof(packet), " at packet %" PRIu64, k);

		if (known && !stat(name, &sb))
			snprintf(packet + n, sizeof(packet) - n, " (byte %" PRIu64 " of %lld)", at,
				 (long long)sb.st_size);
		else if (known)
			snprintf(packet + n, sizeof(packet) - n, " (byte %" PRIu64 ")", at);
	}
	if (r->st->events)
		snprintf(where, sizeof(where), "after event %" PRIu64 " at %" PRIu64 " ns",
			 r->st->events - 1, r->st->last_ts);
	else
		snprintf(where, sizeof(where), "before the first event");
	set_err(r->err, r->errlen, "%s: corrupt trace %s: babeltrace2 gave up on stream file "
		"%s%s and went on as if it ended there: %s",
		which >= 0 && (unsigned int)which < r->folders->n ? r->folders->v[which] : r->path,
		where, name ? name : stream[0] ? stream : "(unnamed)", packet, why);
	return -EINVAL;
}

int ctf_decode(const char *path, ctf_bind_fn bind, ctf_event_fn on_event, ctf_mark_fn mark,
	       void *ctx, struct ctf_stats *st, char *err, size_t errlen)
{
	struct folders folders = { 0 };
	struct ctf_stats own;
	struct reader r = {
		.path = path, .bind = bind, .on_event = on_event, .mark = mark, .ctx = ctx,
		.folders = &folders, .st = st ? st : &own, .err = err, .errlen = errlen,
	};
	const bt_plugin *ctf = NULL, *utils = NULL;
	bt_graph *graph;
	bt_graph_run_status rs;
	int ret;

	*r.st = (struct ctf_stats){ 0 };
	if (err && errlen)
		err[0] = '\0'; /* so a stop can tell whether cls_bind() said why */
	ret = find_traces(path, &folders, err, errlen);
	r.st->traces = folders.n;
	if (ret)
		goto free_folders;
	ret = find_plugins(&ctf, &utils, err, errlen);
	if (ret)
		goto free_folders;
	graph = bt_graph_create(0);
	if (!graph) {
		set_err(err, errlen, "%s: out of memory", path);
		ret = -ENOMEM;
		goto put_plugins;
	}
	ret = build_graph(&r, graph, ctf, utils);
	if (ret)
		goto put_graph;
	/* src.ctf.fs never asks to be called again; AGAIN is handled for other sources' sake. */
	do
		rs = bt_graph_run(graph);
	while (rs == BT_GRAPH_RUN_STATUS_AGAIN);
	if (r.stop < 0) {
		/* A caller's stop; cls_bind() may have written a message already. */
		ret = r.stop;
		if (ret == -ENOMEM)
			set_err(err, errlen, "%s: out of memory at event %" PRIu64, path, r.st->events);
		else if (err && errlen && !err[0])
			set_err(err, errlen, "%s: stopped at event %" PRIu64 " at %" PRIu64 " ns: %s",
				path, r.st->events ? r.st->events - 1 : 0, r.st->last_ts, strerror(-ret));
		bt_current_thread_clear_error();
	} else if (rs != BT_GRAPH_RUN_STATUS_OK) {
		ret = run_error(&r, rs);
	} else {
		ret = gave_up(&r);
	}
put_graph:
	bt_graph_put_ref(graph);
	cls_free(&r.classes);
	free(r.streams);
put_plugins:
	bt_plugin_put_ref(utils);
	bt_plugin_put_ref(ctf);
free_folders:
	folders_free(&folders);
	return ret;
}
