import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { benchApi, type ApiReport } from './api.bench.js'
import { benchControls, renderControls, type ControlsReport } from './controls.bench.js'
import { benchLinkList, linkListTargets, renderLinkList, type LinkListReport } from './link-list.bench.js'
import { detectWrk, type LoadGenerator } from './load.js'
import { benchRedirect, type RedirectReport } from './redirect.bench.js'
import { benchOverview, renderOverview, type OverviewReport } from './overview.bench.js'
import { benchRollup, renderRollup } from './rollup.bench.js'
import { benchScaling, renderScaling } from './scaling.bench.js'
import { benchSlices, renderSlices } from './slices.bench.js'
import { benchStorage, renderStorage, storageSettings, storageTargets, type StorageReport } from './storage.bench.js'
import { benchSignIn, renderSignIn } from './sign-in.bench.js'
import { benchVisitFields, renderVisitFields } from './visit-fields.bench.js'
import {
  batchedWebhookSettings,
  batchedWebhookTargets,
  benchBatchedWebhook,
  benchClickedWebhook,
  renderBatchedWebhook,
  type BatchedWebhookReport,
} from './webhooks.bench.js'
import { benchWrites, renderWrites, writesSettings, writesTargets, type WritesReport } from './writes.bench.js'
import { commitOf, describeMachine, readIfExists, renderReport, spliceReport, type RedirectScenario } from './report.js'

