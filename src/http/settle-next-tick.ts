/**
 * Sends a few hundred thousand ticks through `process.nextTick` before the server starts. On Node 24
 * the inline caches that build Node's tick object can otherwise turn megamorphic while Linkline
 * starts (they see the object's map change while its fields generalize), and from then on every tick
 * is built by V8's runtime. Buys: ticks built by the fast path for the several ticks of each HTTP
 * request, for some milliseconds once at the start (docs/performance.md, "The redirect path").
 * Harmless where the caches would have settled anyway.
 */
export async function settleNextTick(): Promise<void> {
  const noop = () => {}
  for (let round = 0; round < 300; round++) {
    for (let i = 0; i < 1000; i++) process.nextTick(noop)
    await new Promise((resolve) => setImmediate(resolve))
  }
}
