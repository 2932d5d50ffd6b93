import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib'
import { DIMENSION_NAMES, type Dimension, type Profile } from './stats.dimensions.js'
import { blockVisits, type BlockColumns } from './visit-columns.js'

/*
 * A compacted click block (`click_blocks.packed`, ADR 0014): a link's visits of one hour, or of one UTC
 * day once a week old, columnar and compressed. Byte 0 is the format (PACKED_BROTLI); the rest is the
 * payload below, compressed with brotli. Every number is an unsigned LEB128 varint (`at` values and
 * lengths exceed 32 bits, so no bitwise arithmetic on them):
 *
 *   visits n, dimensions k (the first k of DIMENSIONS: entries are only ever appended), strings s,
 *   s × (UTF-8 length, bytes), profiles p, p × flags (bot 1, QR 2),
 *   k columns of p × (string index + 1, 0 for none),
 *   the first visit's time, then n - 1 × the gap to the previous visit (visits are in time order),
 *   n × profile index.
 *
 * Columns keep like bytes together (gaps with gaps, profile numbers with profile numbers), which is
 * what the compressor feeds on; the gaps of a steady link take two bytes or so, its profile numbers
 * less than one, and the strings are paid once per row instead of once per 30 s.
 */

/** The first byte of a packed block: the payload, brotli-compressed. */
const PACKED_BROTLI = 1

/** Visits decoded column by column: `at` in time order, `profile` an index into `profiles`. */
export interface DecodedVisits {
  readonly at: readonly number[]
  readonly profile: readonly number[]
  readonly profiles: readonly Profile[]
}

const BOT = 1
const QR = 2

/**
 * The payload being encoded. One is reused by every packVisits call (synchronous, so never two at
 * once): the compaction packs thousands of link-hours in a row, and each buffer of its own would wait
 * in the thread's malloc arena for a garbage collection that V8's external-memory heuristics put off
 * (docs/performance.md, "Memory and sizing").
 */
class Writer {
  #bytes = new Uint8Array(SCRATCH_BYTES)
  length = 0

