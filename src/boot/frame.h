/*
 * frame.h - a byte payload framed over a console that kernel messages may
 * interleave with or cut into (docs/kernel-guest.md, "Framing").
 *
 * The writer turns a payload into text lines:
 *
 *	PBF1 BEGIN <len> <payload crc> <line crc>
 *	PBF1 <seq> <line crc> <base64 of 48 payload bytes>	(seq 0, 1, ...)
 *	PBF1 END <chunks> <line crc>
 *
 * crc: CRC-32 (zlib's, IEEE 802.3) in 8 lowercase hex digits; a line's
 * crc covers the text after "PBF1 " up to the blank before the crc (the
 * BEGIN and END lines), or the "<seq> <base64>" text (the data lines,
 * whose crc comes first so that a line cut short fails it).
 *
 * The parser takes the console's bytes as they come, in chunks of any
 * size (one byte at a time gives what all at once gives).  It finds
 * "PBF1 " anywhere in a line (after a printk prefix, say), ignores every
 * other line, rejects a frame line whose crc does not match (counted),
 * accepts duplicates, and hands the payload over only when every chunk
 * arrived and the payload's crc matches.  Memory is bounded: a payload
 * larger than the cap given to frame_parser_init() is refused, and a
 * console line longer than FRAME_LINE_MAX keeps only its tail.
 *
 * Ownership: the parser owns its buffers until frame_parser_take() hands
 * the payload over (the caller frees it).  Threading: one owner.
 */
#ifndef PERFBOT_BOOT_FRAME_H
#define PERFBOT_BOOT_FRAME_H

#include "util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FRAME_MAGIC "PBF1 "
#define FRAME_CHUNK 48			/* payload bytes per data line */
#define FRAME_LINE_MAX 4096		/* a longer console line keeps its tail */
#define FRAME_PAYLOAD_MAX (64u << 20)	/* the default cap: exec's output cap */

/* CRC-32 as zlib's crc32(crc, buf, len), starting from crc = 0. */
uint32_t frame_crc32(uint32_t crc, const void *buf, size_t len);

/* Append the framed payload to out; 0 or the buffer's error (-ENOMEM). */
int frame_write(struct strbuf *out, const void *payload, size_t len);

struct frame_parser {
	size_t cap;			/* the largest payload accepted */
	struct strbuf line;		/* the console line being read */
	/* the frame being assembled (after a BEGIN) */
	bool begun;
	size_t len;			/* announced payload length */
	uint32_t crc;			/* announced payload crc */
	size_t nchunks, have;		/* chunks announced, received */
	unsigned char *payload;		/* len bytes */
	unsigned char *got;		/* nchunks flags */
	bool ended;			/* an END line was read */
	bool done;			/* payload whole and checked */
	/* what went wrong, for frame_parser_status() */
	size_t rejected;		/* frame lines with a bad crc or shape */
	size_t too_large;		/* BEGINs over the cap */
	size_t bad_payload;		/* frames whole but with a bad crc */
	size_t announced_too_large;	/* the last such length */
};

void frame_parser_init(struct frame_parser *p, size_t cap);
void frame_parser_release(struct frame_parser *p);

/*
 * Parse the next bytes of the console.  1 when a payload is whole (take
 * it with frame_parser_take(); the rest of buf is not parsed), 0 when more
 * is needed, -ENOMEM.  *used (may be NULL) gets the bytes consumed.
 */
int frame_parser_feed(struct frame_parser *p, const void *buf, size_t len,
		      size_t *used);
/* The end of the stream: a last line without its newline is parsed. */
int frame_parser_finish(struct frame_parser *p);

/*
 * After feed() returned 1: the payload (malloc'd, NUL-terminated beyond
 * *len, the caller's) -- the parser is ready for another frame.
 */
unsigned char *frame_parser_take(struct frame_parser *p, size_t *len);

/*
 * Why no payload came: "no frame found", "frame of N bytes: M of K
 * chunks missing (R damaged lines)", ...; into why.
 */
void frame_parser_status(const struct frame_parser *p, struct strbuf *why);

#endif
