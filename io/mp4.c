/* mp4.c — the fragmented-MP4 writer of mp4.h. Box layouts follow ISO/IEC 14496-12 (section numbers
 * below) and, for avcC, ISO/IEC 14496-15 §5.3.3.1. Every integer is big-endian and goes through the
 * put_* helpers of one growable buffer; a box is opened with box_open (size patched by box_close). */
#define _POSIX_C_SOURCE 200809L /* ftruncate */
#include "mp4.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* ------------------------------------------------------------------ big-endian boxes in a buffer */

typedef struct {
  unsigned char *b;
  size_t n, cap;
  int oom; /* a growth failed: everything after is dropped, checked once at the end */
} buf_t;

static void put_bytes(buf_t *o, const void *p, size_t n) {
  if (o->oom) return;
  if (o->n + n > o->cap) {
    size_t cap = o->cap ? o->cap : 4096;
    while (cap < o->n + n) cap *= 2;
    unsigned char *b = realloc(o->b, cap);
    if (!b) { o->oom = 1; return; }
    o->b = b, o->cap = cap;
  }
  memcpy(o->b + o->n, p, n);
  o->n += n;
}
static void put_u8(buf_t *o, unsigned v) { unsigned char c = (unsigned char)v; put_bytes(o, &c, 1); }
static void put_u16(buf_t *o, unsigned v) { put_u8(o, v >> 8), put_u8(o, v); }
static void put_u32(buf_t *o, uint32_t v) { put_u16(o, v >> 16), put_u16(o, v & 0xffff); }
static void put_u64(buf_t *o, uint64_t v) { put_u32(o, (uint32_t)(v >> 32)), put_u32(o, (uint32_t)v); }
static void put_zeros(buf_t *o, size_t n) { while (n--) put_u8(o, 0); }
static void put_4cc(buf_t *o, const char *t) { put_bytes(o, t, 4); }

/* Start a box (its size written by box_close); the offset to hand to box_close. */
static size_t box_open(buf_t *o, const char *type) {
  size_t at = o->n;
  put_u32(o, 0), put_4cc(o, type);
  return at;
}
/* A "full box" (§4.2): version and 24 bits of flags after the type. */
static size_t fullbox_open(buf_t *o, const char *type, unsigned version, uint32_t flags) {
  size_t at = box_open(o, type);
  put_u32(o, (uint32_t)version << 24 | (flags & 0xffffff));
  return at;
}
static void box_close(buf_t *o, size_t at) {
  if (o->oom) return;
  uint32_t s = (uint32_t)(o->n - at);
  unsigned char be[4] = {(unsigned char)(s >> 24), (unsigned char)(s >> 16), (unsigned char)(s >> 8), (unsigned char)s};
  memcpy(o->b + at, be, 4);
}

/* The unity transformation matrix of mvhd and tkhd (§8.2.2: 16.16 and 2.30 fixed point). */
static void put_matrix(buf_t *o) {
  static const uint32_t m[9] = {0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000};
  for (int i = 0; i < 9; ++i) put_u32(o, m[i]);
}

/* ------------------------------------------------------------------ the writer */

struct vx_mp4 {
  int fd;
  char name[512];
  uint32_t timescale, frame_ticks; /* ticks per second and per frame: fps = timescale / frame_ticks */
  buf_t data;                      /* the pending fragment's samples (its mdat payload) */
  uint32_t *size;                  /* the pending samples' sizes ... */
  unsigned char *key;              /* ... and whether each is a keyframe */
  int nsamples, cap;
  uint32_t sequence;               /* fragments written (mfhd's sequence number counts from 1) */
  long long done;                  /* samples in the fragments written */
  off_t end;                       /* bytes in the file's complete boxes */
};

static int write_all(vx_mp4 *m, const unsigned char *b, size_t n, char *err, size_t errlen) {
  while (n > 0) {
    ssize_t k = write(m->fd, b, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      snprintf(err, errlen, "write to %s failed (%s)", m->name, k < 0 ? strerror(errno) : "nothing written");
      return -1;
    }
    b += k;
    n -= (size_t)k;
  }
  return 0;
}

