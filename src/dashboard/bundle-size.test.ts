import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { gzipSync } from 'node:zlib'
import { WEB_ROOT } from './dashboard.routes.js'

/** Every script of the dashboard together, gzipped as the server sends them (docs/performance.md#the-dashboard). */
const BUDGET_KB = 150
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`

/**
 * The dashboard's JavaScript budget, over what `npm run build` made in dist/web: the entry script and
 * the chunks loaded later (the world map) together, gzipped, under 150 KB; and the world map, most of
 * that weight, stays out of the entry, which every page waits for.
 */
test(`the dashboard's JavaScript, gzipped, stays under ${BUDGET_KB} KB, the world map out of the entry`, (t) => {
  const assets = join(WEB_ROOT, 'assets')
  const scripts = readdirSync(assets)
    .filter((name) => name.endsWith('.js'))
    .map((name) => ({ name, gzipped: gzipSync(readFileSync(join(assets, name))).length }))
  const entries = [...readFileSync(join(WEB_ROOT, 'index.html'), 'utf8').matchAll(/<script[^>]* src="\/app\/assets\/([^"]+\.js)"/g)].map((m) => m[1])
  assert.equal(entries.length, 1, 'index.html loads one script')
  assert.ok(scripts.some((s) => s.name === entries[0]))
  assert.ok(
    scripts.some((s) => s.name.startsWith('world-map-')),
    `the world map is a chunk of its own: ${scripts.map((s) => s.name).join(', ')}`,
  )
  const total = scripts.reduce((sum, s) => sum + s.gzipped, 0)
  t.diagnostic(`JavaScript gzipped: ${kb(total)} of ${BUDGET_KB} KB (${scripts.map((s) => `${s.name} ${kb(s.gzipped)}`).join(', ')})`)
  assert.ok(total < BUDGET_KB * 1024, `${kb(total)} of JavaScript gzipped, over the budget of ${BUDGET_KB} KB`)
})
