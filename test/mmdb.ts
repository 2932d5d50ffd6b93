import { isIPv4 } from 'node:net'

/*
 * A tiny writer of MaxMind DB files (MMDB, format 2.0), for tests: an IPv6 tree (IPv4 networks under
 * ::/96, where readers look IPv4 addresses up), 24-bit records, and the data types a record needs
 * (maps, strings, unsigned integers, arrays). Enough to make a city or country database of a few
 * networks; nothing that a production database needs (no deduplication, no aliases).
 */

export type MmdbValue = string | number | bigint | boolean | MmdbValue[] | { [key: string]: MmdbValue }

/** A network (`8.8.8.0/24`, `2001:db8::/32`) and the record its addresses get. */
export interface MmdbEntry {
  readonly network: string
  readonly record: { [key: string]: MmdbValue }
}

export function writeMmdb(entries: readonly MmdbEntry[], databaseType: string): Buffer {
  /** Each node: its two records (0 bit, 1 bit): another node's number, a data offset as `{ data }`, or empty. */
  const nodes: [Child, Child][] = [[undefined, undefined]]
  const data: Buffer[] = []
  let dataLength = 0
  for (const { network, record } of entries) {
    const bits = networkBits(network)
    const encoded = encode(record)
    const offset = dataLength
    data.push(encoded)
    dataLength += encoded.length
    let node = 0
    for (let i = 0; i < bits.length - 1; i++) {
      const side = bits[i] as 0 | 1
      let next = (nodes[node] as [Child, Child])[side]
      if (typeof next !== 'number') {
        next = nodes.push([undefined, undefined]) - 1
        ;(nodes[node] as [Child, Child])[side] = next
      }
      node = next
    }
    ;(nodes[node] as [Child, Child])[bits[bits.length - 1] as 0 | 1] = { data: offset }
  }
  const count = nodes.length
  const value = (child: Child) => (child === undefined ? count : typeof child === 'number' ? child : count + 16 + child.data)
  const tree = Buffer.alloc(count * 6)
  nodes.forEach(([left, right], i) => {
    tree.writeUIntBE(value(left), i * 6, 3)
    tree.writeUIntBE(value(right), i * 6 + 3, 3)
  })
  const metadata = encode({
    node_count: count,
    record_size: 24,
    ip_version: 6,
    database_type: databaseType,
    languages: ['en'],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    build_epoch: BigInt(Math.floor(Date.now() / 1000)),
    description: { en: `${databaseType} (test)` },
  })
  return Buffer.concat([tree, Buffer.alloc(16), ...data, Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'), metadata])
}

type Child = number | { data: number } | undefined

/** The network's leading bits in the IPv6 tree. */
function networkBits(network: string): (0 | 1)[] {
  const [address = '', length] = network.split('/')
  const v4 = isIPv4(address)
  const bytes = v4 ? [...Array<number>(12).fill(0), ...address.split('.').map(Number)] : ipv6Bytes(address)
  const prefix = (v4 ? 96 : 0) + Number(length ?? (v4 ? 32 : 128))
  const bits: (0 | 1)[] = []
  for (let i = 0; i < prefix; i++) bits.push((((bytes[i >> 3] as number) >> (7 - (i & 7))) & 1) as 0 | 1)
  return bits
}

function ipv6Bytes(address: string): number[] {
  const [head = '', tail] = address.split('::')
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)))
  const left = groups(head)
  const right = tail === undefined ? [] : groups(tail)
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right]
  return all.flatMap((g) => [g >> 8, g & 0xff])
}

/** A control byte (and extended type byte) with the size, then the payload. */
function field(type: number, size: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head: number[] = []
  const sizeBytes: number[] = []
  let small = size
  if (size >= 65821) {
    small = 31
    const rest = size - 65821
    sizeBytes.push((rest >> 16) & 0xff, (rest >> 8) & 0xff, rest & 0xff)
  } else if (size >= 285) {
    small = 30
    const rest = size - 285
    sizeBytes.push((rest >> 8) & 0xff, rest & 0xff)
  } else if (size >= 29) {
    small = 29
    sizeBytes.push(size - 29)
  }
  if (type <= 7) head.push((type << 5) | small)
  else head.push(small, type - 7)
  return Buffer.concat([Buffer.from([...head, ...sizeBytes]), payload])
}

function unsigned(type: number, n: bigint): Buffer {
  const bytes: number[] = []
  for (let v = n; v > 0n; v >>= 8n) bytes.unshift(Number(v & 0xffn))
  return field(type, bytes.length, Buffer.from(bytes))
}

function encode(value: MmdbValue): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8')
    return field(2, bytes.length, bytes)
  }
  if (typeof value === 'boolean') return field(14, value ? 1 : 0)
  if (typeof value === 'bigint') return unsigned(9, value)
  if (typeof value === 'number') return value < 65536 ? unsigned(5, BigInt(value)) : unsigned(6, BigInt(value))
  if (Array.isArray(value)) return Buffer.concat([field(11, value.length), ...value.map(encode)])
  const pairs = Object.entries(value)
  return Buffer.concat([field(7, pairs.length), ...pairs.flatMap(([k, v]) => [encode(k), encode(v)])])
}

/** A city database in MaxMind's record layout: London (81.2.69.0/24), Paris (2a01:e0a::/32), and 8.8.8.0/24 in the US without a city. */
export function cityDatabase(): Buffer {
  return writeMmdb(
    [
      { network: '81.2.69.0/24', record: { city: { names: { en: 'London', fr: 'Londres' } }, country: { iso_code: 'GB' } } },
      { network: '8.8.8.0/24', record: { country: { iso_code: 'US' } } },
      { network: '2a01:e0a::/32', record: { city: { names: { en: 'Paris' } }, country: { iso_code: 'FR' } } },
    ],
    'GeoLite2-City',
  )
}