/* ftyp (§4.3): ISO base media with the fragment boxes (iso6), H.264 (avc1), MP4 (mp41). */
static void put_ftyp(buf_t *o) {
  size_t at = box_open(o, "ftyp");
  put_4cc(o, "isom"), put_u32(o, 0x200);
  put_4cc(o, "isom"), put_4cc(o, "iso6"), put_4cc(o, "avc1"), put_4cc(o, "mp41");
  box_close(o, at);
}

/* avc1 sample entry (14496-15 §5.4.2, on VisualSampleEntry of -12 §12.1.3) with its avcC. High
 * profiles (100 and up) carry chroma format and bit depths after the parameter sets (§5.3.3.1.2):
 * 4:2:0, 8 bits, what the encoder is given. */
static void put_avc1(buf_t *o, int w, int h, const unsigned char *sps, size_t sps_len, const unsigned char *pps,
                     size_t pps_len) {
  size_t at = box_open(o, "avc1");
  put_zeros(o, 6), put_u16(o, 1);          /* reserved, data_reference_index */
  put_zeros(o, 16);                        /* pre_defined, reserved */
  put_u16(o, (unsigned)w), put_u16(o, (unsigned)h);
  put_u32(o, 0x00480000), put_u32(o, 0x00480000); /* 72 dpi */
  put_u32(o, 0), put_u16(o, 1);            /* reserved, frame_count */
  put_zeros(o, 32);                        /* compressorname */
  put_u16(o, 0x0018), put_u16(o, 0xffff);  /* depth, pre_defined = -1 */
  size_t c = box_open(o, "avcC");
  put_u8(o, 1), put_u8(o, sps[1]), put_u8(o, sps[2]), put_u8(o, sps[3]); /* version, profile, compat, level */
  put_u8(o, 0xfc | 3), put_u8(o, 0xe0 | 1); /* NAL length size 4; one SPS */
  put_u16(o, (unsigned)sps_len), put_bytes(o, sps, sps_len);
  put_u8(o, 1), put_u16(o, (unsigned)pps_len), put_bytes(o, pps, pps_len);
  if (sps[1] == 100 || sps[1] == 110 || sps[1] == 122 || sps[1] == 144)
    put_u8(o, 0xfc | 1), put_u8(o, 0xf8), put_u8(o, 0xf8), put_u8(o, 0);
  box_close(o, c);
  box_close(o, at);
}

/* stbl (§8.5.1): the sample description, and sample tables left empty (the samples are in the
 * fragments). */
static void put_stbl(buf_t *o, int w, int h, const unsigned char *sps, size_t sps_len, const unsigned char *pps,
                     size_t pps_len) {
  size_t at = box_open(o, "stbl");
  size_t d = fullbox_open(o, "stsd", 0, 0);
  put_u32(o, 1);
  put_avc1(o, w, h, sps, sps_len, pps, pps_len);
  box_close(o, d);
  static const char *empty[] = {"stts", "stsc", "stco"};
  for (int i = 0; i < 3; ++i) {
    size_t e = fullbox_open(o, empty[i], 0, 0);
    put_u32(o, 0);
    box_close(o, e);
  }
  size_t z = fullbox_open(o, "stsz", 0, 0);
  put_u32(o, 0), put_u32(o, 0);
  box_close(o, z);
  box_close(o, at);
}

/* mdia (§8.4): media header, handler 'vide', and minf (vmhd, dinf with a self-contained dref, stbl). */
static void put_mdia(buf_t *o, const vx_mp4 *m, int w, int h, const unsigned char *sps, size_t sps_len,
                     const unsigned char *pps, size_t pps_len) {
  size_t at = box_open(o, "mdia");
  size_t b = fullbox_open(o, "mdhd", 0, 0);
  put_u32(o, 0), put_u32(o, 0), put_u32(o, m->timescale), put_u32(o, 0); /* times, timescale, duration */
  put_u16(o, 0x55c4), put_u16(o, 0);                                     /* language "und" */
  box_close(o, b);
  b = fullbox_open(o, "hdlr", 0, 0);
  put_u32(o, 0), put_4cc(o, "vide"), put_zeros(o, 12), put_bytes(o, "VideoHandler", 13);
  box_close(o, b);
  size_t minf = box_open(o, "minf");
  b = fullbox_open(o, "vmhd", 0, 1);
  put_zeros(o, 8); /* graphicsmode, opcolor */
  box_close(o, b);
  size_t dinf = box_open(o, "dinf"), dref = fullbox_open(o, "dref", 0, 0);
  put_u32(o, 1);
  box_close(o, fullbox_open(o, "url ", 0, 1)); /* flag 1: the data is in this file */
  box_close(o, dref);
  box_close(o, dinf);
  put_stbl(o, w, h, sps, sps_len, pps, pps_len);
  box_close(o, minf);
  box_close(o, at);
}

