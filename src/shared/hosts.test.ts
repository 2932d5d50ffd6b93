import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, loadConfig } from '../config.js'
import { normalizeHostAndPort } from './hosts.js'

test('a short domain is host or host:port, lower-cased, in punycode', () => {
  for (const [raw, expected] of [
    ['Short.Example', 'short.example'],
    ['localhost:8080', 'localhost:8080'],
    ['127.0.0.1:1', '127.0.0.1:1'],
    ['[::1]:65535', '[::1]:65535'],
    ['bücher.example', 'xn--bcher-kva.example'],
  ])
    assert.equal(normalizeHostAndPort(raw!), expected, raw)
  for (const raw of [
    'https://short.example',
    'short.example/x',
    'user@short.example',
    'short.example:0',
    'short.example:65536',
    'short.example:',
    'short.example?q',
    'short.example#f',
    '-bad.example',
    'a..b',
    'sho rt.example',
    '',
  ])
    assert.equal(normalizeHostAndPort(raw), undefined, raw)
})

test('LINKLINE_DOMAINS is validated at start, one clear message per bad entry', () => {
  assert.deepEqual(loadConfig({ LINKLINE_DOMAINS: ' Sho.rt , go.example:8443' }).domains, ['sho.rt', 'go.example:8443'])
  assert.deepEqual(loadConfig({ PORT: '9000' }).domains, ['localhost:9000'])
  assert.throws(
    () => loadConfig({ LINKLINE_DOMAINS: 'https://short.example,ok.example,a.example:99999' }),
    (e: unknown) =>
      e instanceof ConfigError &&
      e.message.includes('LINKLINE_DOMAINS entries must be host or host:port (no scheme, path or user; port 1-65535), got "https://short.example"') &&
      e.message.includes('got "a.example:99999"') &&
      !e.message.includes('"ok.example"'),
  )
  assert.throws(() => loadConfig({ LINKLINE_DOMAINS: ' , ' }), /LINKLINE_DOMAINS must name at least one domain/)
})
