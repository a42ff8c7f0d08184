/* SPDX-License-Identifier: MIT */
/*
 * The imports of a PE32+ image (lint/pe.h). The file is untrusted: every
 * field that says where something is gets checked against the file before
 * a byte there is read, and sizes are added in 64 bits so that nothing
 * wraps. The layouts are those of the PE/COFF specification; the comments
 * give each field's offset within its structure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/array.h"
#include "common/types.h"
#include "pe.h"

#define PE_DOS_HEADER 64u      /* e_lfanew at 0x3c */
#define PE_COFF_HEADER 20u     /* NumberOfSections at 2, SizeOfOptionalHeader at 16 */
#define PE_OPT_FIXED 112u      /* PE32+ optional header up to its data directories */
#define PE_OPT_NDIRS 108u      /* NumberOfRvaAndSizes */
#define PE_SECTION 40u         /* VirtualSize 8, VirtualAddress 12, SizeOfRawData 16, PointerToRawData 20 */
#define PE_IMPORT_DESC 20u     /* ImportLookupTable 0, Name 12, ImportAddressTable 16 */
#define PE_DELAY_DESC 32u      /* Name 4, ImportAddressTable 12, ImportNameTable 16 */
#define PE_DIR_IMPORT 1u
#define PE_DIR_DELAY_IMPORT 13u
#define PE_MAGIC_PE32 0x10bu
#define PE_MAGIC_PE32PLUS 0x20bu
#define PE_ORDINAL_FLAG (1ull << 63)

struct pe_section {
	char name[9];      /* printable, for messages */
	uint32_t va;       /* VirtualAddress */
	uint32_t span;     /* the RVAs it covers: VirtualSize (SizeOfRawData when that is 0) */
	uint32_t backed;   /* of those, how many the file holds */
	uint32_t raw;      /* PointerToRawData */
};

struct pe_dir {
	uint32_t rva, size;
};

