import { createConnection, createServer, type Server, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

export interface TcpProxy {
  /** The service's URL, pointed at the proxy instead. */
  readonly url: string
  /** Drops every connection and refuses new ones, as a crashed or unreachable server would. */
  cut(): Promise<void>
  /**
   * Black-holes every connection: bytes either way vanish and nothing is answered, as with a dead
   * host or a dropped route. The streams are corrupt afterwards: follow with cut().
   */
  pause(): void
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>
  close(): Promise<void>
}

/**
 * A TCP forwarder to a shared service (given by its URL, e.g. postgres://… or redis://…), so that a
 * test can take "the service" away for one server only.
 */
export async function startTcpProxy(serviceUrl: string, defaultPort: number): Promise<TcpProxy> {
  const url = new URL(serviceUrl)
  const target = { host: url.hostname, port: Number(url.port || defaultPort) }
  const sockets = new Set<Socket>()
  let paused = false
  const server: Server = createServer((client) => {
    const upstream = createConnection(target)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
      socket.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.on('data', (chunk: Buffer) => paused || upstream.write(chunk))
    upstream.on('data', (chunk: Buffer) => paused || client.write(chunk))
    client.on('end', () => upstream.end())
    upstream.on('end', () => client.end())
  })
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => resolve())
    })
  await listen(0)
  const port = (server.address() as AddressInfo).port
  const cut = async () => {
    paused = false
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    for (const socket of sockets) socket.destroy()
    await closed
  }
  url.host = `127.0.0.1:${port}`
  return {
    url: url.href,
    cut,
    pause: () => {
      paused = true
    },
    restore: () => listen(port),
    close: cut,
  }
}
