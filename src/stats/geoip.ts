import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Reader, type Response } from 'mmdb-lib'
import { parseMetadata } from 'mmdb-lib/lib/metadata.js'
import { classifyAddress } from '../shared/outbound-address.js'
import type { Place } from './classify.js'

/*
 * The country (and, with a city database, the city) of a visit's client address, looked up in the
 * click writer thread (visit-batch.ts, classifyBatch), never on the redirect's. The database is a file
 * in MaxMind's format (MMDB): by default the one shipped as a dependency (IP to country, openly
 * licensed: docs/api/analytics.md, "Country without a proxy header"), or LINKLINE_GEOIP_DB's. The
 * address is only looked up: nothing of it is kept.
 */

/** The IP-to-country database shipped with Linkline (IPv4 and IPv6). */
export const BUNDLED_GEOIP_DB = createRequire(import.meta.url).resolve('@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb')

export interface GeoDatabase {
  /** Whether the database has cities: then a visit looked up gets a city, `unknown` when its address has none. */
  readonly cities: boolean
  /** The place of a client address: none (`unknown`) for an address that is not public (private, loopback…) or not an address. */
  place(address: string): Place
}

/** The MMDB metadata is within the last 128 KiB of the file (the format's own bound). */
const METADATA_MAX = 128 * 1024

/**
 * Why a file cannot serve as the IP database, or undefined when it can: read from its metadata only
 * (its last 128 KiB), so that loadConfig checks LINKLINE_GEOIP_DB at start without loading the whole
 * file (the writer thread does that).
 */
export function geoDatabaseProblem(path: string): string | undefined {
  let tail: Buffer
  let size: number
  let fd: number | undefined
  try {
    size = statSync(path).size
    tail = Buffer.alloc(Math.min(size, METADATA_MAX))
    fd = openSync(path, 'r')
    readSync(fd, tail, 0, tail.length, size - tail.length)
  } catch (error) {
    return `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
  if (size === 0) return 'is empty'
  try {
    const metadata = parseMetadata(tail)
    if (metadata.binaryFormatMajorVersion !== 2 || (metadata.ipVersion !== 4 && metadata.ipVersion !== 6) || !(metadata.nodeCount > 0))
      return 'is not a MaxMind DB (MMDB) file of format 2'
    if (metadata.searchTreeSize + 16 > size) return 'is truncated'
    return undefined
  } catch {
    return 'is not a MaxMind DB (MMDB) file'
  }
}

/** The record fields Linkline reads: MaxMind's and DB-IP's (`country.iso_code`, `city.names.en`) and ip-location-db's (`country_code`, `city`). */
interface GeoRecord {
  country?: { iso_code?: unknown }
  registered_country?: { iso_code?: unknown }
  country_code?: unknown
  city?: { names?: { en?: unknown } } | string
}

const COUNTRY_CODE = /^[A-Za-z]{2}$/
const code = (value: unknown): string | undefined => (typeof value === 'string' && COUNTRY_CODE.test(value) ? value.toUpperCase() : undefined)
/** Longest city name kept (a breakdown value). */
const CITY_LENGTH = 100

/** Opens an IP database (the shipped one by default); throws when the file cannot be read or is not an MMDB file. */
export function openGeoDatabase(path: string = BUNDLED_GEOIP_DB): GeoDatabase {
  const reader = new Reader<Response>(readFileSync(path))
  const cities = /city/i.test(reader.metadata.databaseType)
  // Places are few (countries, cities): each is one object, so that a batch can tell them apart by identity.
  const places = new Map<string, Place>()
  const nowhere: Place = { country: null, city: cities ? 'unknown' : null }
  const placeOf = (country: string | null, city: string | null): Place => {
    const key = `${country}\t${city}`
    let place = places.get(key)
    if (place === undefined) places.set(key, (place = { country, city }))
    return place
  }
  return {
    cities,
    place(address) {
      let record: GeoRecord | null
      try {
        const c = classifyAddress(address)
        if (!c.public) return nowhere
        record = reader.get(c.ipv4 ?? address) as GeoRecord | null
      } catch {
        // An address the reader cannot take, or a damaged part of the file: no place, and the batch goes on.
        record = null
      }
      if (record === null) return nowhere
      const country = code(record.country?.iso_code) ?? code(record.country_code) ?? code(record.registered_country?.iso_code) ?? null
      const name = typeof record.city === 'string' ? record.city : record.city?.names?.en
      const city =
        typeof name === 'string' && name.trim() !== ''
          ? `${name.trim().slice(0, CITY_LENGTH)}${country === null ? '' : `, ${country}`}`
          : cities
            ? 'unknown'
            : null
      return placeOf(country, city)
    },
  }
}