const USAGE = `usage: npm run bench -- [--quick] [--only redirect|api|controls|link-list|writes|webhooks|webhook-batches|rollup|slices|sign-in|visit-fields|overview|storage|scaling] [--baseline <file of another build>] [--cpu-prof]
  without --only: redirect (hot link, cold links, PostgreSQL + Redis), api, controls, link-list, writes, webhook-batches and storage
               (SQLite, 2 h), written to docs/performance.md with their targets judged (about an hour; each part's time there)
  --quick      short runs; 50,000 links, 10,000 conversations, 50,000 clicks instead of 1M, 100k, 1M (~18 minutes in all)
               (link-list: 50,000 links instead of 1M; with TEST_DATABASE_URL and TEST_REDIS_URL, on PostgreSQL too; printed, not written, when run alone)
  --only       run one part (webhooks: the redirect with and without a link.clicked subscriber; webhook-batches: events per
               second one batched link.clicked endpoint takes under a sustained redirect load; rollup: the click
               writer alone, without HTTP, over 100,000 links; slices: the redirect, both servers running all along
               and loaded in turn for 1 s each, 30 times each; sign-in: the redirect's p99 alone and under 50 wrong
               sign-ins a second from as many addresses; visit-fields: in process, what a visit's Accept-Language and UTM
               location cost the serving thread, and the IP database the writer thread; overview: GET /v1/stats over 1,000,000 links and 10,000,000
               clicks written as rollups (100,000 and 1,000,000 with --quick), on SQLite and on PostgreSQL when
               TEST_DATABASE_URL and TEST_REDIS_URL are set; storage: click blocks at rest, 2,000 links at 100 visits/s
               through the click writer for 6 h (2 h with --quick), compacted, bytes per visit and rows per day, on
               PostgreSQL too (2 h) when TEST_DATABASE_URL and TEST_REDIS_URL are set, --backend sqlite|postgres for one; these nine printed, not written to docs;
               writes: POST /v1/links from 10 connections and 10,000 links in bulk, 3 rounds (printed, not written; webhook-batches,
               storage and writes are written by the full run only);
               scaling: one instance on PostgreSQL + Redis, its capacity and each visit's cost to the database,
               written to docs/scaling.md)
  --baseline   the controls and writes parts also measure this build (its dist/src/main.js) with plain links; the rollup part,
               its dist/bench/rollup-runner.js
  --cpu-prof   run both redirect servers with node --cpu-prof; profiles (one per thread) go to ./bench-profiles/{bare,linkline}
               (writes: this build's server, to ./bench-profiles/writes)`

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'cpu-prof': { type: 'boolean', default: false },
    baseline: { type: 'string' },
    backend: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
})
if (values.only === 'webhooks') {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-bench-'))
  try {
    const generator: LoadGenerator = (await detectWrk()) ? 'wrk' : 'autocannon'
    const report = await benchClickedWebhook(
      { generator, links: 10_000, connections: 50, seconds: values.quick ? 2 : 5, warmupSeconds: values.quick ? 1 : 3, rounds: values.quick ? 3 : 5 },
      dir,
      (line) => console.error(`[bench] ${line}`),
    )
    console.log(JSON.stringify(report, null, 2))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  process.exit(0)
}
if (values.only === 'webhook-batches') {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-bench-'))
  try {
    const generator: LoadGenerator = (await detectWrk()) ? 'wrk' : 'autocannon'
    const settings = batchedWebhookSettings(generator, values.quick)
    console.log(JSON.stringify(await benchBatchedWebhook(settings, dir, (line) => console.error(`[bench] ${line}`)), null, 2))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  process.exit(0)
}
if (values.only === 'slices') {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-bench-'))
  try {
    const generator: LoadGenerator = (await detectWrk()) ? 'wrk' : 'autocannon'
    const settings = { generator, links: 10_000, connections: 50, slices: values.quick ? 10 : 30, warmupSeconds: values.quick ? 1 : 3 }
    console.log(renderSlices(await benchSlices(settings, dir, (line) => console.error(`[bench] ${line}`))))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  process.exit(0)
}
if (values.only === 'sign-in') {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-bench-'))
  try {
    const generator: LoadGenerator = (await detectWrk()) ? 'wrk' : 'autocannon'
    const settings = { generator, links: 1000, connections: 10, seconds: values.quick ? 3 : 5, rounds: values.quick ? 3 : 5, signInsPerSecond: 50 }
    console.log(renderSignIn(await benchSignIn(settings, dir, (line) => console.error(`[bench] ${line}`))))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  process.exit(0)
}
if (values.only === 'visit-fields') {
  const settings = { visits: values.quick ? 200_000 : 1_000_000, rounds: values.quick ? 3 : 7 }
  console.log(renderVisitFields(benchVisitFields(settings, (line) => console.error(`[bench] ${line}`))))
  process.exit(0)
}
if (values.only === 'overview') {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-bench-'))
  try {
    const settings = { links: values.quick ? 100_000 : 1_000_000, clicks: values.quick ? 1_000_000 : 10_000_000, requests: values.quick ? 10 : 30 }
    const log = (line: string) => console.error(`[bench] ${line}`)
    const reports: OverviewReport[] = [await benchOverview({ ...settings, backend: 'sqlite' }, dir, log)]
    if (process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL) reports.push(await benchOverview({ ...settings, backend: 'postgres' }, dir, log))
    else log('overview on PostgreSQL: skipped (set TEST_DATABASE_URL and TEST_REDIS_URL to local services)')
    console.log(renderOverview(reports))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  process.exit(0)
}
if (values.only === 'scaling') {
  const generator: LoadGenerator = (await detectWrk()) ? 'wrk' : 'autocannon'
  const settings = { generator, links: 10_000, connections: 50, seconds: values.quick ? 5 : 20, warmupSeconds: 3, apiSeconds: values.quick ? 2 : 5 }
  const report = await benchScaling(settings, (line) => console.error(`[bench] ${line}`))
  const args = process.argv.slice(2).join(' ')
  const generated = `Generated by \`npm run bench -- ${args}\` on ${new Date().toISOString().slice(0, 16)}Z at commit ${commitOf()}.\n\n**Machine:** ${describeMachine()}\n\n${renderScaling(report)}\n`
  console.log(generated)
  // Only a full run is a figure to plan with.
  if (!values.quick) {
    const page = fileURLToPath(new URL('../../docs/scaling.md', import.meta.url))
    writeFileSync(page, spliceReport(readIfExists(page), generated))
  }
  process.exit(0)
}
if (values.only === 'writes') {
  const dir = mkdtempSync(join(tmpdir(), 'linkline-bench-'))
  try {
    const settings = writesSettings(
      (await detectWrk()) ? 'wrk' : 'autocannon',
      values.quick,
      values.baseline === undefined ? undefined : resolve(values.baseline),
      values['cpu-prof'] ? resolve('bench-profiles', 'writes') : undefined,
    )
    console.log(renderWrites(await benchWrites(settings, dir, (line) => console.error(`[bench] ${line}`))))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  process.exit(0)
}
if (values.only === 'storage') {
  const log = (line: string) => console.error(`[bench] ${line}`)
  const postgres = process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL
  const backends = values.backend === undefined ? ['sqlite', ...(postgres ? ['postgres'] : [])] : [values.backend]
  if (!postgres) log('storage on PostgreSQL: skipped (set TEST_DATABASE_URL and TEST_REDIS_URL to local services)')
  for (const backend of backends) {
    if (backend !== 'sqlite' && backend !== 'postgres') throw new Error(`--backend ${backend}: sqlite or postgres`)
    console.log(renderStorage([await benchStorage(storageSettings(backend, !values.quick), log)]))
  }
  process.exit(0)
}
if (values.only === 'rollup') {
  const settings = {
    links: 100_000,
    visits: 450_000,
    rollups: values.quick ? 4 : 7,
    blocksEvery: 3,
    repeats: values.quick ? 2 : 4,
    baseline: values.baseline === undefined ? undefined : resolve(values.baseline),
  }
  console.log(renderRollup(await benchRollup(settings, (line) => console.error(`[bench] ${line}`))))
  process.exit(0)
}
if (values.help || (values.only !== undefined && !['redirect', 'api', 'controls', 'link-list'].includes(values.only))) {
  console.log(USAGE)
  process.exit(values.help ? 0 : 2)
}
const quick = values.quick
const runs = (part: 'redirect' | 'api' | 'controls' | 'link-list') => values.only === undefined || values.only === part
const log = (line: string) => console.error(`[bench] ${line}`)

const root = fileURLToPath(new URL('../../', import.meta.url))
const workDir = mkdtempSync(join(tmpdir(), 'linkline-bench-'))
const machine = describeMachine()
const generator: LoadGenerator = (await detectWrk()) ? 'wrk' : 'autocannon'
if (generator === 'autocannon') log('wrk is not installed (apt-get install wrk): autocannon generates the load and may bound the redirect figures')
let redirect: RedirectReport | undefined
const scenarios: RedirectScenario[] = []
let api: ApiReport | undefined
let controls: ControlsReport | undefined
let linkList: LinkListReport | undefined
// Parts that only the full run adds to the generated block (alone, they are printed).
let writes: WritesReport | undefined
let batches: BatchedWebhookReport | undefined
let storage: StorageReport | undefined
try {
  // The redirect load of both the redirect and the controls parts.
  const load = { generator, links: 10_000, connections: 50, seconds: quick ? 2 : 5, warmupSeconds: quick ? 1 : 3, rounds: quick ? 3 : 5 }
  if (runs('redirect')) {
    const settings = { ...load, cpuProfDir: values['cpu-prof'] ? resolve(root, 'bench-profiles') : undefined }
    redirect = await benchRedirect(settings, workDir, log)
    // The same measurement where visits are concentrated, spread out, or stored on PostgreSQL + Redis.
    const fewer = { ...settings, rounds: quick ? 2 : 3, cpuProfDir: undefined }
    scenarios.push({ name: 'hot link: every request to one link', report: await benchRedirect({ ...fewer, hot: true }, workDir, log) })
    scenarios.push({ name: 'cold links: 100,000 links in rotation', report: await benchRedirect({ ...fewer, links: 100_000 }, workDir, log) })
    if (process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL) {
      scenarios.push({ name: 'PostgreSQL + Redis (one instance): 10,000 links', report: await benchRedirect({ ...fewer, backend: 'postgres' }, workDir, log) })
    } else {
      log('redirect on PostgreSQL + Redis: skipped (set TEST_DATABASE_URL and TEST_REDIS_URL to local services)')
    }
  }
  if (runs('api')) {
    api = await benchApi(
      {
        generator,
        links: quick ? 50_000 : 1_000_000,
        conversations: quick ? 10_000 : 100_000,
        clicks: quick ? 50_000 : 1_000_000,
        seconds: quick ? 1 : 5,
        createConnections: 10,
      },
      workDir,
      log,
    )
  }
  if (runs('controls')) {
    controls = await benchControls(
      {
        ...load,
        baseline: values.baseline === undefined ? undefined : resolve(values.baseline),
        bulkLinks: 10_000,
      },
      workDir,
      log,
    )
  }
  if (runs('link-list')) {
    linkList = await benchLinkList({ links: quick ? 50_000 : 1_000_000, requests: quick ? 50 : 200, postgres: true }, workDir, log)
  }
  if (values.only === undefined) {
    const cpuProfDir = values['cpu-prof'] ? resolve(root, 'bench-profiles', 'writes') : undefined
    writes = await benchWrites(writesSettings(generator, quick, values.baseline === undefined ? undefined : resolve(values.baseline), cpuProfDir), workDir, log)
    batches = await benchBatchedWebhook(batchedWebhookSettings(generator, quick), workDir, log)
    // SQLite for 2 h, the target's figure; 6 h and PostgreSQL are --only storage's.
    storage = await benchStorage(storageSettings('sqlite', false), log)
  }
} finally {
  rmSync(workDir, { recursive: true, force: true })
}

const args = process.argv.slice(2).join(' ')
const report = renderReport({
  command: `npm run bench${args === '' ? '' : ` -- ${args}`}`,
  machine,
  generator,
  commit: commitOf(),
  full: !quick,
  redirect,
  scenarios,
  api,
  parts: [
    ...(controls === undefined ? [] : [{ section: renderControls(controls), targets: [] }]),
    ...(linkList === undefined ? [] : [{ section: renderLinkList(linkList), targets: linkListTargets(linkList, !quick) }]),
    ...(writes === undefined ? [] : [{ section: renderWrites(writes), targets: writesTargets(writes) }]),
    ...(batches === undefined ? [] : [{ section: renderBatchedWebhook(batches), targets: batchedWebhookTargets(batches) }]),
    ...(storage === undefined ? [] : [{ section: renderStorage([storage]), targets: storageTargets([storage]) }]),
  ],
})
console.log(report)
// The controls and link list parts alone are copied into docs/performance.md by hand: they must not replace the full run's figures.
if (values.only === 'controls' || values.only === 'link-list') process.exit(0)
const page = join(root, 'docs', 'performance.md')
mkdirSync(join(root, 'docs'), { recursive: true })
writeFileSync(page, spliceReport(readIfExists(page), report))
log(`written to ${page}`)
