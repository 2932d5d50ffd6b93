import assert from 'node:assert/strict'
import { test } from 'node:test'
import { classifyAddress, describeAddress, isPublicAddress } from './outbound-address.js'

test('every spelling of a loopback, private or otherwise non-public address is refused', () => {
  const refused: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['100::1', 'discard'],
    ['2001:db8::1', 'reserved'],
    ['2001::1', 'teredo'],
    // Addresses that embed an IPv4 address are judged by it.
    ['::ffff:127.0.0.1', 'ipv4Mapped:loopback'],
    ['::ffff:7f00:1', 'ipv4Mapped:loopback'],
    ['::FFFF:10.0.0.1', 'ipv4Mapped:private'],
    ['::ffff:0:7f00:1', 'rfc6145:loopback'],
    ['64:ff9b::7f00:1', 'rfc6052:loopback'],
    ['64:ff9b::a9fe:a9fe', 'rfc6052:linkLocal'],
    ['64:ff9b::192.168.0.1', 'rfc6052:private'],
    ['2002:7f00:1::', '6to4:loopback'],
    ['2002:a00:1::1', '6to4:private'],
    ['2002:a9fe:a9fe::', '6to4:linkLocal'],
    // Refused whatever they embed: deprecated or local-only.
    ['::7f00:1', 'ipv4Compatible'],
    ['::127.0.0.1', 'ipv4Compatible'],
    ['::5db8:d822', 'ipv4Compatible'],
    ['64:ff9b:1::5db8:d822', 'rfc6052'],
    // Outside global unicast (2000::/3): unassigned, never a server.
    ['4000::1', 'nonGlobal'],
    ['e000::1', 'nonGlobal'],
    // Not an address as node:net reads them (ipaddr.js alone would take some).
    ['127.1', 'invalid'],
    ['0x7f.0.0.1', 'invalid'],
    ['017700000001', 'invalid'],
    ['localhost', 'invalid'],
    ['', 'invalid'],
  ]
  for (const [address, range] of refused) {
    const c = classifyAddress(address)
    assert.equal(c.public, false, address)
    assert.equal(isPublicAddress(address), false, address)
    assert.equal(c.range, range, address)
  }
})

test('global unicast addresses pass, also when reached through a public IPv4 address they embed', () => {
  for (const address of [
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '2606:2800:220:1:248:1893:25c8:1946',
    '2a00:1450:4001:80b::200e',
    '::ffff:93.184.216.34',
    '64:ff9b::5db8:d822',
    '2002:5db8:d822::1',
  ]) {
    assert.equal(isPublicAddress(address), true, address)
  }
})

test('a refused address is described with its range and the IPv4 address it leads to', () => {
  assert.equal(describeAddress('2002:7f00:1::'), '2002:7f00:1:: (6to4:loopback, 127.0.0.1)')
  assert.equal(describeAddress('10.0.0.7'), '10.0.0.7 (private)')
})