/* One parse: the image, its sections, where the imports go and where errors go. */
struct pe_ctx {
	const char *label;
	const uint8_t *data;
	size_t size;
	struct pe_section *sections;
	uint16_t nsections;
	struct pe_dir imports, delay_imports;
	struct pe_imports *imp;
	size_t cap;
	size_t descriptors; /* read so far, in both directories */
	char *err;
	size_t errlen;
};

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* "LABEL: " and the message into the caller's buffer. Return: -EINVAL. */
__attribute__((format(printf, 2, 3)))
static int pe_fail(struct pe_ctx *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!c->errlen)
		return -EINVAL;
	n = snprintf(c->err, c->errlen, "%s: ", c->label);
	if (n >= 0 && (size_t)n < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Whether @len bytes at file offset @off are in the file; if not, says so of @what. */
static int pe_need(struct pe_ctx *c, uint64_t off, uint64_t len, const char *what)
{
	if (off <= c->size && len <= c->size - off)
		return 0;
	return pe_fail(c, "%s at 0x%llx: truncated: it needs 0x%llx bytes, the file ends at 0x%zx",
		       what, (unsigned long long)off, (unsigned long long)len, c->size);
}

/*
 * The file offset of @len bytes at @rva, which must lie in the part of one
 * section that the file holds; *@avail (if not NULL) is how many bytes of
 * that part start there. @where and @what say what is looked for.
 */
static int pe_map(struct pe_ctx *c, uint64_t rva, uint32_t len, uint64_t *off, uint64_t *avail,
		  const char *where, const char *what)
{
	for (uint16_t i = 0; i < c->nsections && rva <= UINT32_MAX; i++) {
		const struct pe_section *s = &c->sections[i];
		uint64_t in;

		if (rva < s->va || rva - s->va >= s->span)
			continue;
		in = rva - s->va;
		if (in >= s->backed || len > s->backed - in)
			return pe_fail(c, "%s: %s 0x%llx: in section \"%s\" beyond the 0x%x bytes the file holds of it",
				       where, what, (unsigned long long)rva, s->name, s->backed);
		*off = s->raw + in;
		if (avail)
			*avail = s->backed - in;
		return 0;
	}
	return pe_fail(c, "%s: %s 0x%llx outside every section", where, what, (unsigned long long)rva);
}

/* The name at @rva: NUL-terminated, printable ASCII, in the file. */
static int pe_name(struct pe_ctx *c, uint64_t rva, const char **name, const char *where,
		   const char *what)
{
	uint64_t off = 0, avail = 0, len; /* set by pe_map() when it returns 0 */
	const char *s;
	int rc = pe_map(c, rva, 1, &off, &avail, where, what);

	if (rc)
		return rc;
	s = (const char *)c->data + off;
	for (len = 0; len < avail && len <= PE_MAX_NAME && s[len]; len++) {
		unsigned char ch = (unsigned char)s[len];

		if (ch < 0x20 || ch > 0x7e)
			return pe_fail(c, "%s: %s 0x%llx: byte 0x%02x at 0x%llx is not printable ASCII",
				       where, what, (unsigned long long)rva, ch,
				       (unsigned long long)(off + len));
	}
	if (len > PE_MAX_NAME)
		return pe_fail(c, "%s: %s 0x%llx: a name longer than %u bytes", where, what,
			       (unsigned long long)rva, PE_MAX_NAME);
	if (len == avail)
		return pe_fail(c, "%s: %s 0x%llx: the name at 0x%llx runs to the end of its section's data unterminated",
			       where, what, (unsigned long long)rva, (unsigned long long)off);
	if (!len)
		return pe_fail(c, "%s: %s 0x%llx: an empty name", where, what, (unsigned long long)rva);
	*name = s;
	return 0;
}

/* One more import. Return: 0, -EINVAL past PE_MAX_IMPORTS, -ENOMEM. */
static int pe_add(struct pe_ctx *c, const struct pe_import *imp)
{
	if (c->imp->n == PE_MAX_IMPORTS)
		return pe_fail(c, "more than %u imports: not an image a linker made", PE_MAX_IMPORTS);
	if (array_reserve(&c->imp->v, &c->cap, c->imp->n, sizeof(*imp)))
		return -ENOMEM;
	c->imp->v[c->imp->n++] = *imp;
	return 0;
}

/*
 * The thunks of one descriptor's lookup table at @rva, to the zero thunk:
 * bit 63 set, an ordinal in bits 15..0; clear, the RVA of a hint (16 bits)
 * and a name in bits 30..0. @where names the descriptor.
 */
static int pe_thunks(struct pe_ctx *c, uint32_t rva, const char *dll, bool delayed, const char *where)
{
	char at[PE_MAX_NAME + 256];
	int rc;

	for (uint64_t i = 0;; i++) {
		struct pe_import imp = { .dll = dll, .delayed = delayed };
		uint64_t off, thunk, hint;

		snprintf(at, sizeof(at), "%s: thunk %llu", where, (unsigned long long)i);
		if ((rc = pe_map(c, rva + 8 * i, 8, &off, NULL, at, "at RVA")))
			return rc;
		thunk = le64(c->data + off);
		if (!thunk)
			return 0;
		snprintf(at, sizeof(at), "%s: thunk %llu at 0x%llx", where, (unsigned long long)i,
			 (unsigned long long)off);
		if (thunk & PE_ORDINAL_FLAG) {
			imp.by_ordinal = true;
			imp.ordinal = (uint16_t)thunk; /* what the loader takes; bits 62..16 are ignored */
		} else if (thunk >> 31) {
			return pe_fail(c, "%s: 0x%016llx is neither an ordinal (bit 63) nor a hint/name RVA (bits 30..0)",
				       at, (unsigned long long)thunk);
		} else {
			if ((rc = pe_map(c, thunk, 2, &hint, NULL, at, "hint/name RVA")) ||
			    (rc = pe_name(c, thunk + 2, &imp.name, at, "name RVA")))
				return rc;
			imp.ordinal = le16(c->data + hint);
		}
		if ((rc = pe_add(c, &imp)))
			return rc;
	}
}

/* Counts one more descriptor. Return: 0, or -EINVAL past PE_MAX_IMPORTS of them. */
static int pe_descriptor(struct pe_ctx *c)
{
	if (++c->descriptors > PE_MAX_IMPORTS)
		return pe_fail(c, "more than %u import descriptors: not an image a linker made",
			       PE_MAX_IMPORTS);
	return 0;
}

/*
 * The import directory: descriptors to the one that names no module (the
 * null descriptor ends the table; a loader reads no further either). Names
 * come from the import lookup table, or from the import address table for
 * a descriptor without one, as the loader takes them.
 */
static int pe_import_dir(struct pe_ctx *c)
{
	char where[128], named[PE_MAX_NAME + 160];
	int rc;

	for (uint64_t i = 0;; i++) {
		uint32_t ilt, name, iat;
		const char *dll;
		uint64_t off;

		snprintf(where, sizeof(where), "import descriptor %llu", (unsigned long long)i);
		if ((rc = pe_descriptor(c)) ||
		    (rc = pe_map(c, c->imports.rva + (uint64_t)PE_IMPORT_DESC * i, PE_IMPORT_DESC, &off,
				 NULL, where, "at RVA")))
			return rc;
		ilt = le32(c->data + off);
		name = le32(c->data + off + 12);
		iat = le32(c->data + off + 16);
		if (!name)
			return 0;
		snprintf(where, sizeof(where), "import descriptor %llu at 0x%llx", (unsigned long long)i,
			 (unsigned long long)off);
		if ((rc = pe_name(c, name, &dll, where, "name RVA")))
			return rc;
		snprintf(named, sizeof(named), "import descriptor %llu (%s) at 0x%llx",
			 (unsigned long long)i, dll, (unsigned long long)off);
		if (!ilt && !iat)
			return pe_fail(c, "%s: neither an import lookup table nor an import address table",
				       named);
		if ((rc = pe_thunks(c, ilt ? ilt : iat, dll, false, named)))
			return rc;
	}
}

/*
 * The delay-load import directory: descriptors to the one that names no
 * module. Its fields are RVAs in a PE32+ image whatever its Attributes say
 * (0 in the specification, 1 "RVA-based" from Microsoft's linker and
 * dlltool); names come from its import name table.
 */
static int pe_delay_dir(struct pe_ctx *c)
{
	char where[128], named[PE_MAX_NAME + 160];
	int rc;

	for (uint64_t i = 0;; i++) {
		uint32_t name, names;
		const char *dll;
		uint64_t off;

		snprintf(where, sizeof(where), "delay-load descriptor %llu", (unsigned long long)i);
		if ((rc = pe_descriptor(c)) ||
		    (rc = pe_map(c, c->delay_imports.rva + (uint64_t)PE_DELAY_DESC * i, PE_DELAY_DESC,
				 &off, NULL, where, "at RVA")))
			return rc;
		name = le32(c->data + off + 4);
		names = le32(c->data + off + 16);
		if (!name)
			return 0;
		snprintf(where, sizeof(where), "delay-load descriptor %llu at 0x%llx",
			 (unsigned long long)i, (unsigned long long)off);
		if ((rc = pe_name(c, name, &dll, where, "name RVA")))
			return rc;
		snprintf(named, sizeof(named), "delay-load descriptor %llu (%s) at 0x%llx",
			 (unsigned long long)i, dll, (unsigned long long)off);
		if (!names)
			return pe_fail(c, "%s: no import name table", named);
		if ((rc = pe_thunks(c, names, dll, true, named)))
			return rc;
	}
}

/* The section table at @off: each section's RVAs, and its raw data inside the file. */
static int pe_sections(struct pe_ctx *c, uint64_t off)
{
	char what[64];
	int rc;

	snprintf(what, sizeof(what), "the section table (%u sections)", c->nsections);
	if ((rc = pe_need(c, off, (uint64_t)c->nsections * PE_SECTION, what)))
		return rc;
	c->sections = calloc(c->nsections ? c->nsections : 1, sizeof(*c->sections));
	if (!c->sections)
		return -ENOMEM;
	for (uint16_t i = 0; i < c->nsections; i++, off += PE_SECTION) {
		struct pe_section *s = &c->sections[i];
		const uint8_t *h = c->data + off;
		uint32_t vsize = le32(h + 8), rawsize = le32(h + 16);

		for (int k = 0; k < 8 && h[k]; k++)
			s->name[k] = h[k] >= 0x20 && h[k] <= 0x7e ? (char)h[k] : '?';
		s->va = le32(h + 12);
		s->raw = le32(h + 20);
		s->span = vsize ? vsize : rawsize;
		s->backed = GPUISO_MIN(s->span, rawsize);
		if (rawsize && (uint64_t)s->raw + rawsize > c->size)
			return pe_fail(c, "section %u \"%s\" at 0x%llx: raw data 0x%x..0x%llx past the end of the file (0x%zx bytes): truncated",
				       i, s->name, (unsigned long long)off, s->raw,
				       (unsigned long long)s->raw + rawsize, c->size);
	}
	return 0;
}

/* The headers: DOS, PE signature, COFF, the PE32+ optional header and its directories. */
static int pe_headers(struct pe_ctx *c)
{
	uint64_t coff, opt;
	uint32_t lfanew, ndirs;
	uint16_t optsize, magic;
	int rc;

	if (c->size < 2 || c->data[0] != 'M' || c->data[1] != 'Z')
		return pe_fail(c, "not a PE image: no MZ signature at 0x0");
	if ((rc = pe_need(c, 0, PE_DOS_HEADER, "the DOS header")))
		return rc;
	lfanew = le32(c->data + 0x3c);
	if ((rc = pe_need(c, lfanew, 4, "the PE signature (e_lfanew)")))
		return rc;
	if (memcmp(c->data + lfanew, "PE\0\0", 4))
		return pe_fail(c, "not a PE image: no PE signature at 0x%x (e_lfanew): an MS-DOS program?",
			       lfanew);
	coff = (uint64_t)lfanew + 4;
	if ((rc = pe_need(c, coff, PE_COFF_HEADER, "the COFF header")))
		return rc;
	c->nsections = le16(c->data + coff + 2);
	optsize = le16(c->data + coff + 16);
	if (c->nsections > PE_MAX_SECTIONS)
		return pe_fail(c, "the COFF header at 0x%llx: %u sections, more than the %u this scan reads: not an image a linker made",
			       (unsigned long long)coff, c->nsections, PE_MAX_SECTIONS);
	opt = coff + PE_COFF_HEADER;
	if (optsize < 2)
		return pe_fail(c, "the COFF header at 0x%llx: no optional header: an object file, not an image",
			       (unsigned long long)coff);
	if ((rc = pe_need(c, opt, 2, "the optional header")))
		return rc;
	magic = le16(c->data + opt);
	if (magic == PE_MAGIC_PE32)
		return pe_fail(c, "a PE32 (32-bit) image (optional header magic 0x10b at 0x%llx): a 64-bit driver (PE32+, 0x20b) is expected",
			       (unsigned long long)opt);
	if (magic != PE_MAGIC_PE32PLUS)
		return pe_fail(c, "the optional header at 0x%llx: magic 0x%x is neither PE32+ (0x20b) nor PE32 (0x10b)",
			       (unsigned long long)opt, magic);
	if (optsize < PE_OPT_FIXED)
		return pe_fail(c, "the optional header at 0x%llx: %u bytes (SizeOfOptionalHeader), fewer than the %u of PE32+ before its data directories",
			       (unsigned long long)opt, optsize, PE_OPT_FIXED);
	if ((rc = pe_need(c, opt, optsize, "the optional header")))
		return rc;
	ndirs = le32(c->data + opt + PE_OPT_NDIRS);
	if (ndirs > (optsize - PE_OPT_FIXED) / 8u)
		return pe_fail(c, "the optional header at 0x%llx: %u data directories do not fit in its %u bytes",
			       (unsigned long long)opt, ndirs, optsize);
	if (ndirs > PE_DIR_IMPORT)
		c->imports = (struct pe_dir){ le32(c->data + opt + PE_OPT_FIXED + 8 * PE_DIR_IMPORT),
					      le32(c->data + opt + PE_OPT_FIXED + 8 * PE_DIR_IMPORT + 4) };
	if (ndirs > PE_DIR_DELAY_IMPORT)
		c->delay_imports = (struct pe_dir){
			le32(c->data + opt + PE_OPT_FIXED + 8 * PE_DIR_DELAY_IMPORT),
			le32(c->data + opt + PE_OPT_FIXED + 8 * PE_DIR_DELAY_IMPORT + 4) };
	return pe_sections(c, opt + optsize);
}

int pe_imports_parse(const char *label, const uint8_t *data, size_t size, struct pe_imports *imp,
		     char *err, size_t errlen)
{
	struct pe_ctx c = { .label = label, .data = data, .size = size, .imp = imp, .err = err,
			    .errlen = errlen };
	int rc;

	memset(imp, 0, sizeof(*imp));
	if (errlen)
		err[0] = '\0';
	rc = pe_headers(&c);
	if (!rc && c.imports.rva)
		rc = pe_import_dir(&c);
	if (!rc && c.delay_imports.rva)
		rc = pe_delay_dir(&c);
	free(c.sections);
	if (rc)
		pe_imports_free(imp); /* a failed constructor leaves nothing */
	return rc;
}

/* The whole file into *@buf (*@len bytes; free it). Return: 0, -EFBIG, -errno. */
static int pe_slurp(int fd, const struct stat *st, uint8_t **buf, size_t *len)
{
	size_t cap = S_ISREG(st->st_mode) && st->st_size > 0
			     ? (size_t)GPUISO_MIN((uint64_t)st->st_size, PE_MAX_BYTES) + 1 : 65536;
	ssize_t n;

	*len = 0;
	if (!(*buf = malloc(cap)))
		return -ENOMEM;
	do {
		if (*len == cap) {
			uint8_t *more;

			if (cap > PE_MAX_BYTES)
				return -EFBIG;
			cap = GPUISO_MIN(2 * cap, (size_t)PE_MAX_BYTES + 1);
			if (!(more = realloc(*buf, cap)))
				return -ENOMEM;
			*buf = more;
		}
		n = read(fd, *buf + *len, cap - *len);
		if (n > 0)
			*len += (size_t)n;
	} while (n > 0 || (n < 0 && errno == EINTR));
	return n < 0 ? -errno : 0;
}

int pe_imports_read(const char *path, struct pe_imports *imp, char *err, size_t errlen)
{
	uint8_t *buf = NULL;
	struct stat st;
	size_t len;
	int fd, rc;

	memset(imp, 0, sizeof(*imp));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(-rc));
		goto close_file;
	}
	/* open() opens a folder for reading; read() then fails with EISDIR, less clearly */
	if (S_ISDIR(st.st_mode)) {
		rc = -EISDIR;
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(EISDIR));
		goto close_file;
	}
	rc = pe_slurp(fd, &st, &buf, &len);
	if (rc == -EFBIG) {
		snprintf(err, errlen, "%s: larger than %u MiB: not a driver image", path,
			 PE_MAX_BYTES >> 20);
		rc = -EINVAL;
	} else if (rc) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(-rc));
	} else {
		rc = pe_imports_parse(path, buf, len, imp, err, errlen);
		if (!rc) {
			imp->owned = buf; /* what the names point into */
			buf = NULL;
		}
	}
	free(buf);
close_file:
	if (fd >= 0)
		close(fd);
	return rc;
}

void pe_imports_free(struct pe_imports *imp)
{
	free(imp->v);
	free(imp->owned);
	memset(imp, 0, sizeof(*imp));
}
