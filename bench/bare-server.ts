import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import { redirectLinks } from './seed.js'

/**
 * The reference: the least a Node process can do to answer the same redirects — node:http, a Map
 * lookup, and the headers Linkline's API requires on a redirect (Location, Cache-Control,
 * Content-Length: 0, an X-Request-Id echoed or generated). No database, no metrics, no clicks.
 * Usage: node dist/bench/bare-server.js <link count>  (PORT from the environment)
 */
const REQUEST_ID = /^[\w.:-]{1,128}$/
const targets = new Map(redirectLinks(Number(process.argv[2])).map((link) => [link.path, link.destination]))

const server = createServer((req, res) => {
  const url = req.url ?? '/'
  const q = url.indexOf('?')
  const destination = targets.get(q === -1 ? url : url.slice(0, q))
  const sent = req.headers['x-request-id']
  res.setHeader('X-Request-Id', typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : randomUUID())
  if (destination === undefined) {
    res.writeHead(404, { 'Content-Length': '0' })
  } else {
    res.writeHead(302, { Location: destination, 'Cache-Control': 'private, no-store', 'Content-Length': '0' })
  }
  res.end()
})
server.listen(Number(process.env.PORT), '127.0.0.1')
process.on('SIGTERM', () => server.close(() => process.exit(0)))
