#!/usr/bin/env python3
"""pngcheck.py PNG [--min-colours N]: exit 0 when the picture is not blank.

Not blank: at least N distinct colours (default 4) and more than 1% of the
pixels differ from the most common colour (a white page with a one-pixel
line is blank; a page of text and a plot is not).  Otherwise, or when the
file is no PNG this can read, it prints why and exits 1.

No PIL on the test machines: the PNG is decoded by hand with zlib -- the
chunks, the five row filters (0-4), 8-bit RGB or RGBA, not interlaced
(what Chromium's --screenshot writes).  Alpha is ignored: the colour is
the RGB triple.
"""
import argparse
import collections
import struct
import sys
import zlib


class PngError(Exception):
    pass


def up(line, prev, stride):
    """filter 2, a whole row at once: bytewise sums without carries across
    bytes (SWAR on Python's big ints) -- a byte loop takes ~1 s for a
    1200x2000 screenshot, where most rows are Up, this ~0.05 s"""
    a = int.from_bytes(line, "big")
    b = int.from_bytes(prev, "big")
    low = int.from_bytes(b"\x7f" * stride, "big")
    s = ((a & low) + (b & low)) ^ ((a ^ b) & ~low)
    return bytearray(s.to_bytes(stride, "big"))


def decode(data):
    """(width, height, rows of RGB(A) bytes, bytes per pixel)"""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise PngError("not a PNG (no signature)")
    pos, idat, ihdr = 8, [], None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if len(body) != n:
            raise PngError("truncated %s chunk" % kind.decode("latin-1"))
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + n
    if ihdr is None:
        raise PngError("no IHDR chunk")
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace != 0:
        raise PngError("unsupported PNG: bit depth %d, colour type %d, interlace %d "
                       "(only 8-bit RGB/RGBA, not interlaced)" % (depth, ctype, interlace))
    if w == 0 or h == 0:
        raise PngError("empty picture (%dx%d)" % (w, h))
    try:
        raw = zlib.decompress(b"".join(idat))
    except zlib.error as e:
        raise PngError("image data does not inflate: %s" % e)
    bpp = 3 if ctype == 2 else 4
    stride = w * bpp
    if len(raw) < h * (1 + stride):
        raise PngError("image data too short: %d bytes for %dx%d" % (len(raw), w, h))
    prev, rows = bytearray(stride), []
    for y in range(h):
        i = y * (1 + stride)
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        if f == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 255
        elif f == 2:
            line = up(line, prev, stride)
        elif f == 3:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + (a + prev[x]) // 2) & 255
        elif f == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b = prev[x]
                c = prev[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif f != 0:
            raise PngError("row %d: unknown filter type %d" % (y, f))
        rows.append(bytes(line))
        prev = line
    return w, h, rows, bpp


def main():
    ap = argparse.ArgumentParser(description="exit 0 when a PNG is not blank")
    ap.add_argument("png")
    ap.add_argument("--min-colours", type=int, default=4, metavar="N")
    a = ap.parse_args()
    try:
        with open(a.png, "rb") as f:
            w, h, rows, bpp = decode(f.read())
    except (OSError, PngError) as e:
        print("%s: %s" % (a.png, e))
        return 1
    counts = collections.Counter()
    for line in rows:
        if line == line[:bpp] * w:          # one colour: most rows of a page
            counts[line[:3]] += w
        else:
            counts.update(line[x:x + 3] for x in range(0, len(line), bpp))
    common, n_common = counts.most_common(1)[0]
    other = 1 - n_common / (w * h)
    why = []
    if len(counts) < a.min_colours:
        why.append("%d distinct colours (fewer than %d)" % (len(counts), a.min_colours))
    if other <= 0.01:
        why.append("only %.2f%% of the pixels differ from the most common colour #%s"
                   % (100 * other, common.hex()))
    if why:
        print("%s: blank (%dx%d): %s" % (a.png, w, h, "; ".join(why)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
