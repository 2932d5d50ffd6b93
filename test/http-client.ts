import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'

export interface Response {
  status: number
  headers: IncomingHttpHeaders
  text: string
  raw: Buffer
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read JSON bodies freely
  body: any
}

export interface RequestOptions {
  token?: string | null
  json?: unknown
  form?: Record<string, string | number | boolean>
  /** A raw body, sent as is with the headers given. */
  raw?: string | Buffer
  headers?: Record<string, string>
}

/** A plain HTTP client over node:http: full control of Host, HEAD and raw bodies, no redirect following. */
export function send(baseUrl: string, method: string, path: string, options: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.token) headers.authorization = `Bearer ${options.token}`
  let body: string | Buffer | undefined = options.raw
  if (options.json !== undefined) {
    body = JSON.stringify(options.json)
    headers['content-type'] ??= 'application/json'
  } else if (options.form !== undefined) {
    body = new URLSearchParams(Object.entries(options.form).map(([k, v]) => [k, String(v)] as [string, string])).toString()
    headers['content-type'] ??= 'application/x-www-form-urlencoded'
  }
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body))
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, baseUrl), { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const raw = Buffer.concat(chunks)
        const text = raw.toString('utf8')
        let parsed: unknown
        // A HEAD answer (or a 304) has a JSON Content-Type and no body.
        // NDJSON (an export) is many JSON texts, for the test to split.
        const type = String(res.headers['content-type'] ?? '')
        if (text !== '' && type.includes('json') && !type.includes('ndjson')) parsed = JSON.parse(text)
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, raw, body: parsed })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}
