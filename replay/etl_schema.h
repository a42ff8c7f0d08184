/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_ETL_SCHEMA_H
#define GPUISO_REPLAY_ETL_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

/*
 * What the events of a manifest-based ETW provider hold: per event id,
 * version, task and opcode, its name and its payload's fields in order.
 * ETW writes a payload packed, without padding, in its template's order;
 * an event's record does not say what its fields are, its provider's
 * manifest does. The tables are generated from manifests (tools/etw-table;
 * docs/trace-events.md, "Windows event traces", says which).
 */

/* A field's type: its manifest inType, as it is stored. */
enum etl_type {
	ETL_U8, ETL_I8, ETL_U16, ETL_I16, ETL_U32, ETL_I32, ETL_U64, ETL_I64,
	ETL_PTR,      /* win:Pointer: 8 bytes in an EVENT_HEADER64 record, 4 in a 32 */
	ETL_BOOL,     /* win:Boolean: 4 bytes */
	ETL_F32, ETL_F64,
	ETL_GUID,     /* 16 bytes */
	ETL_FILETIME, /* 8 bytes */
	ETL_SYSTEMTIME, /* 16 bytes */
	ETL_WSTR,     /* UTF-16: NUL-terminated, or of @count_of (or @count) code units */
	ETL_ASTR,     /* bytes: NUL-terminated, or of @count_of (or @count) bytes */
	ETL_BINARY,   /* bytes: @count_of (or @count) of them */
	ETL_SID,      /* a SID: 8 bytes then 4 per sub-authority (its byte 1) */
};

/* One field of a payload. */
struct etl_field {
	const char *name;
	uint8_t type;         /* enum etl_type */
	int8_t count_of;      /* an earlier field (its index) holding the elements' count (the
			       * bytes', code units' for strings); -1: @count says it */
	uint16_t count;       /* elements when @count_of is -1: 1 for a scalar, 0 for a
			       * NUL-terminated string */
};

/* One event of a provider, at one version. */
struct etl_event_desc {
	uint16_t id;
	uint8_t version;
	uint8_t opcode;
	uint16_t task;
	const char *name;     /* "TASK" (opcode win:Info) or "TASK/OPCODE", as manifests name them */
	const char *symbol;   /* the manifest's symbol for it ("AdapterAllocationStart_V3") */
	uint8_t nfields;
	uint8_t nrequired;    /* fields every build writes; the others were appended later
			       * without a version change, and a payload may end before them */
	const struct etl_field *fields;
};

/* A provider whose manifest gpuiso knows. */
struct etl_provider {
	uint8_t guid[16];     /* as ETW stores it: Data1, Data2, Data3 little-endian */
	const char *name;     /* "Microsoft-Windows-DxgKrnl" */
	const struct etl_event_desc *events; /* by id, then version */
	size_t nevents;
};

/* The providers gpuiso knows (etl_dxgkrnl.c, generated). */
extern const struct etl_provider etl_dxgkrnl;

#endif
