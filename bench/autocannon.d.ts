// The slice of autocannon's API that the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string
  }
  interface Options {
    url: string
    connections: number
    duration: number
    method?: string
    headers?: Record<string, string>
    body?: string
    requests?: Request[]
  }
  interface Result {
    duration: number
    errors: number
    timeouts: number
  }
  /** Emits 'response' (client, statusCode, bytes, milliseconds) for every response. */
  function autocannon(options: Options, done: (error: Error | null, result: Result) => void): EventEmitter
  export default autocannon
}
