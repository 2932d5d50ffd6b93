import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const FIRST = 10_000

/** Where the kernel's ephemeral range starts (Linux); elsewhere, the IANA range's start. */
function ephemeralStart(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    if (Number.isInteger(low) && low > FIRST + 1000) return low
  } catch {
    // not Linux
  }
  return 49152
}

/** Ports are drawn from [FIRST, END). */
const END = ephemeralStart()
const CLAIMS = join(tmpdir(), 'linkline-test-ports')
mkdirSync(CLAIMS, { recursive: true })
const claimed: string[] = []
process.on('exit', () => claimed.forEach((file) => rmSync(file, { force: true })))

/**
 * Claims `port` among the test processes of this machine (test files run side by side): a file created
 * exclusively, removed when this process exits. A claim left by a process that was killed is skipped,
 * not taken over (two processes taking one over at once could both win).
 */
function claim(port: number): boolean {
  const file = join(CLAIMS, String(port))
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' })
  } catch {
    return false
  }
  claimed.push(file)
  return true
}

const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })

/**
 * A port that nothing listens on, for a server the caller starts later. It is drawn below the kernel's
 * ephemeral range, not taken from listen(0): a port of that range can be handed, in the meantime, to
 * any outgoing connection on the machine (a PostgreSQL or Redis client's, a server starting up), and
 * the server's start then fails with EADDRINUSE. CI saw it: every start of one suite failed at once.
 * It is claimed too, so that another test file drawing at the same moment cannot get it.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = FIRST + Math.floor(Math.random() * (END - FIRST))
    if (claim(port) && (await canListen(port))) return port
  }
  throw new Error(`no free port between ${FIRST} and ${END}`)
}