/* moov (§8.2): movie and track headers with zero duration (fragments follow: mvex, §8.8.1). */
static void put_moov(buf_t *o, const vx_mp4 *m, int w, int h, const unsigned char *sps, size_t sps_len,
                     const unsigned char *pps, size_t pps_len) {
  size_t moov = box_open(o, "moov");
  size_t b = fullbox_open(o, "mvhd", 0, 0);
  put_u32(o, 0), put_u32(o, 0), put_u32(o, 1000), put_u32(o, 0); /* times, timescale, duration */
  put_u32(o, 0x00010000), put_u16(o, 0x0100), put_zeros(o, 10);  /* rate 1.0, volume 1.0 */
  put_matrix(o), put_zeros(o, 24), put_u32(o, 2);                /* next_track_ID */
  box_close(o, b);
  size_t trak = box_open(o, "trak");
  b = fullbox_open(o, "tkhd", 0, 3); /* enabled, in movie */
  put_u32(o, 0), put_u32(o, 0), put_u32(o, 1), put_u32(o, 0), put_u32(o, 0); /* times, track 1, -, duration */
  put_zeros(o, 8), put_u16(o, 0), put_u16(o, 0), put_u16(o, 0), put_u16(o, 0); /* layer, group, volume */
  put_matrix(o), put_u32(o, (uint32_t)w << 16), put_u32(o, (uint32_t)h << 16);
  box_close(o, b);
  put_mdia(o, m, w, h, sps, sps_len, pps, pps_len);
  box_close(o, trak);
  size_t mvex = box_open(o, "mvex");
  b = fullbox_open(o, "trex", 0, 0);
  put_u32(o, 1), put_u32(o, 1), put_u32(o, 0), put_u32(o, 0), put_u32(o, 0); /* track, description 1, defaults */
  box_close(o, b);
  box_close(o, mvex);
  box_close(o, moov);
}

vx_mp4 *vx_mp4_open(int fd, const char *name, int width, int height, double fps, const unsigned char *sps,
                    size_t sps_len, const unsigned char *pps, size_t pps_len, char *err, size_t errlen) {
  if (sps_len < 4 || sps_len > 0xffff || pps_len < 1 || pps_len > 0xffff || width < 1 || width > 0xffff ||
      height < 1 || height > 0xffff || !(fps > 0) || fps > 1e6) {
    snprintf(err, errlen, "cannot write %s: bad video parameters (%dx%d, %g fps, SPS %zu B, PPS %zu B)", name, width,
             height, fps, sps_len, pps_len);
    return NULL;
  }
  vx_mp4 *m = calloc(1, sizeof *m);
  if (!m) { snprintf(err, errlen, "out of host memory"); return NULL; }
  m->fd = fd;
  snprintf(m->name, sizeof m->name, "%s", name);
  /* milliframes: 30 fps -> 30000 / 1000, 29.97 -> 29970 / 1000, exact for rates given to 1e-3 */
  double ts = floor(fps * 1000.0 + 0.5);
  m->timescale = ts < 1 ? 1 : (uint32_t)ts;
  m->frame_ticks = 1000;
  buf_t o = {0};
  put_ftyp(&o);
  put_moov(&o, m, width, height, sps, sps_len, pps, pps_len);
  int rc = -1;
  if (o.oom) snprintf(err, errlen, "out of host memory");
  else rc = write_all(m, o.b, o.n, err, errlen);
  m->end = (off_t)o.n;
  free(o.b);
  if (rc) { vx_mp4_destroy(m); return NULL; }
  return m;
}

/* moof (§8.8.4) for the pending samples, then the mdat header: tfhd with the moof as base of the
 * data offsets (default-base-is-moof), tfdt with the decode time of the first sample, trun with
 * each sample's duration, size and flags (§8.8.3.1: a keyframe depends on nothing; the others
 * depend on earlier ones and are not sync samples). */