  /** Empties it, letting go of a buffer grown past SCRATCH_BYTES by a large row. */
  reset(): void {
    this.length = 0
    if (this.#bytes.length > SCRATCH_BYTES) this.#bytes = new Uint8Array(SCRATCH_BYTES)
  }

  #room(n: number): void {
    if (this.length + n <= this.#bytes.length) return
    const next = new Uint8Array(Math.max(this.#bytes.length * 2, this.length + n))
    next.set(this.#bytes.subarray(0, this.length))
    this.#bytes = next
  }

  varint(value: number): void {
    this.#room(8)
    let v = value
    while (v >= 0x80) {
      this.#bytes[this.length++] = (v % 0x80) | 0x80
      v = Math.floor(v / 0x80)
    }
    this.#bytes[this.length++] = v
  }

  /** The string's UTF-8 length, then its bytes, encoded in place (no buffer of its own). */
  text(s: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: the bytes go after room for that length's varint,
    // and move back if the actual length's varint is shorter.
    const reserved = varintLength(s.length * 3)
    // (+ 8: varint() below then never moves the buffer, leaving the bytes behind.)
    this.#room(reserved + s.length * 3 + 8)
    const start = this.length
    const { written } = encoder.encodeInto(s, this.#bytes.subarray(start + reserved))
    this.varint(written)
    this.#bytes.copyWithin(this.length, start + reserved, start + reserved + written)
    this.length += written
  }

  get result(): Uint8Array {
    return this.#bytes.subarray(0, this.length)
  }
}

/** The scratch payload's size, kept between calls: an hour's row of a busy link fits. */
const SCRATCH_BYTES = 64 * 1024
const varintLength = (value: number) => Math.max(1, Math.ceil(Math.log2(value + 1) / 7))

class Reader {
  at = 0
  constructor(readonly bytes: Uint8Array) {}

  varint(): number {
    let value = 0
    let scale = 1
    for (;;) {
      const b = this.bytes[this.at++]
      if (b === undefined) throw new Error('packed click block: truncated')
      value += (b & 0x7f) * scale
      if (b < 0x80) return value
      scale *= 0x80
    }
  }

  text(n: number): string {
    const s = decoder.decode(this.bytes.subarray(this.at, this.at + n))
    this.at += n
    return s
  }
}
const encoder = new TextEncoder()
const decoder = new TextDecoder()
const scratch = new Writer()
/** zlib's smallest output chunk. */
const MIN_CHUNK = 64

/** Encodes visits (in time order) and their profiles as a packed block. */
export function packVisits(visits: DecodedVisits): Uint8Array {
  const { at, profile, profiles } = visits
  const strings = new Map<string, number>()
  const idOf = (s: string | null) => {
    if (s === null) return 0
    let id = strings.get(s)
    if (id === undefined) strings.set(s, (id = strings.size))
    return id + 1
  }
  const columns = DIMENSION_NAMES.map((d) => profiles.map((p) => idOf(p[d])))
  const w = scratch
  w.reset()
  w.varint(at.length)
  w.varint(DIMENSION_NAMES.length)
  w.varint(strings.size)
  for (const s of strings.keys()) w.text(s)
  w.varint(profiles.length)
  for (const p of profiles) w.varint((p.bot ? BOT : 0) | (p.qr ? QR : 0))
  for (const column of columns) for (const id of column) w.varint(id)
  for (let i = 0; i < at.length; i++) w.varint(i === 0 ? (at[0] as number) : (at[i] as number) - (at[i - 1] as number))
  for (const p of profile) w.varint(p)
  // A window no larger than the payload: brotli's default (4 MB) costs ~6 ms to set up, 100 times the
  // compression of an hour's row; the bytes come out the same.
  const window = Math.min(24, Math.max(16, Math.ceil(Math.log2(w.length + 1))))
  // An output buffer the payload's size (brotli's output is at most a few bytes larger) instead of
  // zlib's 16 KB default, which the compressed row, a few KB, would leave mostly unused until collected.
  const compressed = brotliCompressSync(w.result, {
    chunkSize: Math.max(MIN_CHUNK, w.length + 64),
    params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_LGWIN]: window, [constants.BROTLI_PARAM_SIZE_HINT]: w.length },
  })
  const out = new Uint8Array(compressed.length + 1)
  out[0] = PACKED_BROTLI
  out.set(compressed, 1)
  return out
}

/** The visits of a packed block. */
export function unpackVisits(packed: Uint8Array): DecodedVisits {
  if (packed[0] !== PACKED_BROTLI) throw new Error(`packed click block: unknown format ${packed[0]}`)
  // An hour's row inflates ~4.5×, a day's up to ~30×: sized for the former, with zlib's 16 KB as the
  // cap (larger payloads take several chunks, as with the default).
  const chunkSize = Math.min(16 * 1024, Math.max(1024, packed.length * 8))
  const r = new Reader(brotliDecompressSync(packed.subarray(1), { chunkSize }))
  const n = r.varint()
  const k = r.varint()
  const strings: string[] = []
  for (let s = r.varint(); s > 0; s--) strings.push(r.text(r.varint()))
  const p = r.varint()
  const profiles: { -readonly [K in keyof Profile]: Profile[K] }[] = []
  for (let i = 0; i < p; i++) {
    const flags = r.varint()
    profiles.push({ ...NONE, bot: (flags & BOT) !== 0, qr: (flags & QR) !== 0 })
  }
  for (let d = 0; d < k; d++) {
    // A dimension this release does not know (written by a later one) is read and left out.
    const name = DIMENSION_NAMES[d] as Dimension | undefined
    for (const profile of profiles) {
      const id = r.varint()
      if (name !== undefined) profile[name] = id === 0 ? null : (strings[id - 1] as string)
    }
  }
  const at: number[] = new Array<number>(n)
  for (let i = 0, t = 0; i < n; i++) at[i] = t += r.varint()
  const profile: number[] = new Array<number>(n)
  for (let i = 0; i < n; i++) profile[i] = r.varint()
  return { at, profile, profiles }
}

const NONE = Object.fromEntries(DIMENSION_NAMES.map((d) => [d, null])) as Record<Dimension, null>

/** The visits of a click block as the roll-up writes it (JSON, `click_blocks.data`), decoded the same way. */
export function rawVisits(data: string): DecodedVisits {
  const at: number[] = []
  const profile: number[] = []
  const profiles: Profile[] = []
  // blockVisits spreads each visit's profile into a new object: profiles are numbered by their key instead.
  const keys = new Map<string, number>()
  for (const v of blockVisits(JSON.parse(data) as BlockColumns)) {
    const { at: time, ...p } = v
    const key = profileKey(p)
    let id = keys.get(key)
    if (id === undefined) {
      id = profiles.push(p) - 1
      keys.set(key, id)
    }
    at.push(time)
    profile.push(id)
  }
  return { at, profile, profiles }
}

/** The visits of a click block row, either form. */
export function blockRowVisits(row: { data: string; packed?: Uint8Array | null }): DecodedVisits {
  return row.packed === null || row.packed === undefined ? rawVisits(row.data) : unpackVisits(row.packed)
}

const profileKey = (p: Profile) => `${p.bot ? 1 : 0}${p.qr ? 1 : 0}${DIMENSION_NAMES.map((d) => `\t${p[d] ?? '\u0000'}`).join('')}`

/**
 * Several blocks' visits as one, in time order; visits of the same millisecond keep the order of the
 * blocks given (the export's order: blocks by (start_at, id), a stable sort by time).
 */
export function mergeVisits(blocks: readonly DecodedVisits[]): DecodedVisits {
  const profiles: Profile[] = []
  const keys = new Map<string, number>()
  const at: number[] = []
  const profile: number[] = []
  let ordered = true
  for (const b of blocks) {
    const local = b.profiles.map((p) => {
      const key = profileKey(p)
      let id = keys.get(key)
      if (id === undefined) {
        id = profiles.push(p) - 1
        keys.set(key, id)
      }
      return id
    })
    for (let i = 0; i < b.at.length; i++) {
      const t = b.at[i] as number
      if (at.length > 0 && t < (at[at.length - 1] as number)) ordered = false
      at.push(t)
      profile.push(local[b.profile[i] as number] as number)
    }
  }
  if (ordered) return { at, profile, profiles }
  // Array.prototype.sort is stable: equal times keep the blocks' order.
  const order = Array.from(at.keys()).sort((x, y) => (at[x] as number) - (at[y] as number))
  return { at: order.map((i) => at[i] as number), profile: order.map((i) => profile[i] as number), profiles }
}

/** Visits [from, to) of `visits` (by position), with only the profiles they use. */
export function sliceVisits(visits: DecodedVisits, from: number, to: number): DecodedVisits {
  const local = new Map<number, number>()
  const profiles: Profile[] = []
  const profile = visits.profile.slice(from, to).map((p) => {
    let id = local.get(p)
    if (id === undefined) {
      id = profiles.push(visits.profiles[p] as Profile) - 1
      local.set(p, id)
    }
    return id
  })
  return { at: visits.at.slice(from, to), profile, profiles }
}
