/* SPDX-License-Identifier: MIT */
#ifndef GPUISO_REPLAY_ETL_INTERNAL_H
#define GPUISO_REPLAY_ETL_INTERNAL_H

#include <stdint.h>

/* What the layout walk (etl_file.c) and the reader (etl_read.c) share. */

#define ETL_BUF_HEADER 0x48u      /* WMI_BUFFER_HEADER */
#define ETL_BUF_SAVED_OFFSET 0x04u /* bytes of the buffer in use, its header included */
#define ETL_BUF_CONTEXT 0x28u     /* the processor: a byte, or a u16 index with ETL_BUF_FLAG_PROC_INDEX */
#define ETL_BUF_FLAGS 0x34u
#define ETL_BUF_FLAG_PROC_INDEX 0x0020u

/**
 * etl_le() - a little-endian number.
 * @p: its first byte.
 * @n: its bytes, 1 to 8.
 *
 * Return: the number.
 */
uint64_t etl_le(const uint8_t *p, unsigned int n);

/**
 * etl_record_header() - the header length and size of the record at @p;
 * byte 3 holds the trace-header flags, byte 2 the header kind.
 * @p: the record.
 * @room: bytes left in its buffer's filled part.
 * @hdr: out: its header's length.
 * @size: out: its size, header included.
 *
 * Return: 0, -ENODATA (less than a header's first 8 bytes), -EPROTO (a
 * kind no writer makes), -EBADMSG (no trace header), -EMSGSIZE (a size
 * below its header's or past the buffer's filled bytes).
 */
int etl_record_header(const uint8_t *p, uint64_t room, uint32_t *hdr, uint32_t *size);

#endif