static void put_moof(buf_t *o, const vx_mp4 *m) {
  size_t moof = box_open(o, "moof");
  size_t b = fullbox_open(o, "mfhd", 0, 0);
  put_u32(o, m->sequence + 1);
  box_close(o, b);
  size_t traf = box_open(o, "traf");
  b = fullbox_open(o, "tfhd", 0, 0x020000);
  put_u32(o, 1);
  box_close(o, b);
  b = fullbox_open(o, "tfdt", 1, 0);
  put_u64(o, (uint64_t)m->done * m->frame_ticks);
  box_close(o, b);
  b = fullbox_open(o, "trun", 0, 0x000001 | 0x000100 | 0x000200 | 0x000400);
  put_u32(o, (uint32_t)m->nsamples);
  size_t offset_at = o->n;
  put_u32(o, 0); /* data_offset, set below once the moof's size is known */
  for (int i = 0; i < m->nsamples; ++i)
    put_u32(o, m->frame_ticks), put_u32(o, m->size[i]), put_u32(o, m->key[i] ? 0x02000000 : 0x01010000);
  box_close(o, b);
  box_close(o, traf);
  box_close(o, moof);
  uint32_t data_offset = (uint32_t)(o->n - moof) + 8; /* past the moof and the mdat header */
  if (!o->oom)
    for (int k = 0; k < 4; ++k) o->b[offset_at + k] = (unsigned char)(data_offset >> (24 - 8 * k));
  put_u32(o, (uint32_t)(m->data.n + 8)), put_4cc(o, "mdat");
}

int vx_mp4_flush(vx_mp4 *m, char *err, size_t errlen) {
  if (m->nsamples == 0) return 0;
  if (m->data.n > UINT32_MAX - 8) {
    snprintf(err, errlen, "cannot write %s: a fragment of %zu bytes (over 4 GiB)", m->name, m->data.n);
    return -1;
  }
  buf_t head = {0};
  put_moof(&head, m);
  int rc = -1;
  if (head.oom || m->data.oom) snprintf(err, errlen, "out of host memory");
  else if (!write_all(m, head.b, head.n, err, errlen) && !write_all(m, m->data.b, m->data.n, err, errlen)) rc = 0;
  off_t bytes = (off_t)(head.n + m->data.n);
  free(head.b);
  /* a fragment cut short (full disk) is taken off again, so that the file ends with a whole one
   * and plays without errors */
  if (rc && ftruncate(m->fd, m->end) != 0) {
    /* a device or a FIFO: nothing to take off */
  }
  if (rc) return -1;
  m->end += bytes;
  m->sequence++;
  m->done += m->nsamples;
  m->nsamples = 0;
  m->data.n = 0;
  return 0;
}

int vx_mp4_sample(vx_mp4 *m, const unsigned char *au, size_t len, int keyframe, char *err, size_t errlen) {
  if (m->nsamples == 0 && m->done == 0 && !keyframe) {
    snprintf(err, errlen, "cannot write %s: the first frame is not a keyframe", m->name);
    return -1;
  }
  if (len > UINT32_MAX) { snprintf(err, errlen, "cannot write %s: a frame of %zu bytes", m->name, len); return -1; }
  if (keyframe && vx_mp4_flush(m, err, errlen)) return -1;
  if (m->nsamples == m->cap) {
    int cap = m->cap ? 2 * m->cap : 64;
    uint32_t *size = realloc(m->size, (size_t)cap * sizeof *size);
    if (size) m->size = size;
    unsigned char *key = size ? realloc(m->key, (size_t)cap) : NULL;
    if (!key) { snprintf(err, errlen, "out of host memory"); return -1; }
    m->key = key, m->cap = cap;
  }
  put_bytes(&m->data, au, len);
  if (m->data.oom) { snprintf(err, errlen, "out of host memory"); return -1; }
  m->size[m->nsamples] = (uint32_t)len;
  m->key[m->nsamples++] = (unsigned char)(keyframe != 0);
  return 0;
}

long long vx_mp4_frames_written(const vx_mp4 *m) { return m ? m->done : 0; }

void vx_mp4_destroy(vx_mp4 *m) {
  if (!m) return;
  free(m->data.b);
  free(m->size);
  free(m->key);
  free(m);
}
