import { connect } from 'node:net'

/**
 * Sends bytes exactly as given on a fresh socket and returns what the server wrote until it closed
 * (or until `Connection: close` took effect): for request targets and heads node:http will not send.
 */
export function rawRequest(port: number, text: string): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('error', reject)
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      const split = raw.indexOf('\r\n\r\n')
      const head = split === -1 ? raw : raw.slice(0, split)
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body: split === -1 ? '' : raw.slice(split + 4) })
    })
    socket.end(text)
  })
}
