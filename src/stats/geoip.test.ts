import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { ConfigError, loadConfig } from '../config.js'
import { cityDatabase, writeMmdb } from '../../test/mmdb.js'
import { BUNDLED_GEOIP_DB, geoDatabaseProblem, openGeoDatabase } from './geoip.js'

const dir = mkdtempSync(join(tmpdir(), 'linkline-geoip-'))
after(() => rmSync(dir, { recursive: true, force: true }))

describe('the shipped IP-to-country database', () => {
  const geo = openGeoDatabase()

  test('knows public addresses, IPv4 and IPv6 (an IPv4-mapped IPv6 address as its IPv4 address), and has no cities', () => {
    assert.equal(geo.cities, false)
    assert.deepEqual(geo.place('8.8.8.8'), { country: 'US', city: null })
    assert.deepEqual(geo.place('::ffff:8.8.8.8'), { country: 'US', city: null })
    assert.deepEqual(geo.place('2001:4860:4860::8888'), { country: 'US', city: null })
    // The same place is the same object: a batch tells places apart by identity.
    assert.equal(geo.place('8.8.8.8'), geo.place('8.8.4.4'))
  })

  test('gives no place to an address that is not public, or not an address', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '192.168.1.1',
      '172.16.0.1',
      '169.254.1.1',
      '100.64.0.1',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:10.0.0.1',
      '203.0.113.9',
      '',
      'nope',
    ])
      assert.deepEqual(geo.place(address), { country: null, city: null }, address)
  })
})

describe('a database named by LINKLINE_GEOIP_DB', () => {
  test('a city database gives "City, CC", and `unknown` for an address without a city', () => {
    const path = join(dir, 'city.mmdb')
    writeFileSync(path, cityDatabase())
    const geo = openGeoDatabase(path)
    assert.equal(geo.cities, true)
    assert.deepEqual(geo.place('81.2.69.160'), { country: 'GB', city: 'London, GB' })
    assert.deepEqual(geo.place('2a01:e0a:1::1'), { country: 'FR', city: 'Paris, FR' })
    assert.deepEqual(geo.place('8.8.8.8'), { country: 'US', city: 'unknown' })
    assert.deepEqual(geo.place('1.1.1.1'), { country: null, city: 'unknown' })
    assert.deepEqual(geo.place('192.168.0.1'), { country: null, city: 'unknown' })
  })

  test("ip-location-db's flat records (country_code, city) read too", () => {
    const path = join(dir, 'flat.mmdb')
    writeFileSync(path, writeMmdb([{ network: '81.2.69.0/24', record: { country_code: 'gb', city: 'London' } }], 'city ipvAll'))
    assert.deepEqual(openGeoDatabase(path).place('81.2.69.1'), { country: 'GB', city: 'London, GB' })
  })

  test('is checked at start: missing, empty, not a database or truncated is a configuration error naming the setting', () => {
    assert.equal(geoDatabaseProblem(BUNDLED_GEOIP_DB), undefined)
    const good = join(dir, 'good.mmdb')
    writeFileSync(good, cityDatabase())
    assert.equal(loadConfig({ LINKLINE_GEOIP_DB: good }).geoipDb, good)
    assert.equal(loadConfig({}).geoipDb, undefined)
    const bytes = cityDatabase()
    const cases: [string, Buffer | undefined, RegExp][] = [
      ['missing.mmdb', undefined, /cannot be read \(ENOENT\)/],
      ['empty.mmdb', Buffer.alloc(0), /is empty/],
      ['text.mmdb', Buffer.from('not a database\n'.repeat(100)), /is not a MaxMind DB/],
      // The tree cut off: the metadata at the end is intact, the file too short for it.
      [
        'truncated.mmdb',
        Buffer.concat([bytes.subarray(0, 10), bytes.subarray(bytes.lastIndexOf(Buffer.from('abcdef4d61784d696e642e636f6d', 'hex')))]),
        /is truncated/,
      ],
      // The metadata cut off.
      ['cut.mmdb', bytes.subarray(0, bytes.length - 40), /is not a MaxMind DB/],
    ]
    for (const [name, content, problem] of cases) {
      const path = join(dir, name)
      if (content !== undefined) writeFileSync(path, content)
      assert.throws(
        () => loadConfig({ LINKLINE_GEOIP_DB: path }),
        (error: unknown) => error instanceof ConfigError && error.message.includes(`LINKLINE_GEOIP_DB "${path}"`) && problem.test(error.message),
        name,
      )
    }
  })
})
