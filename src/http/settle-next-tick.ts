/**
 * Sends a few hundred thousand ticks through `process.nextTick` before the server starts. On Node 24
 * the inline caches that build Node's tick object can otherwise turn megamorphic while Linkline
 * starts (they see the object's map change while its fields generalize), and from then on every tick
 * is built by V8's runtime: ~255 ns instead of ~25 ns, for the several ticks of each HTTP request,
 * about 1 µs of CPU per redirect (docs/performance.md). Ticks sent first settle those fields while the
 * caches are still young. Costs ~20 ms once; harmless where the caches would have settled anyway.
 */
export async function settleNextTick(): Promise<void> {
  const noop = () => {}
  for (let round = 0; round < 300; round++) {
    for (let i = 0; i < 1000; i++) process.nextTick(noop)
    await new Promise((resolve) => setImmediate(resolve))
  }
}
