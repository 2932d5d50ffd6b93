import { LRUCache } from 'lru-cache'
import { threadsOnDemand } from '../shared/threads-on-demand.js'
import { qrBusy, qrOwnerBusy } from './qr.errors.js'
import type { RenderTask } from './qr-render.worker.js'

/** Rendered images kept, by total size: a few hundred codes of the common sizes. */
const CACHE_BYTES = 32 * 1024 * 1024

/**
 * Renders QR images off the event loop: a small pool of worker threads with a bounded queue (beyond
 * it, 503 with Retry-After), an LRU cache of rendered images by key (the ETag, which hashes everything
 * the image depends on), and one render for identical concurrent requests.
 *
 * The pool is shared by every owner, so each owner may hold at most `perOwner` renders running or
 * waiting: one workspace's burst is answered 429 on its own, and the rest of the pool stays for the
 * others (a render joined or answered from the cache holds nothing).
 */
export function createQrRenderer(options: { threads: number; queue: number; perOwner: number }) {
  const pool = threadsOnDemand(new URL('./qr-render.worker.js', import.meta.url), { threads: options.threads, queue: options.queue })
  const cache = new LRUCache<string, Buffer | string>({
    maxSize: CACHE_BYTES,
    sizeCalculation: (image) => Math.max(1, typeof image === 'string' ? image.length * 2 : image.length),
  })
  const rendering = new Map<string, Promise<Buffer | string>>()
  const held = new Map<string, number>()
  const release = (owner: string) => {
    const left = (held.get(owner) ?? 1) - 1
    if (left === 0) held.delete(owner)
    else held.set(owner, left)
  }

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
    async render(key: string, task: RenderTask, owner: string): Promise<Buffer | string> {
      const cached = cache.get(key)
      if (cached !== undefined) return cached
      let pending = rendering.get(key)
      if (!pending) {
        const count = held.get(owner) ?? 0
        if (count >= options.perOwner) throw qrOwnerBusy(options.perOwner)
        held.set(owner, count + 1)
        pending = renderNow(task).finally(() => {
          rendering.delete(key)
          release(owner)
        })
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
