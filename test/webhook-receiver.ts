import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'

export interface Received {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies freely
  readonly json: any
}

/**
 * A webhook receiver for tests: records every POST and answers what `answer` says for its path
 * (200 by default; 0 never answers). `port` reuses a port (to come back after a restart).
 */
export async function startReceiver(options: { port?: number; delayMs?: number } = {}) {
  const received: Received[] = []
  const answers = new Map<string, { status: number; body?: string; headers?: Record<string, string> }>()
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const path = req.url ?? '/'
      let json: unknown
      try {
        json = JSON.parse(body)
      } catch {
        json = undefined
      }
      received.push({ path, headers: req.headers, body, json })
      const answer = answers.get(path) ?? { status: 200 }
      // Status 0: never answer (the connection stays open until the sender gives up).
      if (answer.status === 0) return
      setTimeout(() => res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? 'ok'), options.delayMs ?? 0)
    })
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    port,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    answer(path: string, status: number, body?: string, headers?: Record<string, string>) {
      answers.set(path, { status, body, headers })
    },
    /** Waits (polling, up to `timeoutMs`) until `predicate` holds for what was received. */
    async waitFor(predicate: (all: Received[]) => boolean, timeoutMs = 20_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs
      while (!predicate(received)) {
        if (Date.now() > deadline)
          throw new Error(`the receiver did not get what was expected; it got: ${JSON.stringify(received.map((r) => [r.path, r.json?.type]))}`)
        await sleep(20)
      }
      return received
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>
