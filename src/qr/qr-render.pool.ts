import { LRUCache } from 'lru-cache'
import Tinypool from 'tinypool'
import { qrBusy } from './qr.errors.js'
import type { RenderTask } from './qr-render.worker.js'

/** Rendered images kept, by total size: a few hundred codes of the common sizes. */
const CACHE_BYTES = 32 * 1024 * 1024
const IDLE_THREAD_MS = 60_000

/**
 * Renders QR images off the event loop: a small pool of worker threads with a bounded queue (beyond
 * it, 503 with Retry-After), an LRU cache of rendered images by key (the ETag, which hashes everything
 * the image depends on), and one render for identical concurrent requests.
 */
export function createQrRenderer(options: { threads: number; queue: number }) {
  const pool = new Tinypool({
    filename: new URL('./qr-render.worker.js', import.meta.url).href,
    minThreads: 0,
    maxThreads: options.threads,
    maxQueue: options.queue,
    idleTimeout: IDLE_THREAD_MS,
  })
  const cache = new LRUCache<string, Buffer | string>({
    maxSize: CACHE_BYTES,
    sizeCalculation: (image) => Math.max(1, typeof image === 'string' ? image.length * 2 : image.length),
  })
  const rendering = new Map<string, Promise<Buffer | string>>()

  async function renderNow(task: RenderTask): Promise<Buffer | string> {
    let image: Uint8Array | string
    try {
      image = (await pool.run(task)) as Uint8Array | string
    } catch (error) {
      if (pool.queueSize >= options.queue) throw qrBusy()
      throw error
    }
    return typeof image === 'string' ? image : Buffer.from(image.buffer, image.byteOffset, image.byteLength)
  }

  return {
    async render(key: string, task: RenderTask): Promise<Buffer | string> {
      const cached = cache.get(key)
      if (cached !== undefined) return cached
      let pending = rendering.get(key)
      if (!pending) {
        pending = renderNow(task).finally(() => rendering.delete(key))
        rendering.set(key, pending)
      }
      const image = await pending
      cache.set(key, image)
      return image
    },
    close: () => pool.destroy(),
  }
}
export type QrRenderer = ReturnType<typeof createQrRenderer>
